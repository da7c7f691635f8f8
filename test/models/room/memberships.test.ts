import { test } from 'node:test'
import assert from 'node:assert/strict'
import { roomMemberships } from '../../../server/models/room/memberships.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase, involvementOf, memberIds } from './fixture-database.ts'

const { david, jason, jz, kevin, bender } = users

test('granting membership puts the person in the room with the default involvement', (t) => {
  const db = fixtureDatabase(t)
  const granted = roomMemberships(db).grantTo(rooms.watercooler.id, [jz.id])
  assert.deepEqual(granted, [jz.id])
  assert.deepEqual(memberIds(db, rooms.watercooler.id), [david.id, jason.id, jz.id, kevin.id])
  assert.equal(involvementOf(db, rooms.watercooler.id, jz.id), 'mentions')
})

test('granting a direct room uses the involvement "everything"', (t) => {
  const db = fixtureDatabase(t)
  roomMemberships(db).grantTo(rooms.david_and_jason.id, [jz.id])
  assert.equal(involvementOf(db, rooms.david_and_jason.id, jz.id), 'everything')
})

test('granting someone who is already a member changes nothing and reports nobody', (t) => {
  const db = fixtureDatabase(t)
  db.prepare("UPDATE memberships SET involvement = 'invisible' WHERE room_id = ? AND user_id = ?").run(rooms.watercooler.id, david.id)
  assert.deepEqual(roomMemberships(db).grantTo(rooms.watercooler.id, [david.id, david.id]), [])
  assert.equal(involvementOf(db, rooms.watercooler.id, david.id), 'invisible')
})

test('only active people are granted, and unknown ids are ignored', (t) => {
  const db = fixtureDatabase(t)
  db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(jz.id)
  assert.deepEqual(roomMemberships(db).grantTo(rooms.watercooler.id, [jz.id, 999]), [])
  assert.deepEqual(memberIds(db, rooms.watercooler.id), [david.id, jason.id, kevin.id])
})

test('granting to a room that does not exist grants nothing', (t) => {
  const db = fixtureDatabase(t)
  assert.deepEqual(roomMemberships(db).grantTo(999, [jz.id]), [])
  assert.equal(db.prepare('SELECT COUNT(*) FROM memberships WHERE room_id = 999').pluck().get(), 0)
})

test('revoking membership removes the person and returns whose access was removed', (t) => {
  const db = fixtureDatabase(t)
  const revoked = roomMemberships(db).revokeFrom(rooms.watercooler.id, [david.id, jz.id])
  assert.deepEqual(revoked, [david.id], 'jz was never a member, so only david lost access')
  assert.deepEqual(memberIds(db, rooms.watercooler.id), [jason.id, kevin.id])
})

test('revoking from nobody removes nobody', (t) => {
  const db = fixtureDatabase(t)
  assert.deepEqual(roomMemberships(db).revokeFrom(rooms.watercooler.id, []), [])
  assert.deepEqual(memberIds(db, rooms.watercooler.id), [david.id, jason.id, kevin.id])
})

test('revising memberships grants and revokes together', (t) => {
  const db = fixtureDatabase(t)
  const revision = roomMemberships(db).revise(rooms.watercooler.id, { granted: [jz.id], revoked: [david.id] })
  assert.deepEqual(revision, { granted: [jz.id], revoked: [david.id] })
  assert.deepEqual(memberIds(db, rooms.watercooler.id), [jason.id, jz.id, kevin.id])
})

test('the people who could be granted are the active users in name order, marked when already in the room', (t) => {
  const db = fixtureDatabase(t)
  db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(jason.id)
  const candidates = roomMemberships(db).candidates(rooms.designers.id)
  assert.deepEqual(
    candidates.map((c) => [c.name, c.selected]),
    [[bender.name, 0], [david.name, 1], [jz.name, 1], [kevin.name, 0]],
  )
  assert.ok(roomMemberships(db).candidates(null).every((c) => c.selected === 0))
})
