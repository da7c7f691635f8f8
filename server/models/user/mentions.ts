import type { Connection } from '../database.ts'
import { PAGE_SIZE, type MessageRow } from '../message.ts'
import { ROOM_TYPES } from '../room.ts'
import { STATUSES } from '../user.ts'

// A person's inbox: the messages that mention them (campfire_mentions, kept by
// message/mentions.ts) and the Pings they have not read, newest first, in pages like a room's
// history. Only rooms they are still in count, and only while the bell asks for mentions or
// everything there; an author who is deactivated or banned, or the person themself, is left out.
// An entry is unread while its room is unread for them from that message on.

export interface InboxEntry extends MessageRow {
  unread: 0 | 1
}

export interface InboxPage {
  entries: InboxEntry[]
  // The last entry, when older ones follow: the next page is the one before it.
  older: InboxEntry | null
}

const HEARD = "('mentions', 'everything')"
const COLUMNS = `m.id, m.room_id, m.creator_id, m.client_message_id, m.created_at, m.updated_at, m.presentation_version,
  (mb.unread_at IS NOT NULL AND m.created_at >= mb.unread_at) AS unread`
const NEWEST = { created_at: '\uffff', id: Number.MAX_SAFE_INTEGER }

type Cursor = Pick<MessageRow, 'created_at' | 'id'>

function newestFirst(a: Cursor, b: Cursor): number {
  return a.created_at === b.created_at ? b.id - a.id : a.created_at < b.created_at ? 1 : -1
}

export function inbox(db: Connection) {
  // Off the (user_id, created_at, message_id) key, newest first.
  const mentioned = db.prepare<[number, string, number, number], InboxEntry>(
    `SELECT ${COLUMNS} FROM campfire_mentions c
     CROSS JOIN memberships mb ON mb.room_id = c.room_id AND mb.user_id = c.user_id
     CROSS JOIN messages m ON m.id = c.message_id
     CROSS JOIN users u ON u.id = m.creator_id
     WHERE c.user_id = ? AND (c.created_at, c.message_id) < (?, ?) AND mb.involvement IN ${HEARD}
       AND u.status = ${STATUSES.active} AND m.creator_id <> c.user_id
     ORDER BY c.created_at DESC, c.message_id DESC LIMIT ?`,
  )
  // Off each unread direct room's (room_id, created_at) index, from the first unread message on.
  const pinged = db.prepare<[number, string, number, number], InboxEntry>(
    `SELECT ${COLUMNS} FROM memberships mb
     CROSS JOIN rooms r ON r.id = mb.room_id
     CROSS JOIN messages m INDEXED BY index_messages_on_room_id_and_created_at ON m.room_id = mb.room_id AND m.created_at >= mb.unread_at
     CROSS JOIN users u ON u.id = m.creator_id
     WHERE mb.user_id = +? AND mb.unread_at IS NOT NULL AND mb.involvement IN ${HEARD} AND r.type = '${ROOM_TYPES.direct}'
       AND (m.created_at, m.id) < (?, ?) AND u.status = ${STATUSES.active} AND m.creator_id <> mb.user_id
     ORDER BY m.created_at DESC, m.id DESC LIMIT ?`,
  )
  const cursor = db.prepare<[number], Cursor>('SELECT created_at, id FROM messages WHERE id = ?')
  // Of these people, who gets the message in their inbox, and whether it is unread for them.
  const audience = db.prepare<[number, string], { user_id: number; unread: 0 | 1; direct: 0 | 1 }>(
    `SELECT mb.user_id, (mb.unread_at IS NOT NULL AND m.created_at >= mb.unread_at) AS unread, r.type = '${ROOM_TYPES.direct}' AS direct
     FROM messages m JOIN rooms r ON r.id = m.room_id JOIN users u ON u.id = m.creator_id AND u.status = ${STATUSES.active}
     JOIN memberships mb ON mb.room_id = m.room_id
     WHERE m.id = ? AND mb.user_id IN (SELECT value FROM json_each(?)) AND mb.user_id <> m.creator_id AND mb.involvement IN ${HEARD}`,
  )

  return {
    // The message a page starts before, or undefined when there is none.
    cursor: (messageId: number): Cursor | undefined => cursor.get(messageId),

    page(userId: number, before: Cursor = NEWEST, size = PAGE_SIZE): InboxPage {
      const byId = new Map<number, InboxEntry>()
      for (const entry of [...mentioned.all(userId, before.created_at, before.id, size + 1), ...pinged.all(userId, before.created_at, before.id, size + 1)]) {
        if (!byId.has(entry.id) || entry.unread) byId.set(entry.id, entry)
      }
      const sorted = [...byId.values()].sort(newestFirst)
      const entries = sorted.slice(0, size)
      return { entries, older: sorted.length > size ? entries.at(-1)! : null }
    },

    // Whose inbox a new message enters: the people it mentions, and in a direct room the other
    // members for whom it is unread.
    recipients(messageId: number, mentionedIds: readonly number[], memberIds: readonly number[]): { userId: number; unread: boolean }[] {
      const mentioned = new Set(mentionedIds)
      return audience
        .all(messageId, JSON.stringify([...new Set([...mentionedIds, ...memberIds])]))
        .filter((row) => mentioned.has(row.user_id) || (row.direct === 1 && row.unread === 1))
        .map((row) => ({ userId: row.user_id, unread: row.unread === 1 }))
    },
  }
}

export type Inbox = ReturnType<typeof inbox>
