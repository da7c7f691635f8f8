import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rooms as roomsModel } from '../../../server/models/room.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase } from './fixture-database.ts'
import type { Connection } from '../../../server/models/database.ts'

const pets = rooms.pets.id

function addMessages(db: Connection, roomId: number, count: number): void {
  const insert = db.prepare("INSERT INTO messages (client_message_id, created_at, creator_id, room_id, updated_at) VALUES (?, '2026-01-01 00:00:00', ?, ?, '2026-01-01 00:00:00')")
  for (let i = 0; i < count; i++) insert.run(`count-${roomId}-${i}-${Math.random()}`, users.jason.id, roomId)
}

const countIn = (db: Connection, roomId: number) => db.prepare('SELECT count(*) FROM messages WHERE room_id = ?').pluck().get(roomId) as number

test('a room has fewer messages than a limit until it has that many', (t) => {
  const db = fixtureDatabase(t)
  const model = roomsModel(db)
  const room = () => model.find(pets)!
  const before = countIn(db, pets)
  assert.equal(model.fewerMessagesThan(room(), before + 1), true)
  assert.equal(model.fewerMessagesThan(room(), before), false, 'exactly the limit is not fewer')
  addMessages(db, pets, 1)
  assert.equal(model.fewerMessagesThan(room(), before + 1), false)
  assert.equal(model.fewerMessagesThan(room(), 0), false, 'no room has fewer than no messages')
})

test('the answer is kept while the room’s content_version stays, and read again when any writer moves it', (t) => {
  const db = fixtureDatabase(t)
  const model = roomsModel(db)
  addMessages(db, pets, 41 - countIn(db, pets))
  const full = model.find(pets)!
  assert.equal(model.fewerMessagesThan(full, 41), false)
  // As a sqlite3 shell would: the trigger moves the room's content_version.
  db.prepare('DELETE FROM messages WHERE id = (SELECT max(id) FROM messages WHERE room_id = ?)').run(pets)
  assert.equal(model.fewerMessagesThan(full, 41), false, 'asked under the version it was read at, the kept answer, not a read')
  const now = model.find(pets)!
  assert.notEqual(now.content_version, full.content_version)
  assert.equal(model.fewerMessagesThan(now, 41), true, 'read again under the new version')
  addMessages(db, pets, 1)
  assert.equal(model.fewerMessagesThan(model.find(pets)!, 41), false, 'and again after a message arrives')
  assert.equal(model.fewerMessagesThan(model.find(pets)!, 42), true, 'another limit is read, not taken from the kept answer')
})
