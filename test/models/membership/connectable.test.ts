import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Connection } from '../../../server/models/database.ts'
import { memberships, type MembershipRow } from '../../../server/models/membership.ts'
import { connectable, connectableFor, isConnected } from '../../../server/models/membership/connectable.ts'
import { dbTime } from '../../../server/lib/time.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase } from '../room/fixture-database.ts'

const ROOM = rooms.watercooler.id
const USER = users.kevin.id
const T0 = Date.parse('2026-03-02T10:00:00Z')
const at = (seconds: number) => ({ now: T0 + seconds * 1000 })
const stamp = (seconds: number) => dbTime((T0 + seconds * 1000) * 1000)

function row(db: Connection): MembershipRow & { unread_at: string | null } {
  return memberships(db).find(ROOM, USER)!
}

function markUnread(db: Connection) {
  db.prepare('UPDATE memberships SET unread_at = ? WHERE room_id = ? AND user_id = ?').run(stamp(-100), ROOM, USER)
}

test('becoming present counts one connection, stamps connected_at and reads the room without touching updated_at', (t) => {
  const db = fixtureDatabase(t)
  markUnread(db)
  const before = row(db).updated_at
  assert.equal(connectable(db).present(ROOM, USER, at(0)), true)
  const membership = row(db)
  assert.equal(membership.connections, 1)
  assert.equal(membership.connected_at, stamp(0))
  assert.equal(membership.unread_at, null)
  assert.equal(membership.updated_at, before)
})

test('each further tab adds a connection while the membership is connected', (t) => {
  const db = fixtureDatabase(t)
  const presence = connectable(db)
  presence.present(ROOM, USER, at(0))
  presence.present(ROOM, USER, at(10))
  assert.equal(row(db).connections, 2)
  assert.equal(row(db).connected_at, stamp(10))
})

test('a connection older than the 60 s TTL starts counting again from one', (t) => {
  const db = fixtureDatabase(t)
  const presence = connectable(db)
  presence.present(ROOM, USER, at(0))
  presence.present(ROOM, USER, at(10))
  presence.present(ROOM, USER, at(71))
  assert.equal(row(db).connections, 1)
  assert.ok(isConnected(row(db), T0 + 71_000))
  assert.ok(isConnected(row(db), T0 + 131_000), 'exactly 60 s old is still connected')
  assert.ok(!isConnected(row(db), T0 + 131_001))
})

test('disconnecting takes one connection away and clears connected_at with the last one', (t) => {
  const db = fixtureDatabase(t)
  const presence = connectable(db)
  presence.present(ROOM, USER, at(0))
  presence.present(ROOM, USER, at(1))
  presence.disconnected(ROOM, USER, at(2))
  assert.equal(row(db).connections, 1)
  assert.equal(row(db).connected_at, stamp(1))
  assert.equal(row(db).updated_at, stamp(2))
  presence.disconnected(ROOM, USER, at(3))
  assert.equal(row(db).connections, 0)
  assert.equal(row(db).connected_at, null)
})

test('disconnecting a lapsed membership zeroes the count', (t) => {
  const db = fixtureDatabase(t)
  const presence = connectable(db)
  presence.present(ROOM, USER, at(0))
  presence.present(ROOM, USER, at(0))
  presence.present(ROOM, USER, at(0))
  presence.disconnected(ROOM, USER, at(61))
  assert.equal(row(db).connections, 0)
  assert.equal(row(db).connected_at, null)
})

test('refreshing keeps the count while connected, and counts one again after it lapsed', (t) => {
  const db = fixtureDatabase(t)
  const presence = connectable(db)
  presence.present(ROOM, USER, at(0))
  presence.present(ROOM, USER, at(0))
  presence.refresh(ROOM, USER, at(50))
  assert.equal(row(db).connections, 2)
  assert.equal(row(db).connected_at, stamp(50))
  assert.equal(row(db).updated_at, stamp(50))
  presence.refresh(ROOM, USER, at(200))
  assert.equal(row(db).connections, 1)
  assert.equal(row(db).connected_at, stamp(200))
})

// Starting states of one membership: counts and how long ago it was stamped (null: never).
const STATES = [0, 1, 2, 3].flatMap((connections) => [null, 10, 59, 61, 500].map((ago) => ({ connections, ago })))

function setState(db: Connection, state: { connections: number; ago: number | null }) {
  db.prepare('UPDATE memberships SET connections = ?, connected_at = ?, unread_at = ?, updated_at = ? WHERE room_id = ? AND user_id = ?')
    .run(state.connections, state.ago === null ? null : stamp(1000 - state.ago), stamp(-100), stamp(-50), ROOM, USER)
}

test('reconnected is exactly disconnected then present, from every starting state', (t) => {
  const db = fixtureDatabase(t)
  const presence = connectable(db)
  for (const state of STATES) {
    setState(db, state)
    presence.disconnected(ROOM, USER, at(1000))
    presence.present(ROOM, USER, at(1000))
    const twoSteps = row(db)
    setState(db, state)
    assert.equal(presence.reconnected(ROOM, USER, at(1000)), true)
    assert.deepEqual(row(db), twoSteps, JSON.stringify(state))
  }
  assert.equal(presence.reconnected(ROOM, users.jz.id, at(1000)), false, 'no membership, nothing found')
})

test('connected counts like present but touches updated_at and leaves unread_at alone', (t) => {
  const db = fixtureDatabase(t)
  markUnread(db)
  const presence = connectable(db)
  presence.connected(ROOM, USER, at(0))
  presence.connected(ROOM, USER, at(5))
  assert.equal(row(db).connections, 2)
  assert.equal(row(db).updated_at, stamp(5))
  assert.equal(row(db).unread_at, stamp(-100))
})

test('presence verbs touch only that membership, and report whether there was one', (t) => {
  const db = fixtureDatabase(t)
  const presence = connectable(db)
  assert.equal(presence.present(ROOM, users.jz.id, at(0)), false)
  presence.present(ROOM, USER, at(0))
  assert.equal(memberships(db).find(ROOM, users.david.id)!.connections, 0)
  assert.equal(memberships(db).find(rooms.hq.id, USER)!.connections, 0)
})

test('at boot disconnectAll resets every count left behind', (t) => {
  const db = fixtureDatabase(t)
  connectable(db).present(ROOM, USER)
  assert.ok(memberships(db).disconnectAll() >= 1)
  assert.equal(row(db).connections, 0)
  assert.equal(row(db).connected_at, null)
})

test('statements are prepared once per connection', (t) => {
  const db = fixtureDatabase(t)
  assert.equal(connectableFor(db), connectableFor(db))
})

test('releasing a dead worker’s connections takes away that many, and none left means not connected', (t) => {
  const db = fixtureDatabase(t)
  const presence = connectable(db)
  for (const seconds of [0, 1, 2]) presence.present(ROOM, USER, at(seconds))
  assert.equal(presence.released(ROOM, USER, 2, at(3)), true)
  assert.equal(row(db).connections, 1)
  assert.equal(row(db).connected_at, stamp(2))
  presence.released(ROOM, USER, 5, at(4))
  assert.equal(row(db).connections, 0)
  assert.equal(row(db).connected_at, null)
  assert.equal(row(db).updated_at, stamp(4))
})
