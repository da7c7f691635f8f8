import type { Connection } from '../database.ts'
import type { RoomRow } from '../room.ts'
import type { Person } from '../message/display.ts'

export const DIRECT_PLACEHOLDERS = 20

export interface SidebarRoom extends RoomRow {
  unread: boolean
}

export interface SidebarDirect {
  room: RoomRow
  unread: boolean
  members: Person[]
  label: string
}

export interface Sidebar {
  shared: SidebarRoom[]
  directs: SidebarDirect[]
  placeholders: (Person & { label: string })[]
}

// A person's sidebar: shared rooms by name, direct rooms newest first, and people they have
// no direct room with yet (oldest accounts first), all from three queries. The person's id is
// bound as `+?` (the note on stable plans in database.ts).
//
// The placeholders are the oldest active people outside the person's direct rooms (and not the
// person), DIRECT_PLACEHOLDERS less the people so excluded. Of the DIRECT_PLACEHOLDERS oldest
// active people at most that many are excluded, so those are all the candidates there are: the
// users index of migrations/006 gives them by reading twenty rows, and the direct rooms' members,
// read for the tiles anyway, say who is left out.
export function sidebars(db: Connection) {
  const memberships = db.prepare<[number], SidebarRoom & { unread_at: string | null }>(
    `SELECT rooms.id, rooms.name, rooms.type, rooms.creator_id, rooms.created_at, rooms.updated_at, memberships.unread_at
     FROM memberships JOIN rooms ON rooms.id = memberships.room_id
     WHERE memberships.user_id = +? AND (memberships.involvement IS NULL OR memberships.involvement != 'invisible')`,
  )
  const directMembers = db.prepare<[number], Person & { room_id: number }>(
    `SELECT memberships.room_id, users.id, users.name, users.bio, users.role, users.updated_at
     FROM memberships JOIN users ON users.id = memberships.user_id
     WHERE memberships.room_id IN (SELECT room_id FROM memberships JOIN rooms ON rooms.id = memberships.room_id
                                   WHERE memberships.user_id = +? AND rooms.type = 'Rooms::Direct')
     ORDER BY memberships.room_id, memberships.id`,
  )
  const oldestActive = db.prepare<[number], Person>(
    'SELECT id, name, bio, role, updated_at FROM users WHERE status = 0 ORDER BY created_at, id LIMIT ?',
  )

  const roomMembers = db.prepare<[number], Person & { unread_at: string | null }>(
    `SELECT users.id, users.name, users.bio, users.role, users.updated_at, memberships.unread_at
     FROM memberships JOIN users ON users.id = memberships.user_id WHERE memberships.room_id = +? ORDER BY memberships.id`,
  )

  return {
    // The tile of one direct room for each of its members (broadcast when it is created).
    directTilesOf(room: RoomRow): { userId: number; direct: SidebarDirect }[] {
      const rows = roomMembers.all(room.id)
      const people = rows.map(({ unread_at: _, ...person }) => person)
      return rows.map((row, i) => ({ userId: row.id, direct: directTile(room, row.unread_at !== null, people, people[i]!) }))
    },

    forUser(user: Person): Sidebar {
      const rows = memberships.all(user.id).map(({ unread_at, ...room }) => ({ ...room, unread: unread_at !== null }))
      const shared = rows.filter((r) => r.type !== 'Rooms::Direct').sort((a, b) => (a.name ?? '').toLowerCase().localeCompare((b.name ?? '').toLowerCase()))
      const membersByRoom = new Map<number, Person[]>()
      const excluded = new Set<number>([user.id])
      for (const { room_id, ...person } of directMembers.all(user.id)) {
        const members = membersByRoom.get(room_id)
        if (members) members.push(person)
        else membersByRoom.set(room_id, [person])
        excluded.add(person.id)
      }
      const directs = rows
        .filter((r) => r.type === 'Rooms::Direct')
        .sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : b.id - a.id))
        .map(({ unread, ...room }) => directTile(room, unread, membersByRoom.get(room.id) ?? [], user))
      const limit = Math.max(DIRECT_PLACEHOLDERS - excluded.size, 0)
      const people = limit > 0 ? oldestActive.all(DIRECT_PLACEHOLDERS).filter((person) => !excluded.has(person.id)).slice(0, limit) : []
      const placeholders = people.map((person) => ({ ...person, label: directLabel([person]) }))
      disambiguateNamesakes([
        ...directs.filter((tile) => tile.members.length === 1).map((tile) => ({ tile, person: tile.members[0]! })),
        ...placeholders.map((tile) => ({ tile, person: tile })),
      ])
      return { shared, directs, placeholders }
    },
  }
}

// A direct room as one member sees it: named for the others, or for themselves when alone.
export function directTile(room: RoomRow, unread: boolean, roomMembers: Person[], viewer: Person): SidebarDirect {
  const others = roomMembers.filter((p) => p.id !== viewer.id)
  const members = others.length > 0 ? others : [viewer]
  return { room, unread, members, label: directLabel(members) }
}

// Two people in the strip with one first name (Jason Fried, Jason Zimdars) are told apart by
// their surnames' initials: "Jason F." and "Jason Z.". Only the strip's own people are compared,
// so no query reads every account; a tile broadcast when a Ping starts keeps the first name
// until the sidebar is next drawn.
function disambiguateNamesakes(tiles: { tile: { label: string }; person: Pick<Person, 'name'> }[]): void {
  const count = new Map<string, number>()
  for (const { tile } of tiles) count.set(tile.label, (count.get(tile.label) ?? 0) + 1)
  for (const { tile, person } of tiles) {
    if ((count.get(tile.label) ?? 0) < 2) continue
    const surname = person.name.trim().split(/\s+/).slice(1).pop()
    if (surname) tile.label = `${tile.label} ${surname[0]!.toUpperCase()}.`
  }
}

// One person: their first name. Several: each one's initials, joined as a sentence with "+".
export function directLabel(members: Pick<Person, 'name'>[]): string {
  if (members.length === 1) return members[0]!.name.split(' ')[0] ?? ''
  const initials = members.map((m) => m.name.split(' ').slice(0, 3).map((word) => (word[0] ?? '').toUpperCase()).join(''))
  if (initials.length === 2) return initials.join('+')
  return `${initials.slice(0, -1).join(', ')}, and ${initials[initials.length - 1]}`
}
