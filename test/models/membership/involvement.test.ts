import { test } from 'node:test'
import assert from 'node:assert/strict'
import { involvements, isInvolvement, nextInvolvement } from '../../../server/models/membership/involvement.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase, involvementOf } from '../room/fixture-database.ts'

test('the bell of a shared room cycles mentions, everything, nothing, invisible and back', () => {
  const cycle = ['mentions', 'everything', 'nothing', 'invisible', 'mentions'] as const
  for (let n = 0; n < 4; n++) assert.equal(nextInvolvement('Rooms::Closed', cycle[n]!), cycle[n + 1])
  assert.equal(nextInvolvement('Rooms::Open', 'invisible'), 'mentions')
})

test('the bell of a direct room toggles between everything and nothing', () => {
  assert.equal(nextInvolvement('Rooms::Direct', 'everything'), 'nothing')
  assert.equal(nextInvolvement('Rooms::Direct', 'nothing'), 'everything')
  assert.equal(nextInvolvement('Rooms::Direct', 'mentions'), 'everything', 'a level outside the cycle starts it over')
})

test('only the four levels are involvements', () => {
  for (const level of ['invisible', 'nothing', 'mentions', 'everything']) assert.ok(isInvolvement(level), level)
  for (const other of ['', 'Everything', 'all', null, undefined, ['mentions']]) assert.ok(!isInvolvement(other), String(other))
})

test('updating changes only that person’s bell and returns the level it had', (t) => {
  const db = fixtureDatabase(t)
  const bells = involvements(db)
  assert.equal(bells.update(rooms.watercooler.id, users.david.id, 'invisible'), 'mentions')
  assert.equal(involvementOf(db, rooms.watercooler.id, users.david.id), 'invisible')
  assert.equal(involvementOf(db, rooms.watercooler.id, users.jason.id), 'mentions')
  assert.deepEqual(bells.involvementIn(rooms.watercooler.id, users.david.id)?.involvement, 'invisible')
})

test('someone who is not in the room has no bell there', (t) => {
  const db = fixtureDatabase(t)
  const bells = involvements(db)
  assert.equal(bells.involvementIn(rooms.watercooler.id, users.jz.id), undefined)
  assert.equal(bells.update(rooms.watercooler.id, users.jz.id, 'everything'), undefined)
  assert.equal(involvementOf(db, rooms.watercooler.id, users.jz.id), undefined)
})

test('a membership without a level reads as the room’s default', (t) => {
  const db = fixtureDatabase(t)
  db.prepare('UPDATE memberships SET involvement = NULL WHERE room_id IN (?, ?) AND user_id = ?').run(rooms.pets.id, rooms.david_and_jason.id, users.david.id)
  assert.equal(involvements(db).involvementIn(rooms.pets.id, users.david.id)?.involvement, 'mentions')
  assert.equal(involvements(db).involvementIn(rooms.david_and_jason.id, users.david.id)?.involvement, 'everything')
})
