import { test } from 'node:test'
import assert from 'node:assert/strict'
import { memberships } from '../../server/models/membership.ts'
import { rooms, users } from '../fixtures.ts'
import { fixtureDatabase } from './room/fixture-database.ts'

test('a room’s member ids come in id order, and a room without members has none', (t) => {
  const db = fixtureDatabase(t)
  const model = memberships(db)
  assert.deepEqual(model.userIdsIn(rooms.watercooler.id), [users.david.id, users.jason.id, users.kevin.id])
  db.prepare('INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at) VALUES (?, 900, NULL, 0, ?, ?)').run(rooms.watercooler.id, '2026-03-02', '2026-03-02')
  db.prepare('INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at) VALUES (?, 7, NULL, 0, ?, ?)').run(rooms.watercooler.id, '2026-03-02', '2026-03-02')
  assert.deepEqual(model.userIdsIn(rooms.watercooler.id), [users.david.id, users.jason.id, users.kevin.id, 7, 900])
  assert.deepEqual(model.userIdsIn(999), [])
})

test('the unread rooms are the memberships marked unread', (t) => {
  const db = fixtureDatabase(t)
  const model = memberships(db)
  assert.deepEqual([...model.unreadRoomIds(users.kevin.id)], [])
  db.prepare("UPDATE memberships SET unread_at = '2026-03-02 10:00:00.000000' WHERE user_id = ? AND room_id IN (?, ?)").run(users.kevin.id, rooms.hq.id, rooms.bender_and_kevin.id)
  assert.deepEqual([...model.unreadRoomIds(users.kevin.id)].sort(), [rooms.hq.id, rooms.bender_and_kevin.id].sort())
  assert.deepEqual([...model.unreadRoomIds(users.jz.id)], [])
})
