import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'

export const ROOM_TYPES = { open: 'Rooms::Open', closed: 'Rooms::Closed', direct: 'Rooms::Direct' } as const
export type RoomType = (typeof ROOM_TYPES)[keyof typeof ROOM_TYPES]

export interface RoomRow {
  id: number
  name: string | null
  type: RoomType
  creator_id: number
  created_at: string
  updated_at: string
  // Moves (by trigger) whenever a message of the room appears, disappears or changes what it
  // shows (migrations/003-cache-versions.sql).
  content_version: number
}

// A person's visit to one of their rooms: the room, and their membership as the page needs it.
export interface RoomVisit {
  room: RoomRow
  unread: boolean
  markedMessageId: number | null
  original: boolean
}

// fewerMessagesThan keeps one answer per room for this many rooms at most.
const MAX_COUNTED_ROOMS = 1000

const COLUMNS = 'rooms.id, rooms.name, rooms.type, rooms.creator_id, rooms.created_at, rooms.updated_at, rooms.content_version'

export function rooms(db: Connection) {
  const insert = db.prepare('INSERT INTO rooms (name, type, creator_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
  // Read on every room page and every room channel subscription. `+?` keeps the plan fixed
  // (the note on stable plans in database.ts): as a plain join it was re-planned on every call.
  const findForUser = db.prepare<[number, number], RoomRow>(
    `SELECT ${COLUMNS} FROM rooms JOIN memberships ON memberships.room_id = rooms.id WHERE rooms.id = +? AND memberships.user_id = +?`,
  )
  // The room page's one read of the room: the room, the visitor's membership (unread, and the
  // message a Mark as unread left), and whether it is Room.original: the first room created,
  // which shows the invitation.
  const visitFor = db.prepare<[number, number], RoomRow & { unread_at: string | null; marked_message_id: number | null; original: number }>(
    `SELECT ${COLUMNS}, memberships.unread_at, memberships.campfire_unread_message_id AS marked_message_id,
       rooms.id = (SELECT id FROM rooms ORDER BY created_at, id LIMIT 1) AS original
     FROM rooms JOIN memberships ON memberships.room_id = rooms.id WHERE rooms.id = +? AND memberships.user_id = +?`,
  )
  const oldestForUser = db.prepare<[number], RoomRow>(
    `SELECT ${COLUMNS} FROM rooms JOIN memberships ON memberships.room_id = rooms.id
     WHERE memberships.user_id = +? ORDER BY rooms.created_at, rooms.id LIMIT 1`,
  )

  const newestForUser = db.prepare<[number], RoomRow>(
    `SELECT ${COLUMNS} FROM rooms JOIN memberships ON memberships.room_id = rooms.id WHERE memberships.user_id = +? ORDER BY rooms.id DESC LIMIT 1`,
  )
  // Whether the room has a message at this offset (0 is the first), stepping over no more rows.
  const messageAtOffset = db.prepare<[number, number], number>('SELECT EXISTS (SELECT 1 FROM messages WHERE room_id = +? LIMIT 1 OFFSET ?)').pluck()
  // fewerMessagesThan's answers, by room, under the content_version they were read at.
  const counted = new Map<number, { version: number; limit: number; fewer: boolean }>()
  const memberNames = db.prepare<[number], { id: number; name: string }>(
    'SELECT users.id, users.name FROM memberships JOIN users ON users.id = memberships.user_id WHERE memberships.room_id = ? ORDER BY users.id',
  )

  const find = db.prepare<[number], RoomRow>(`SELECT ${COLUMNS} FROM rooms WHERE id = ?`)

  return {
    find: (id: number): RoomRow | undefined => find.get(id),
    newestForUser: (userId: number): RoomRow | undefined => newestForUser.get(userId),
    // Whether the room has fewer than `limit` messages, looking at `limit` rows at most. The
    // answer is kept under the room's content_version, read by the caller in the same
    // transaction: every message that appears in the room or leaves it moves that version,
    // whoever writes, so a kept answer is never stale. The room page asks it on every visit to
    // the account's first room, whose messages change far less often than people look at them.
    fewerMessagesThan(room: Pick<RoomRow, 'id' | 'content_version'>, limit: number): boolean {
      const known = counted.get(room.id)
      if (known !== undefined && known.version === room.content_version && known.limit === limit) return known.fewer
      const fewer = limit <= 0 ? false : messageAtOffset.get(room.id, limit - 1) !== 1
      if (counted.size >= MAX_COUNTED_ROOMS) counted.clear()
      counted.set(room.id, { version: room.content_version, limit, fewer })
      return fewer
    },
    memberNames: (roomId: number) => memberNames.all(roomId),

    create(name: string | null, type: RoomType, creatorId: number): number {
      const now = dbTime()
      return Number(insert.run(name, type, creatorId, now, now).lastInsertRowid)
    },

    findForUser: (roomId: number, userId: number): RoomRow | undefined => findForUser.get(roomId, userId),
    visitFor(roomId: number, userId: number): RoomVisit | undefined {
      const row = visitFor.get(roomId, userId)
      if (row === undefined) return undefined
      const { unread_at: unreadAt, marked_message_id: markedMessageId, original, ...room } = row
      return { room, unread: unreadAt !== null, markedMessageId, original: original === 1 }
    },
    oldestForUser: (userId: number): RoomRow | undefined => oldestForUser.get(userId),
  }
}
