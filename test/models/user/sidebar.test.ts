import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Connection } from '../../../server/models/database.ts'
import { DIRECT_PLACEHOLDERS, sidebars } from '../../../server/models/user/sidebar.ts'
import { users } from '../../fixtures.ts'
import { fixtureDatabase } from '../room/fixture-database.ts'

// Thirty more people, created out of id order, every fourth one deactivated; Kevin gets a direct
// room with the oldest three of them (one deactivated) besides his rooms with David and Bender.
function crowd(db: Connection): number[] {
  const insert = db.prepare(`INSERT INTO users (id, name, role, status, created_at, updated_at) VALUES (?, ?, 0, ?, ?, ?)`)
  const ids: number[] = []
  for (let i = 0; i < 30; i++) {
    const id = 100 + ((i * 7) % 30)
    const created = `2026-02-${String(1 + i).padStart(2, '0')} 09:00:00.000000`
    insert.run(id, `Person ${id}`, i % 4 === 1 ? 1 : 0, created, created)
    ids.push(id)
  }
  db.prepare("INSERT INTO rooms (id, name, type, creator_id, created_at, updated_at) VALUES (50, NULL, 'Rooms::Direct', ?, '2026-03-02', '2026-03-02')").run(users.kevin.id)
  const member = db.prepare("INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at) VALUES (50, ?, 'everything', 0, '2026-03-02', '2026-03-02')")
  for (const id of [users.kevin.id, ...ids.slice(0, 3)]) member.run(id)
  return ids
}

// The placeholders as the single query before migrations/006 gave them.
function expectedPlaceholders(db: Connection, userId: number): number[] {
  const excluded = (db.prepare(
    `SELECT count(DISTINCT others.user_id) FROM memberships mine JOIN rooms ON rooms.id = mine.room_id AND rooms.type = 'Rooms::Direct'
     JOIN memberships others ON others.room_id = mine.room_id WHERE mine.user_id = ? AND others.user_id != ?`,
  ).pluck().get(userId, userId) as number) + 1
  return db.prepare(
    `SELECT id FROM users WHERE status = 0 AND id != ? AND id NOT IN (
       SELECT others.user_id FROM memberships mine JOIN rooms ON rooms.id = mine.room_id AND rooms.type = 'Rooms::Direct'
       JOIN memberships others ON others.room_id = mine.room_id WHERE mine.user_id = ?)
     ORDER BY created_at, id LIMIT ?`,
  ).pluck().all(userId, userId, Math.max(DIRECT_PLACEHOLDERS - excluded, 0)) as number[]
}

function person(db: Connection, id: number) {
  return db.prepare('SELECT id, name, bio, role, updated_at FROM users WHERE id = ?').get(id) as { id: number; name: string; bio: string | null; role: number; updated_at: string }
}

test('placeholders are the oldest active people outside the direct rooms, fewer by each person left out', (t) => {
  const db = fixtureDatabase(t)
  const ids = crowd(db)
  const kevin = sidebars(db).forUser(person(db, users.kevin.id))
  const offered = kevin.placeholders.map((p) => p.id)
  // Left out: Kevin, David, Bender and the three in room 50 (one of them deactivated).
  assert.equal(offered.length, DIRECT_PLACEHOLDERS - 6)
  assert.deepEqual(offered, expectedPlaceholders(db, users.kevin.id))
  for (const id of [users.kevin.id, users.david.id, users.bender.id, ...ids.slice(0, 3)]) assert.ok(!offered.includes(id), `${id} is left out`)
  assert.equal(offered[0], ids[3], 'the oldest person Kevin has no direct room with comes first')
})

test('everyone’s placeholders match the people query, with and without direct rooms', (t) => {
  const db = fixtureDatabase(t)
  crowd(db)
  const model = sidebars(db)
  const everyone = db.prepare('SELECT id FROM users ORDER BY id').pluck().all() as number[]
  for (const id of everyone) assert.deepEqual(model.forUser(person(db, id)).placeholders.map((p) => p.id), expectedPlaceholders(db, id), `user ${id}`)
})

test('someone in direct rooms with enough people is offered none', (t) => {
  const db = fixtureDatabase(t)
  const ids = crowd(db)
  const member = db.prepare("INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at) VALUES (50, ?, 'everything', 0, '2026-03-02', '2026-03-02')")
  for (const id of ids.slice(3, 20)) member.run(id)
  assert.deepEqual(sidebars(db).forUser(person(db, users.kevin.id)).placeholders, [])
})

test('two people in the Ping strip with one first name get their surname’s initial, and nobody else does', (t) => {
  const db = fixtureDatabase(t)
  const now = '2026-02-01 09:00:00.000000'
  const insert = db.prepare('INSERT INTO users (id, name, role, status, created_at, updated_at) VALUES (?, ?, 0, 0, ?, ?)')
  insert.run(200, 'Ada Lovelace', now, now)
  insert.run(201, 'Ada Yonath', now, now)
  insert.run(202, 'Grace Hopper', now, now)
  const strip = sidebars(db).forUser(person(db, users.kevin.id))
  const labels = new Map(strip.placeholders.map((p) => [p.id, p.label]))
  assert.equal(labels.get(200), 'Ada L.')
  assert.equal(labels.get(201), 'Ada Y.')
  assert.equal(labels.get(202), 'Grace')
  for (const direct of strip.directs.filter((tile) => tile.members.length === 1)) assert.doesNotMatch(direct.label, /\.$/, `${direct.label} is a first name alone`)
})
