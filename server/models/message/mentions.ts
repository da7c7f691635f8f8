import type { Connection } from '../database.ts'
import { mentionsIn, type VerifyGlobalId } from './mentionee.ts'

// Who each message mentions (campfire_mentions, migrations/014-mentions.sql), for the inbox.
// The triggers put every message whose mentions may have changed on campfire_mention_checks;
// `check` reads those bodies again, verifying each sgid as Message::Mentionee does, and brings
// the message's rows in line. Writer only.

export const CHECKS_PER_TRANSACTION = 1000

export interface NewMention {
  userId: number
  messageId: number
  roomId: number
}

export function mentionIndex(db: Connection) {
  const anyPending = db.prepare<[], number>('SELECT 1 FROM campfire_mention_checks LIMIT 1').pluck()
  const nextChecks = db.prepare<[number], { id: number; message_id: number }>('SELECT id, message_id FROM campfire_mention_checks ORDER BY id LIMIT ?')
  const clearChecks = db.prepare('DELETE FROM campfire_mention_checks WHERE id <= ?')
  const message = db.prepare<[number], { room_id: number; created_at: string; body: string | null }>(
    `SELECT messages.room_id, messages.created_at, body.body FROM messages
     LEFT JOIN action_text_rich_texts body ON body.record_type = 'Message' AND body.record_id = messages.id AND body.name = 'body'
     WHERE messages.id = ?`,
  )
  const stored = db.prepare<[number], number>('SELECT user_id FROM campfire_mentions WHERE message_id = ?').pluck()
  const remove = db.prepare('DELETE FROM campfire_mentions WHERE message_id = ?')
  const insert = db.prepare('INSERT OR REPLACE INTO campfire_mentions (user_id, created_at, message_id, room_id) VALUES (?, ?, ?, ?)')

  // The message's rows as its body says now; the people it newly mentions.
  function recheck(messageId: number, verify: VerifyGlobalId): NewMention[] {
    const found = message.get(messageId)
    const wanted = found?.body ? [...new Set(mentionsIn(found.body, verify).values())] : []
    const had = new Set(stored.all(messageId))
    remove.run(messageId)
    for (const userId of wanted) insert.run(userId, found!.created_at, messageId, found!.room_id)
    return wanted.filter((userId) => !had.has(userId)).map((userId) => ({ userId, messageId, roomId: found!.room_id }))
  }

  return {
    pending: (): boolean => anyPending.get() !== undefined,

    // Up to `limit` checks, oldest first, each message once; the mentions that are new.
    check(verify: VerifyGlobalId, limit = CHECKS_PER_TRANSACTION): NewMention[] {
      const checks = nextChecks.all(limit)
      if (checks.length === 0) return []
      const added = [...new Set(checks.map((row) => row.message_id))].flatMap((id) => recheck(id, verify))
      clearChecks.run(checks.at(-1)!.id)
      return added
    },
  }
}

export type MentionIndex = ReturnType<typeof mentionIndex>
