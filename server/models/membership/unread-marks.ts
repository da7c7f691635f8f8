import type { Connection } from '../database.ts'
import type { MessageRow } from '../message.ts'
import { dbTime } from '../../lib/time.ts'

const COLUMNS = 'messages.id, messages.room_id, messages.creator_id, messages.client_message_id, messages.created_at, messages.updated_at, messages.presentation_version'

// "Mark as unread": the room is unread from a message on, for one person (migrations/015). The
// room then opens at that message, while it is still unread from exactly there.
export function unreadMarks(db: Connection) {
  const mark = db.prepare(
    'UPDATE memberships SET unread_at = ?, campfire_unread_message_id = ?, updated_at = ? WHERE room_id = ? AND user_id = ?',
  )
  const marked = db.prepare<[number, number], MessageRow>(
    `SELECT ${COLUMNS} FROM memberships JOIN messages ON messages.id = memberships.campfire_unread_message_id
     WHERE memberships.room_id = ? AND memberships.user_id = ? AND messages.room_id = memberships.room_id
       AND memberships.unread_at = messages.created_at`,
  )

  return {
    // Writer only: true when the person is a member of the message's room.
    markUnread: (message: MessageRow, userId: number): boolean => mark.run(message.created_at, message.id, dbTime(), message.room_id, userId).changes > 0,
    // The message the room is unread from, when the person marked it so and has not read it since.
    markedMessage: (roomId: number, userId: number): MessageRow | undefined => marked.get(roomId, userId),
  }
}
