import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'

export const INVOLVEMENTS = ['invisible', 'nothing', 'mentions', 'everything'] as const
export type Involvement = (typeof INVOLVEMENTS)[number]
export const CONNECTION_TTL_MS = 60_000

export interface MembershipRow {
  id: number
  room_id: number
  user_id: number
  involvement: Involvement | null
  unread_at: string | null
  // The message a "Mark as unread" left the room unread from (membership/unread-marks.ts), or null.
  campfire_unread_message_id: number | null
  connections: number
  connected_at: string | null
  updated_at: string
}

export function memberships(db: Connection) {
  const grant = db.prepare(
    `INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at)
     VALUES (?, ?, ?, 0, ?, ?) ON CONFLICT (room_id, user_id) DO NOTHING`,
  )
  const grantOpenRoomsTo = db.prepare(
    `INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at)
     SELECT rooms.id, ?, 'mentions', 0, ?, ? FROM rooms WHERE rooms.type = 'Rooms::Open'
     ON CONFLICT (room_id, user_id) DO NOTHING`,
  )
  const grantToActiveUsers = db.prepare(
    `INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at)
     SELECT ?, users.id, 'mentions', 0, ?, ? FROM users WHERE users.status = 0
     ON CONFLICT (room_id, user_id) DO NOTHING`,
  )
  const find = db.prepare<[number, number], MembershipRow>(
    'SELECT id, room_id, user_id, involvement, unread_at, campfire_unread_message_id, connections, connected_at, updated_at FROM memberships WHERE room_id = ? AND user_id = ?',
  )
  const read = db.prepare('UPDATE memberships SET unread_at = NULL, updated_at = ? WHERE room_id = ? AND user_id = ? AND unread_at IS NOT NULL')
  // Every member of a room, in user id order (a post's fan-out): one JSON array from SQLite parses
  // in a third of the time that one row per member takes to hand over (5,000 members: 1.1 → 0.4 ms).
  const userIdsIn = db.prepare<[number], string>('SELECT json_group_array(user_id) FROM memberships WHERE room_id = +?').pluck()
  // Read on every sidebar request; `+?`: the note on stable plans in database.ts.
  const unreadRoomIds = db.prepare<[number], number>('SELECT room_id FROM memberships WHERE user_id = +? AND unread_at IS NOT NULL').pluck()
  const disconnectAll = db.prepare('UPDATE memberships SET connections = 0, connected_at = NULL WHERE connected_at IS NOT NULL OR connections != 0')

  return {
    userIdsIn: (roomId: number): number[] => JSON.parse(userIdsIn.get(roomId) ?? '[]') as number[],
    find: (roomId: number, userId: number): MembershipRow | undefined => find.get(roomId, userId),
    unreadRoomIds: (userId: number): Set<number> => new Set(unreadRoomIds.all(userId)),

    // The sidebar's unread slots are filled from unread_at on every request (unread-slots.ts).
    read: (roomId: number, userId: number): boolean => read.run(dbTime(), roomId, userId).changes > 0,

    grant(roomId: number, userId: number, involvement: Involvement = 'mentions'): void {
      const now = dbTime()
      grant.run(roomId, userId, involvement, now, now)
    },

    // New people join every open room, in one statement.
    grantOpenRoomsTo(userId: number): void {
      const now = dbTime()
      grantOpenRoomsTo.run(userId, now, now)
    },

    grantToActiveUsers(roomId: number): void {
      const now = dbTime()
      grantToActiveUsers.run(roomId, now, now)
    },

    // At boot nobody is connected yet, whatever the last process left behind.
    disconnectAll: (): number => disconnectAll.run().changes,
  }
}
