import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { applyTouches, foldTouches, PresenceWrites, type PresenceTouch, type PresenceVerb } from '../../server/cable/channels/presence-writes.ts'
import { connectable } from '../../server/models/membership/connectable.ts'
import { workerConnectionsFor } from '../../server/models/membership/worker-connections.ts'
import { Store } from '../../server/models/store.ts'
import { loadFixtures, rooms, users } from '../fixtures.ts'
import { tempStorage } from '../helper.ts'
import { fixtureDatabase } from '../models/room/fixture-database.ts'

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url))
const HQ = rooms.hq.id
const PETS = rooms.pets.id
const KEVIN = users.kevin.id
const JZ = users.jz.id

function store(t: TestContext): Store {
  const s = new Store({ path: join(tempStorage(t), 'presence.sqlite3'), migrationsDir: MIGRATIONS })
  t.after(() => s.close())
  s.writeNow((m) => loadFixtures(m.db))
  return s
}

function presenceOf(s: Store, roomId: number, userId: number) {
  return s.read((m) => m.db.prepare('SELECT connections, connected_at, unread_at FROM memberships WHERE room_id = ? AND user_id = ?').get(roomId, userId)) as {
    connections: number
    connected_at: string | null
    unread_at: string | null
  }
}

const touch = (verb: PresenceVerb, roomId: number = HQ, userId: number = KEVIN): PresenceTouch => ({ verb, roomId, userId })

test('an unsubscribe then a subscribe of the same room fold into one update; other rooms and people stay apart', () => {
  const updates = foldTouches([touch('disconnected'), touch('disconnected', PETS), touch('present'), touch('present', PETS, JZ), touch('refresh'), touch('refresh')])
  assert.deepEqual(
    updates.map((u) => [u.verb, u.roomId, u.userId, u.answers]),
    [
      ['reconnected', HQ, KEVIN, [0, 2]],
      ['refresh', HQ, KEVIN, [4, 5]],
      ['disconnected', PETS, KEVIN, [1]],
      ['present', PETS, JZ, [3]],
    ],
  )
})

test('a subscribe then an unsubscribe are not folded: the tab came and went', () => {
  assert.deepEqual(foldTouches([touch('present'), touch('disconnected')]).map((u) => u.verb), ['present', 'disconnected'])
})

// Every sequence of up to four touches on one membership, from three starting states, leaves it
// as the touches one by one would have.
test('folded touches leave every membership as the touches one at a time would', (t) => {
  const verbs: PresenceVerb[] = ['present', 'disconnected', 'refresh']
  const sequences: PresenceVerb[][] = [[]]
  for (let length = 0; length < 4; length++) for (const s of sequences.filter((q) => q.length === length)) for (const v of verbs) sequences.push([...s, v])
  const db = fixtureDatabase(t)
  const presence = connectable(db)
  const now = { now: Date.parse('2026-03-02T10:00:00Z') }
  const state = () => db.prepare('SELECT connections, connected_at, unread_at, updated_at FROM memberships WHERE room_id = ? AND user_id = ?').get(HQ, KEVIN)
  const starts = ['0, NULL', "1, '2026-03-02 09:59:50.000000'", "2, '2026-03-02 09:59:50.000000'"]
  for (const start of starts) {
    for (const sequence of sequences) {
      const reset = () => db.exec(`UPDATE memberships SET (connections, connected_at) = (${start}), unread_at = '2026-03-01 00:00:00.000000', updated_at = '2026-03-01 00:00:00.000000' WHERE room_id = ${HQ} AND user_id = ${KEVIN}`)
      reset()
      const oneByOne = sequence.map((verb) => presence[verb](HQ, KEVIN, now))
      const expected = state()
      reset()
      const folded = { ...presence, ...Object.fromEntries((['present', 'disconnected', 'refresh', 'reconnected'] as const).map((v) => [v, (r: number, u: number) => presence[v](r, u, now)])) }
      const answers = applyTouches(folded, sequence.map((verb) => touch(verb)))
      assert.deepEqual(state(), expected, `${start}: ${sequence.join(', ')}`)
      assert.deepEqual(answers, oneByOne, 'every touch learns that the membership was found')
    }
  }
})

test('touches of one synchronous run are one write; a navigation keeps the count of connections', async (t) => {
  const s = store(t)
  const writes = new PresenceWrites(s)
  await Promise.all([writes.touch('present', HQ, KEVIN), writes.touch('present', HQ, KEVIN)])
  assert.equal(presenceOf(s, HQ, KEVIN).connections, 2, 'two tabs')

  await s.write((m) => m.db.prepare("UPDATE memberships SET unread_at = '2026-03-01 00:00:00.000000' WHERE room_id = ? AND user_id = ?").run(HQ, KEVIN))
  const before = s.writer.stats.writes
  // One tab leaves HQ for Pets and comes back; the other stays.
  const answers = await Promise.all([
    writes.touch('disconnected', HQ, KEVIN),
    writes.touch('present', PETS, KEVIN),
    writes.touch('disconnected', PETS, KEVIN),
    writes.touch('present', HQ, KEVIN),
  ])
  assert.deepEqual(answers, [true, true, true, true])
  assert.equal(s.writer.stats.writes - before, 1, 'one write for the whole run')
  assert.equal(presenceOf(s, HQ, KEVIN).connections, 2, 'still two tabs in HQ')
  assert.equal(presenceOf(s, HQ, KEVIN).unread_at, null, 'coming back read the room')
  assert.equal(presenceOf(s, PETS, KEVIN).connections, 0)
  assert.equal(presenceOf(s, PETS, KEVIN).connected_at, null)

  await writes.touch('disconnected', HQ, KEVIN)
  await writes.touch('disconnected', HQ, KEVIN)
  assert.deepEqual([presenceOf(s, HQ, KEVIN).connections, presenceOf(s, HQ, KEVIN).connected_at], [0, null], 'both tabs gone')
})

test('touches after the run, or after its write has started, go in a write of their own', async (t) => {
  const s = store(t)
  const writes = new PresenceWrites(s)
  const before = s.writer.stats.writes
  const first = writes.touch('present', HQ, KEVIN)
  await Promise.resolve()
  const second = writes.touch('present', HQ, KEVIN)
  await Promise.all([first, second])
  assert.equal(s.writer.stats.writes - before, 2)
  assert.equal(presenceOf(s, HQ, KEVIN).connections, 2)

  // The writer drains synchronously at shutdown: a touch made while the write runs still counts.
  const third = writes.touch('disconnected', HQ, KEVIN)
  s.writer.drain()
  const fourth = writes.touch('disconnected', HQ, KEVIN)
  s.writer.drain()
  assert.deepEqual(await Promise.all([third, fourth]), [true, true])
  assert.equal(presenceOf(s, HQ, KEVIN).connections, 0)
})

test('a touch of a room one is not in finds nothing and changes nothing', async (t) => {
  const s = store(t)
  const writes = new PresenceWrites(s)
  assert.deepEqual(await Promise.all([writes.touch('present', rooms.watercooler.id, JZ), writes.touch('present', HQ, JZ)]), [false, true])
  assert.equal(s.read((m) => m.memberships.find(rooms.watercooler.id, JZ)), undefined)
})

test('a worker’s share of each count is written with the count, and releasing it takes exactly that away', async (t) => {
  const s = store(t)
  const one = new PresenceWrites(s)
  const two = new PresenceWrites(s)
  one.worker = 1
  two.worker = 2
  await Promise.all([one.touch('present', HQ, KEVIN), one.touch('present', HQ, KEVIN), one.touch('present', PETS, KEVIN)])
  await Promise.all([two.touch('present', HQ, KEVIN), two.touch('refresh', HQ, KEVIN), two.touch('present', rooms.watercooler.id, JZ)])
  // A tab on worker 1 leaves Pets for HQ and comes back (the fold: one update each).
  await Promise.all([one.touch('disconnected', PETS, KEVIN), one.touch('present', HQ, KEVIN), one.touch('disconnected', HQ, KEVIN), one.touch('present', PETS, KEVIN)])
  await one.touch('disconnected', PETS, KEVIN)
  await one.touch('disconnected', PETS, KEVIN)
  assert.equal(presenceOf(s, HQ, KEVIN).connections, 3)

  const shares = (worker: number) => s.read((m) => workerConnectionsFor(m.db).of(worker))
  assert.deepEqual(shares(1), [{ roomId: HQ, userId: KEVIN, connections: 2 }], 'a share that reaches none is gone, and a foreign room is nobody’s')
  assert.deepEqual(shares(2), [{ roomId: HQ, userId: KEVIN, connections: 1 }], 'a refresh is no tab of its own')

  assert.equal(await s.write((m) => workerConnectionsFor(m.db).release(1)), 1)
  assert.equal(presenceOf(s, HQ, KEVIN).connections, 1, 'worker 2’s tab stays')
  assert.notEqual(presenceOf(s, HQ, KEVIN).connected_at, null)
  assert.deepEqual(shares(1), [])
  assert.equal(await s.write((m) => workerConnectionsFor(m.db).release(1)), 0, 'nothing is taken twice')
  assert.equal(presenceOf(s, HQ, KEVIN).connections, 1)

  // One process (no worker number) keeps no shares.
  await new PresenceWrites(s).touch('present', HQ, KEVIN)
  assert.deepEqual([...shares(1), ...shares(2)], [{ roomId: HQ, userId: KEVIN, connections: 1 }])
})
