import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'

export const PAGE_SIZE = 40

export interface MessageRow {
  id: number
  room_id: number
  creator_id: number
  client_message_id: string
  created_at: string
  updated_at: string
  // Trigger-maintained (migrations/003): moves whenever anything the message's fragment shows
  // changes. Rows built in code before it is read back leave it out.
  presentation_version?: number
}

export interface NewMessage {
  roomId: number
  creatorId: number
  clientMessageId: string
  body: string
  plainText: string
  // When it was written, for history brought in from elsewhere (an import); now otherwise.
  createdAt?: string
}

const COLUMNS = 'id, room_id, creator_id, client_message_id, created_at, updated_at, presentation_version'

// A message is its row, its rich-text body (action_text_rich_texts, as Action Text stores it)
// and its search row (message_search_index, rowid = message id), always written together.
export function messages(db: Connection) {
  const insert = db.prepare('INSERT INTO messages (room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
  const insertBody = db.prepare(
    "INSERT INTO action_text_rich_texts (name, body, record_type, record_id, created_at, updated_at) VALUES ('body', ?, 'Message', ?, ?, ?)",
  )
  const updateBody = db.prepare("UPDATE action_text_rich_texts SET body = ?, updated_at = ? WHERE record_type = 'Message' AND record_id = ? AND name = 'body'")
  const insertSearch = db.prepare('INSERT INTO message_search_index (rowid, body) VALUES (?, ?)')
  const deleteSearch = db.prepare('DELETE FROM message_search_index WHERE rowid = ?')
  const touch = db.prepare('UPDATE messages SET updated_at = ? WHERE id = ?')
  const find = db.prepare<[number], MessageRow>(`SELECT ${COLUMNS} FROM messages WHERE id = ?`)
  const findInRoom = db.prepare<[number, number], MessageRow>(`SELECT ${COLUMNS} FROM messages WHERE id = ? AND room_id = ?`)
  const body = db.prepare<[number], string | null>("SELECT body FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id = ? AND name = 'body'").pluck()
  const deleteBody = db.prepare("DELETE FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id = ?")
  const deleteBoosts = db.prepare('DELETE FROM boosts WHERE message_id = ?')
  const deleteRow = db.prepare('DELETE FROM messages WHERE id = ?')
  // The bot API's X-Total-Count; pages themselves never count (message/pagination.ts).
  const countInRoom = db.prepare<[number], number>('SELECT count(*) FROM messages WHERE room_id = ?').pluck()
  // A person's message with this client_message_id (the newest one, for a repeat kept from before the unique index).
  const byClientId = db.prepare<[number, string], MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE creator_id = ? AND client_message_id = ? AND campfire_repeat_of = 0`,
  )
  const lastByCreator = db.prepare<[number, number], MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE room_id = ? AND creator_id = ? ORDER BY created_at DESC, id DESC LIMIT 1`,
  )

  return {
    find: (id: number): MessageRow | undefined => find.get(id),
    findInRoom: (id: number, roomId: number): MessageRow | undefined => findInRoom.get(id, roomId),
    countInRoom: (roomId: number): number => countInRoom.get(roomId) ?? 0,
    body: (id: number): string | null => body.get(id) ?? null,
    byClientId: (creatorId: number, clientMessageId: string): MessageRow | undefined => byClientId.get(creatorId, clientMessageId),
    lastByCreator: (roomId: number, creatorId: number): MessageRow | undefined => lastByCreator.get(roomId, creatorId),

    create(message: NewMessage): MessageRow {
      const now = message.createdAt ?? dbTime()
      const id = Number(insert.run(message.roomId, message.creatorId, message.clientMessageId, now, now).lastInsertRowid)
      insertBody.run(message.body, id, now, now)
      insertSearch.run(id, message.plainText)
      return { id, room_id: message.roomId, creator_id: message.creatorId, client_message_id: message.clientMessageId, created_at: now, updated_at: now }
    },

    revise(id: number, html: string, plainText: string): string {
      const now = dbTime()
      if (updateBody.run(html, now, id).changes === 0) insertBody.run(html, id, now, now)
      deleteSearch.run(id)
      insertSearch.run(id, plainText)
      touch.run(now, id)
      return now
    },

    touch(id: number): string {
      const now = dbTime()
      touch.run(now, id)
      return now
    },

    destroy(id: number): void {
      deleteBoosts.run(id)
      deleteBody.run(id)
      deleteSearch.run(id)
      deleteRow.run(id)
    },
  }
}
