import { test } from 'node:test'
import assert from 'node:assert/strict'
import { closedRooms } from '../../../server/models/rooms/closed.ts'
import { DirectRoomKeepsItsType } from '../../../server/models/rooms/direct.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase, involvementOf, memberIds } from '../room/fixture-database.ts'

const { david, jason, jz, kevin, bender } = users
const typeOf = (db: ReturnType<typeof fixtureDatabase>, id: number) => db.prepare('SELECT type FROM rooms WHERE id = ?').pluck().get(id)

test('a closed room is created with immediate membership for the chosen people, involved in mentions', (t) => {
  const db = fixtureDatabase(t)
  const id = closedRooms(db).create('Hello!', david.id, [kevin.id, david.id])
  assert.equal(typeOf(db, id), 'Rooms::Closed')
  assert.deepEqual(memberIds(db, id), [david.id, kevin.id])
  assert.equal(involvementOf(db, id, kevin.id), 'mentions')
  assert.equal(involvementOf(db, id, david.id), 'mentions')
})

test('updating a closed room leaves exactly the given people in it and reports who was revoked', (t) => {
  const db = fixtureDatabase(t)
  const result = closedRooms(db).update(rooms.designers.id, 'New Name', [david.id, jz.id, kevin.id])
  assert.deepEqual(result, { previousType: 'Rooms::Closed', granted: [kevin.id], revoked: [jason.id] })
  assert.deepEqual(memberIds(db, rooms.designers.id), [david.id, jz.id, kevin.id])
  assert.equal(db.prepare('SELECT name FROM rooms WHERE id = ?').pluck().get(rooms.designers.id), 'New Name')
})

test('remaining members keep their bell when a closed room is revised', (t) => {
  const db = fixtureDatabase(t)
  db.prepare("UPDATE memberships SET involvement = 'everything' WHERE room_id = ? AND user_id = ?").run(rooms.designers.id, jz.id)
  closedRooms(db).update(rooms.designers.id, 'Designers', [jz.id])
  assert.equal(involvementOf(db, rooms.designers.id, jz.id), 'everything')
})

test('an open room that becomes closed keeps only the chosen people', (t) => {
  const db = fixtureDatabase(t)
  const result = closedRooms(db).update(rooms.pets.id, "Doesn't matter", [david.id, jason.id])
  assert.deepEqual(result?.revoked, [jz.id, kevin.id, bender.id])
  assert.equal(result?.previousType, 'Rooms::Open')
  assert.equal(typeOf(db, rooms.pets.id), 'Rooms::Closed')
  assert.deepEqual(memberIds(db, rooms.pets.id), [david.id, jason.id])
})

test('a direct room can never become closed, nor have its people revised', (t) => {
  const db = fixtureDatabase(t)
  assert.throws(() => closedRooms(db).update(rooms.bender_and_kevin.id, 'Watercooler', [kevin.id, jz.id]), DirectRoomKeepsItsType)
  assert.equal(typeOf(db, rooms.bender_and_kevin.id), 'Rooms::Direct')
  assert.deepEqual(memberIds(db, rooms.bender_and_kevin.id), [kevin.id, bender.id])
})
