import type { Connection } from '../database.ts'
import { PAGE_SIZE, type MessageRow } from '../message.ts'

const COLUMNS = 'id, room_id, creator_id, client_message_id, created_at, updated_at, presentation_version'

// Pages of a room's history, read off the (room_id, created_at) index one page at a time.
// Whether more history exists is left to the client asking for the next page (204 when none):
// a room's messages are never counted. The room is bound as `+?` (the note on stable plans in
// database.ts): on an ANALYZEd database a newest page took 98 µs re-planned on each call, 82 µs not.
export function pagination(db: Connection) {
  const newest = db.prepare<[number, number], MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE room_id = +? ORDER BY created_at DESC, id DESC LIMIT ?`,
  )
  const before = db.prepare<[number, string, string, number, number], MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE room_id = +? AND created_at <= ? AND NOT (created_at = ? AND id >= ?)
     ORDER BY created_at DESC, id DESC LIMIT ?`,
  )
  const after = db.prepare<[number, string, string, number, number], MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE room_id = +? AND created_at >= ? AND NOT (created_at = ? AND id <= ?)
     ORDER BY created_at, id LIMIT ?`,
  )
  const createdSince = db.prepare<[number, string, number], MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE room_id = +? AND created_at > ? ORDER BY created_at, id LIMIT ?`,
  )
  const updatedSince = db.prepare<[number, string, string, number], MessageRow>(
    `SELECT ${COLUMNS} FROM messages WHERE room_id = +? AND updated_at > ? AND id NOT IN (SELECT value FROM json_each(?))
     ORDER BY updated_at DESC, id DESC LIMIT ?`,
  )


  return {
    // How many messages the room has in all (the bot API's X-Total-Count, as upstream counts).
    // The newest page, oldest first.
    lastPage: (roomId: number, size = PAGE_SIZE): MessageRow[] => newest.all(roomId, size).reverse(),
    pageBefore: (m: MessageRow, size = PAGE_SIZE): MessageRow[] => before.all(m.room_id, m.created_at, m.created_at, m.id, size).reverse(),
    pageAfter: (m: MessageRow, size = PAGE_SIZE): MessageRow[] => after.all(m.room_id, m.created_at, m.created_at, m.id, size),
    pageAround(m: MessageRow, size = PAGE_SIZE): MessageRow[] {
      return [...this.pageBefore(m, size), m, ...this.pageAfter(m, size)]
    },
    createdSince: (roomId: number, since: string, size = PAGE_SIZE): MessageRow[] => createdSince.all(roomId, since, size),
    // Changed since, leaving out the ones just created (they are sent whole).
    updatedSince: (roomId: number, since: string, excluding: number[] = [], size = PAGE_SIZE): MessageRow[] =>
      updatedSince.all(roomId, since, JSON.stringify(excluding), size).reverse(),
  }
}
