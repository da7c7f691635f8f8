import bcrypt from 'bcrypt'
import type { Connection } from '../server/models/database.ts'

// The upstream cast: David and Jason administer; JZ and Kevin are members; Bender is a bot.
export const PASSWORD = 'secret123456'
const DIGEST = bcrypt.hashSync(PASSWORD, 4)
const T = '2026-03-01 12:00:00.000000'

export const users = {
  david: { id: 1, name: 'David Heinemeier Hansson', email: 'david@37signals.com', role: 1 },
  jason: { id: 2, name: 'Jason Fried', email: 'jason@37signals.com', role: 1 },
  jz: { id: 3, name: 'Jason Zimdars', email: 'jz@37signals.com', role: 0 },
  kevin: { id: 4, name: 'Kevin McConnell', email: 'kevin@37signals.com', role: 0 },
  bender: { id: 5, name: 'Bender Bot', email: null, role: 2 },
} as const

export const rooms = {
  pets: { id: 1, name: 'All Pets', type: 'Rooms::Open', creator: users.david, members: ['david', 'jason', 'jz', 'kevin', 'bender'] },
  hq: { id: 2, name: 'HQ', type: 'Rooms::Open', creator: users.david, members: ['david', 'jason', 'jz', 'kevin', 'bender'] },
  watercooler: { id: 3, name: 'Water Cooler', type: 'Rooms::Closed', creator: users.jason, members: ['david', 'jason', 'kevin'] },
  designers: { id: 4, name: 'Designers', type: 'Rooms::Closed', creator: users.jason, members: ['david', 'jason', 'jz'] },
  david_and_jason: { id: 5, name: null, type: 'Rooms::Direct', creator: users.david, members: ['david', 'jason'] },
  david_and_kevin: { id: 6, name: null, type: 'Rooms::Direct', creator: users.david, members: ['david', 'kevin'] },
  bender_and_kevin: { id: 7, name: null, type: 'Rooms::Direct', creator: users.kevin, members: ['kevin', 'bender'] },
} as const

export type UserName = keyof typeof users
export type RoomName = keyof typeof rooms

export function loadFixtures(db: Connection): void {
  db.transaction(() => {
    db.prepare(`INSERT INTO accounts (id, name, join_code, settings, singleton_guard, created_at, updated_at)
      VALUES (1, '37signals', 'Ab12-Cd34-Ef56', '{"restrict_room_creation_to_administrators":false}', 0, ?, ?)`).run(T, T)
    const insertUser = db.prepare(`INSERT INTO users (id, name, email_address, password_digest, role, status, bot_token, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)`)
    for (const user of Object.values(users)) {
      insertUser.run(user.id, user.name, user.email, user.role === 2 ? null : DIGEST, user.role, user.role === 2 ? 'BenderToken1' : null, T, T)
    }
    const insertRoom = db.prepare('INSERT INTO rooms (id, name, type, creator_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
    const insertMembership = db.prepare(`INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at)
      VALUES (?, ?, ?, 0, ?, ?)`)
    Object.values(rooms).forEach((room, index) => {
      const created = `2026-03-01 12:00:0${index}.000000`
      insertRoom.run(room.id, room.name, room.type, room.creator.id, created, created)
      for (const member of room.members) insertMembership.run(room.id, users[member].id, room.type === 'Rooms::Direct' ? 'everything' : 'mentions', T, T)
    })
  })()
}
