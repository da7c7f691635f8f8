import { test } from 'node:test'
import assert from 'node:assert/strict'
import { openRooms } from '../../../server/models/rooms/open.ts'
import { DirectRoomKeepsItsType } from '../../../server/models/rooms/direct.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase, involvementOf, memberIds } from '../room/fixture-database.ts'

const everyone = Object.values(users).map((user) => user.id)
const roomRow = (db: ReturnType<typeof fixtureDatabase>, id: number) =>
  db.prepare('SELECT name, type, creator_id FROM rooms WHERE id = ?').get(id) as { name: string; type: string; creator_id: number } | undefined

test('an open room grants access to every active user on creation, bots included', (t) => {
  const db = fixtureDatabase(t)
  db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(users.kevin.id)
  const id = openRooms(db).create('My open room with everyone!', users.jz.id)
  assert.deepEqual(roomRow(db, id), { name: 'My open room with everyone!', type: 'Rooms::Open', creator_id: users.jz.id })
  assert.deepEqual(memberIds(db, id), everyone.filter((userId) => userId !== users.kevin.id))
  assert.equal(involvementOf(db, id, users.bender.id), 'mentions')
})

test('a closed room that becomes open grants access to every active user and keeps existing bells', (t) => {
  const db = fixtureDatabase(t)
  db.prepare("UPDATE memberships SET involvement = 'nothing' WHERE room_id = ? AND user_id = ?").run(rooms.watercooler.id, users.kevin.id)
  const result = openRooms(db).update(rooms.watercooler.id, 'Open Cooler')
  assert.deepEqual(result, { previousType: 'Rooms::Closed' })
  assert.deepEqual(roomRow(db, rooms.watercooler.id), { name: 'Open Cooler', type: 'Rooms::Open', creator_id: users.jason.id })
  assert.deepEqual(memberIds(db, rooms.watercooler.id), everyone)
  assert.equal(involvementOf(db, rooms.watercooler.id, users.kevin.id), 'nothing')
})

test('renaming a room that is already open grants nobody new', (t) => {
  const db = fixtureDatabase(t)
  db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(rooms.pets.id, users.kevin.id)
  assert.deepEqual(openRooms(db).update(rooms.pets.id, 'Pets'), { previousType: 'Rooms::Open' })
  assert.equal(roomRow(db, rooms.pets.id)?.name, 'Pets')
  assert.ok(!memberIds(db, rooms.pets.id).includes(users.kevin.id))
})

test('a direct room can never become open', (t) => {
  const db = fixtureDatabase(t)
  assert.throws(() => openRooms(db).update(rooms.bender_and_kevin.id, 'Watercooler'), DirectRoomKeepsItsType)
  assert.deepEqual(roomRow(db, rooms.bender_and_kevin.id), { name: null, type: 'Rooms::Direct', creator_id: users.kevin.id })
  assert.deepEqual(memberIds(db, rooms.bender_and_kevin.id), [users.kevin.id, users.bender.id])
})

test('updating a room that does not exist answers null', (t) => {
  const db = fixtureDatabase(t)
  assert.equal(openRooms(db).update(999, 'Nowhere'), null)
})
