import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'
import { ROOM_TYPES, rooms, type RoomType } from '../room.ts'
import { roomMemberships } from '../room/memberships.ts'
import { DirectRoomKeepsItsType } from './direct.ts'

export interface ClosedRoomUpdate {
  previousType: RoomType
  granted: number[]
  revoked: number[]
}

// Rooms where only the people explicitly granted membership can take part.
export function closedRooms(db: Connection) {
  const allRooms = rooms(db)
  const grants = roomMemberships(db)
  const typeOf = db.prepare<[number], RoomType>('SELECT type FROM rooms WHERE id = ?').pluck()
  const becomeClosed = db.prepare(`UPDATE rooms SET type = 'Rooms::Closed', name = ?, updated_at = ? WHERE id = ? AND type != 'Rooms::Direct'`)

  const create = db.transaction((name: string, creatorId: number, userIds: readonly number[]): number => {
    const id = allRooms.create(name, ROOM_TYPES.closed, creatorId)
    grants.grantTo(id, userIds)
    return id
  })

  // Renames the room, closes it if it was open, and leaves exactly the given people in it.
  const update = db.transaction((roomId: number, name: string, userIds: readonly number[]): ClosedRoomUpdate | null => {
    const previousType = typeOf.get(roomId)
    if (previousType === undefined) return null
    if (becomeClosed.run(name, dbTime(), roomId).changes === 0) throw new DirectRoomKeepsItsType(roomId)
    const revision = grants.revise(roomId, { granted: [...userIds], revoked: grants.userIdsExcept(roomId, userIds) })
    return { previousType, ...revision }
  })

  return {
    create: (name: string, creatorId: number, userIds: readonly number[]): number => create(name, creatorId, userIds),
    update: (roomId: number, name: string, userIds: readonly number[]): ClosedRoomUpdate | null => update(roomId, name, userIds),
  }
}
