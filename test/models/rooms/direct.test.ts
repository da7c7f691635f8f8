import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Connection } from '../../../server/models/database.ts'
import { directRooms } from '../../../server/models/rooms/direct.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase, involvementOf, memberIds } from '../room/fixture-database.ts'

const { david, jason, jz, kevin, bender } = users
const roomCount = (db: Connection) => db.prepare('SELECT COUNT(*) FROM rooms').pluck().get() as number

// Wraps the connection so every statement execution (get, all, run, iterate) is counted.
function countingConnection(db: Connection): { db: Connection; executions: () => number } {
  let count = 0
  const wrap = (statement: object): object => {
    const proxy: object = new Proxy(statement, {
      get(target, property) {
        const value = Reflect.get(target, property, target)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          if (['get', 'all', 'run', 'iterate'].includes(String(property))) count++
          const result = value.apply(target, args)
          return result === target ? proxy : result
        }
      },
    })
    return proxy
  }
  const counted = new Proxy(db, {
    get(target, property) {
      const value = Reflect.get(target, property, target)
      if (property === 'prepare') return (sql: string) => wrap(target.prepare(sql))
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { db: counted, executions: () => count }
}

test('a direct room is created for the chosen people, the creator included', (t) => {
  const db = fixtureDatabase(t)
  const room = directRooms(db).findOrCreateFor([kevin.id], jz.id)
  assert.equal(room.created, true)
  assert.deepEqual(memberIds(db, room.id), [jz.id, kevin.id])
  assert.equal(db.prepare('SELECT type FROM rooms WHERE id = ?').pluck().get(room.id), 'Rooms::Direct')
})

test('only one room exists for the same people, in any order and with the creator named or not', (t) => {
  const db = fixtureDatabase(t)
  const before = roomCount(db)
  const first = directRooms(db).findOrCreateFor([jz.id], kevin.id)
  const second = directRooms(db).findOrCreateFor([kevin.id, jz.id], jz.id)
  const third = directRooms(db).findOrCreateFor([jz.id, kevin.id, jz.id], kevin.id)
  assert.equal(second.id, first.id)
  assert.equal(third.id, first.id)
  assert.deepEqual([second.created, third.created], [false, false])
  assert.equal(roomCount(db), before + 1)
})

test('an existing ping is found for its exact set of people', (t) => {
  const db = fixtureDatabase(t)
  assert.deepEqual(directRooms(db).findOrCreateFor([jason.id], david.id), { id: rooms.david_and_jason.id, created: false })
  assert.deepEqual(directRooms(db).findOrCreateFor([kevin.id], bender.id), { id: rooms.bender_and_kevin.id, created: false })
})

test('a subset or a superset of an existing ping gets a room of its own', (t) => {
  const db = fixtureDatabase(t)
  const trio = directRooms(db).findOrCreateFor([jason.id, kevin.id], david.id)
  assert.equal(trio.created, true)
  assert.deepEqual(memberIds(db, trio.id), [david.id, jason.id, kevin.id])
  const alone = directRooms(db).findOrCreateFor([], david.id)
  assert.equal(alone.created, true)
  assert.deepEqual(memberIds(db, alone.id), [david.id])
  assert.notEqual(alone.id, trio.id)
})

test('shared rooms with the same people are never taken for a ping', (t) => {
  const db = fixtureDatabase(t)
  const room = directRooms(db).findOrCreateFor([jason.id, kevin.id], david.id)
  assert.notEqual(room.id, rooms.watercooler.id, 'watercooler has exactly david, jason and kevin but is closed')
})

test('everyone in a new direct room is involved in everything', (t) => {
  const db = fixtureDatabase(t)
  const room = directRooms(db).findOrCreateFor([kevin.id], jz.id)
  for (const userId of memberIds(db, room.id)) assert.equal(involvementOf(db, room.id, userId), 'everything')
})

test('finding an existing ping takes exactly one query, however many pings there are', (t) => {
  const db = fixtureDatabase(t)
  const pings = directRooms(db)
  const insertUser = db.prepare("INSERT INTO users (name, role, status, created_at, updated_at) VALUES (?, 0, 0, '2026-03-01', '2026-03-01')")
  for (let n = 0; n < 300; n++) pings.findOrCreateFor([Number(insertUser.run(`Person ${n}`).lastInsertRowid), jz.id], david.id)
  pings.findOrCreateFor([jz.id], david.id)
  const counted = countingConnection(db)
  const room = directRooms(counted.db).findOrCreateFor([jz.id], david.id)
  assert.equal(room.created, false)
  assert.deepEqual(memberIds(db, room.id), [david.id, jz.id])
  assert.equal(counted.executions(), 1)
})
