import type { Connection } from '../database.ts'
import { CONNECTION_TTL_MS } from '../membership.ts'
import { dbTime, dbTimeFromDate } from '../../lib/time.ts'

// What a room does when a message arrives: it is touched (its updated_at orders direct
// rooms and drives the refresh), and members who are not looking are marked unread.
export function receiving(db: Connection) {
  const touchRoom = db.prepare('UPDATE rooms SET updated_at = ? WHERE id = ?')
  // `+?`: the note on stable plans in database.ts (with sqlite_stat4, `room_id = ?` re-planned
  // this statement on every post).
  const markUnread = db.prepare(
    `UPDATE memberships SET unread_at = ?, updated_at = ?
     WHERE room_id = +? AND user_id != +? AND involvement != 'invisible' AND unread_at IS NULL
       AND (connected_at IS NULL OR connected_at < ?)`,
  )

  return {
    touch(roomId: number, at: string = dbTime()): void {
      touchRoom.run(at, roomId)
    },

    receive(message: { room_id: number; creator_id: number; created_at: string }): void {
      touchRoom.run(message.created_at, message.room_id)
      const disconnectedBefore = dbTimeFromDate(new Date(Date.now() - CONNECTION_TTL_MS))
      markUnread.run(message.created_at, dbTime(), message.room_id, message.creator_id, disconnectedBefore)
    },
  }
}
