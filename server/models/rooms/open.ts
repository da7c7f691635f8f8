import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'
import { memberships } from '../membership.ts'
import { ROOM_TYPES, rooms, type RoomType } from '../room.ts'
import { roomMemberships } from '../room/memberships.ts'
import { DirectRoomKeepsItsType } from './direct.ts'

// Rooms open to everyone on the account: every active person is a member, and people who join
// later are granted membership too.
export function openRooms(db: Connection) {
  const allRooms = rooms(db)
  const everyone = memberships(db)
  const grants = roomMemberships(db)
  const typeOf = db.prepare<[number], RoomType>('SELECT type FROM rooms WHERE id = ?').pluck()
  const becomeOpen = db.prepare(`UPDATE rooms SET type = 'Rooms::Open', name = ?, updated_at = ? WHERE id = ? AND type != 'Rooms::Direct'`)

  const create = db.transaction((name: string, creatorId: number): number => {
    const id = allRooms.create(name, ROOM_TYPES.open, creatorId)
    grants.grantTo(id, [creatorId])
    everyone.grantToActiveUsers(id)
    return id
  })

  // Renames the room and, if it was closed, opens it to everyone.
  const update = db.transaction((roomId: number, name: string): { previousType: RoomType } | null => {
    const previousType = typeOf.get(roomId)
    if (previousType === undefined) return null
    if (becomeOpen.run(name, dbTime(), roomId).changes === 0) throw new DirectRoomKeepsItsType(roomId)
    if (previousType !== ROOM_TYPES.open) everyone.grantToActiveUsers(roomId)
    return { previousType }
  })

  return {
    create: (name: string, creatorId: number): number => create(name, creatorId),
    update: (roomId: number, name: string): { previousType: RoomType } | null => update(roomId, name),
  }
}
