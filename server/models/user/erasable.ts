// The rows an erasure reads and writes; erasure.ts runs the erasure with them.
import type { Connection } from '../database.ts'
import type { MessageRow } from '../message.ts'
import { dbTime } from '../../lib/time.ts'

export const FORMER_MEMBER = 'A former member'

const THEIR_ROWS = [
  'DELETE FROM sessions WHERE user_id = ?',
  'DELETE FROM push_subscriptions WHERE user_id = ?',
  'DELETE FROM searches WHERE user_id = ?',
  'DELETE FROM webhooks WHERE user_id = ?',
  'DELETE FROM bans WHERE user_id = ?',
  'DELETE FROM boosts WHERE booster_id = ?',
  'DELETE FROM memberships WHERE user_id = ?',
  'DELETE FROM campfire_worker_connections WHERE user_id = ?',
  'DELETE FROM campfire_email_notifications WHERE user_id = ?',
  'DELETE FROM campfire_email_preferences WHERE user_id = ?',
  'DELETE FROM oidc_identities WHERE user_id = ?',
  "DELETE FROM slack_import_records WHERE kind = 'user' AND record_id = ?",
  // The inbox's index of where they were mentioned, and what they saved.
  'DELETE FROM campfire_mentions WHERE user_id = ?',
  'DELETE FROM campfire_saved_messages WHERE user_id = ?',
]

export function erasable(db: Connection) {
  const theirRows = THEIR_ROWS.map((sql) => db.prepare<[number]>(sql))
  const signOut = db.prepare('DELETE FROM sessions WHERE user_id = ?')
  const setAside = db.prepare('UPDATE users SET status = 1 WHERE id = ? AND status = 0')
  const formerMember = db.prepare<[string], number>(
    'SELECT id FROM users WHERE name = ? AND email_address IS NULL AND password_digest IS NULL AND role = 0 AND status = 1 ORDER BY id LIMIT 1',
  ).pluck()
  const insertFormerMember = db.prepare("INSERT INTO users (name, email_address, password_digest, role, status, created_at, updated_at) VALUES (?, NULL, NULL, 0, 1, ?, ?)")
  const nextMessages = db.prepare<[number, number], MessageRow>(
    'SELECT id, room_id, creator_id, client_message_id, created_at, updated_at FROM messages WHERE creator_id = ? ORDER BY id LIMIT ?',
  )
  const forgetMessage = [
    'DELETE FROM campfire_email_notifications WHERE message_id = ?',
    "DELETE FROM slack_import_records WHERE kind = 'message' AND record_id = ?",
  ].map((sql) => db.prepare<[number]>(sql))
  const reassign = db.prepare('UPDATE messages SET creator_id = ? WHERE id = ?')
  const reassignRooms = db.prepare('UPDATE rooms SET creator_id = ? WHERE creator_id = ?')
  // Messages whose plain text has the name as a phrase: where a mention of them can be.
  const namedIn = db.prepare<[string], { id: number; body: string | null; text: string }>(
    `SELECT s.rowid AS id, r.body, s.body AS text FROM message_search_index s
     LEFT JOIN action_text_rich_texts r ON r.record_type = 'Message' AND r.record_id = s.rowid AND r.name = 'body'
     WHERE message_search_index MATCH ?`,
  )
  const updateBody = db.prepare("UPDATE action_text_rich_texts SET body = ? WHERE record_type = 'Message' AND record_id = ? AND name = 'body'")
  const deleteSearch = db.prepare('DELETE FROM message_search_index WHERE rowid = ?')
  const insertSearch = db.prepare('INSERT INTO message_search_index (rowid, body) VALUES (?, ?)')
  const deleteUser = db.prepare('DELETE FROM users WHERE id = ?')

  return {
    signOut(userId: number): void {
      signOut.run(userId)
      setAside.run(userId)
    },
    isFormerMember: (userId: number): boolean => formerMember.get(FORMER_MEMBER) === userId,
    formerMemberId(): number {
      const found = formerMember.get(FORMER_MEMBER)
      if (found !== undefined) return found
      const now = dbTime()
      return Number(insertFormerMember.run(FORMER_MEMBER, now, now).lastInsertRowid)
    },
    nextMessages: (userId: number, limit: number): MessageRow[] => nextMessages.all(userId, limit),
    forgetMessage: (messageId: number): void => forgetMessage.forEach((statement) => statement.run(messageId)),
    reassignMessage: (messageId: number, to: number): void => void reassign.run(to, messageId),
    reassignRooms: (from: number, to: number): void => void reassignRooms.run(to, from),
    messagesNaming: (name: string) => namedIn.all(`"${name.replaceAll('"', '""')}"`),
    rewrite(messageId: number, body: string, text: string): void {
      updateBody.run(body, messageId)
      deleteSearch.run(messageId)
      insertSearch.run(messageId, text)
    },
    forgetSearchText(messageId: number): void {
      deleteSearch.run(messageId)
      insertSearch.run(messageId, '')
    },
    deleteTheirRows: (userId: number): void => theirRows.forEach((statement) => statement.run(userId)),
    deleteUser: (userId: number): boolean => deleteUser.run(userId).changes > 0,
    // Deleted entries stay in the full-text index's older segments (as the words and a tombstone)
    // until a merge reaches them; merging everything leaves none of the erased text behind.
    optimizeSearchIndex: (): void => void db.exec("INSERT INTO message_search_index (message_search_index) VALUES ('optimize')"),
  }
}
