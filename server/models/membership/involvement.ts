import type { Connection } from '../database.ts'
import { INVOLVEMENTS, type Involvement } from '../membership.ts'
import { ROOM_TYPES, type RoomRow } from '../room.ts'
import { defaultInvolvement } from '../room/memberships.ts'
import { dbTime } from '../../lib/time.ts'

// The bell: how much a person hears from a room, and whether it shows in their sidebar.
const SHARED_ORDER: readonly Involvement[] = ['mentions', 'everything', 'nothing', 'invisible']
const DIRECT_ORDER: readonly Involvement[] = ['everything', 'nothing']

export function isInvolvement(value: unknown): value is Involvement {
  return typeof value === 'string' && (INVOLVEMENTS as readonly string[]).includes(value)
}

// What the bell switches to next; a level outside the room's cycle starts it over.
export function nextInvolvement(roomType: string, current: Involvement): Involvement {
  const order = roomType === ROOM_TYPES.direct ? DIRECT_ORDER : SHARED_ORDER
  return order[order.indexOf(current) + 1] ?? order[0]!
}

export interface Involved {
  room: RoomRow
  involvement: Involvement
}

export function involvements(db: Connection) {
  const find = db.prepare<[number, number], RoomRow & { involvement: Involvement | null }>(
    `SELECT rooms.id, rooms.name, rooms.type, rooms.creator_id, rooms.created_at, rooms.updated_at, memberships.involvement
     FROM memberships JOIN rooms ON rooms.id = memberships.room_id WHERE memberships.room_id = ? AND memberships.user_id = ?`,
  )
  const update = db.prepare('UPDATE memberships SET involvement = ?, updated_at = ? WHERE room_id = ? AND user_id = ?')

  function involvementIn(roomId: number, userId: number): Involved | undefined {
    const row = find.get(roomId, userId)
    if (!row) return undefined
    const { involvement, ...room } = row
    return { room, involvement: involvement ?? defaultInvolvement(room.type) }
  }

  return {
    involvementIn,

    // Returns the level it had before, so callers can tell when the room became (in)visible.
    update(roomId: number, userId: number, involvement: Involvement): Involvement | undefined {
      const previous = involvementIn(roomId, userId)?.involvement
      if (previous !== undefined) update.run(involvement, dbTime(), roomId, userId)
      return previous
    },
  }
}
