import type { Connection } from '../database.ts'
import { ROOM_TYPES, rooms, type RoomRow } from '../room.ts'
import { roomMemberships } from '../room/memberships.ts'

// Direct rooms ("Pings") are private conversations, one room per exact set of people.
// Their participants agreed to that audience, so a direct room never becomes open or closed.
export class DirectRoomKeepsItsType extends Error {
  constructor(roomId: number) {
    super(`room ${roomId} is a direct room and keeps its type`)
  }
}

export function isDirect(room: Pick<RoomRow, 'type'>): boolean {
  return room.type === ROOM_TYPES.direct
}

export function directRooms(db: Connection) {
  const allRooms = rooms(db)
  const memberships = roomMemberships(db)
  // One query: the direct room, among the anchor person's, whose members are exactly the
  // active people asked for (as many members as wanted, and every member wanted).
  const findFor = db.prepare<[{ people: string; anchor: number }], number>(
    `WITH wanted (id) AS (SELECT id FROM users WHERE status = 0 AND id IN (SELECT value FROM json_each(@people)))
     SELECT memberships.room_id FROM memberships JOIN rooms ON rooms.id = memberships.room_id
     WHERE rooms.type = 'Rooms::Direct' AND memberships.room_id IN (SELECT room_id FROM memberships WHERE user_id = @anchor)
     GROUP BY memberships.room_id
     HAVING COUNT(*) = (SELECT COUNT(*) FROM wanted) AND SUM(memberships.user_id IN (SELECT id FROM wanted)) = COUNT(*)
     ORDER BY memberships.room_id LIMIT 1`,
  ).pluck()

  const findOrCreateFor = db.transaction((userIds: readonly number[], creatorId: number) => {
    const people = [...new Set([...userIds, creatorId])]
    const found = findFor.get({ people: JSON.stringify(people), anchor: creatorId })
    if (found !== undefined) return { id: found, created: false }
    const id = allRooms.create(null, ROOM_TYPES.direct, creatorId)
    memberships.grantTo(id, people)
    return { id, created: true }
  })

  return {
    // The creator is always one of the people in the room.
    findOrCreateFor: (userIds: readonly number[], creatorId: number): { id: number; created: boolean } => findOrCreateFor(userIds, creatorId),
  }
}
