import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { postMessage } from '../../../server/models/message/posting.ts'
import { ftsQuery, sanitizeQuery, searchable, type SearchableOptions } from '../../../server/models/message/searchable.ts'

let counter = 0
async function post(app: FastifyInstance, roomId: number, creatorId: number, text: string): Promise<number> {
  const message = await app.store.write((m) =>
    postMessage(m, { roomId, creatorId, clientMessageId: `search-${++counter}`, body: `<div>${text}</div>`, plainText: text }),
  )
  return message.id
}

function search(app: FastifyInstance, userId: number, query: string, limit?: number): number[] {
  return app.store.read((m) => m.searchable.reachableMatches(userId, query, limit).map((row) => row.id))
}

const HOSTILE_QUERIES = [
  'NOT',
  'AND OR',
  'OR',
  'NEAR',
  'NEAR(',
  'NEAR(coffee tea, 2)',
  '"',
  '"coffee',
  '*',
  'coff*',
  'col:x',
  'body:coffee',
  '^x',
  '^coffee',
  '-coffee',
  '+coffee',
  '(coffee',
  'coffee)',
  '{body}: coffee',
  'coffee AND',
  'NOT coffee',
  'coffee NOT tea',
  "'; DROP TABLE messages; --",
  '\u0000',
  '\\',
  '_',
  '___',
  '\u0301',
  'e\u0301',
  'café ☕ 東京 😀',
  'ß İ ǅ',
  '\ud800',
  'a'.repeat(10_000),
  'coffee '.repeat(1500),
  Array.from({ length: 2000 }, (_, i) => `w${i}`).join(' '),
  '%_%',
  '   ',
  '',
]

test('sanitizeQuery replaces every non-word character with a space, as upstream does', () => {
  assert.equal(sanitizeQuery('hello, world!'), 'hello  world ')
  assert.equal(sanitizeQuery('foo_bar café 42'), 'foo_bar café 42')
  assert.equal(sanitizeQuery('"NOT" (a*b) ^c col:x'), ' NOT   a b   c col x')
})

test('ftsQuery quotes every term, so FTS5 operators are plain words', () => {
  assert.equal(ftsQuery('coffee'), '"coffee"')
  assert.equal(ftsQuery('NOT'), '"NOT"')
  assert.equal(ftsQuery('coffee AND tea OR NEAR(x)'), '"coffee" "AND" "tea" "OR" "NEAR" "x"')
  assert.equal(ftsQuery('col:x ^y z*'), '"col" "x" "y" "z"')
  assert.equal(ftsQuery('coffee coffee'), '"coffee"', 'repeated words once')
  assert.equal(ftsQuery(''), null)
  assert.equal(ftsQuery('   !!! '), null)
  assert.equal(ftsQuery('___'), null, 'a word the tokenizer drops would match nothing')
  assert.equal(ftsQuery('__init__'), '"__init__"')
})

test('finds matching messages in rooms the person is a member of', async (t) => {
  const { app } = await buildTestApp(t)
  const hello = await post(app, rooms.designers.id, users.david.id, 'Hello world!')
  await post(app, rooms.designers.id, users.david.id, 'Goodbye')
  assert.deepEqual(search(app, users.david.id, 'hello'), [hello])
  assert.deepEqual(search(app, users.jz.id, 'HELLO world'), [hello], 'case-insensitive, implicit AND')
  assert.deepEqual(search(app, users.jz.id, 'hello moon'), [], 'every word must match')
})

test('messages in rooms without a membership never match', async (t) => {
  const { app } = await buildTestApp(t)
  const secret = await post(app, rooms.designers.id, users.jason.id, 'secret coffee plans')
  const open = await post(app, rooms.hq.id, users.jason.id, 'open coffee plans')
  const ping = await post(app, rooms.david_and_jason.id, users.jason.id, 'private coffee plans')
  assert.deepEqual(search(app, users.kevin.id, 'coffee'), [open], 'Kevin is in neither Designers nor the Ping')
  assert.deepEqual(search(app, users.david.id, 'coffee'), [secret, open, ping])
  await app.store.write((m) => m.db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(rooms.designers.id, users.david.id))
  assert.deepEqual(search(app, users.david.id, 'coffee'), [open, ping], 'leaving the room hides its messages')
})

test('any involvement counts, invisible included', async (t) => {
  const { app } = await buildTestApp(t)
  const id = await post(app, rooms.hq.id, users.jason.id, 'coffee time')
  await app.store.write((m) => m.db.prepare("UPDATE memberships SET involvement = 'invisible' WHERE user_id = ?").run(users.kevin.id))
  assert.deepEqual(search(app, users.kevin.id, 'coffee'), [id])
})

test('porter stemming: running finds run and run finds running', async (t) => {
  const { app } = await buildTestApp(t)
  const run = await post(app, rooms.hq.id, users.david.id, 'I run every morning')
  const running = await post(app, rooms.hq.id, users.david.id, 'Running late, sorry')
  assert.deepEqual(search(app, users.kevin.id, 'running'), [run, running])
  assert.deepEqual(search(app, users.kevin.id, 'run'), [run, running])
  assert.deepEqual(search(app, users.kevin.id, 'runs'), [run, running])
})

test('the newest matches by id, oldest first, at most the limit', async (t) => {
  const { app } = await buildTestApp(t)
  const ids: number[] = []
  for (let i = 0; i < 130; i++) ids.push(await post(app, i % 2 === 0 ? rooms.hq.id : rooms.pets.id, users.jason.id, `coffee number ${i}`))
  await post(app, rooms.hq.id, users.jason.id, 'tea only')
  assert.deepEqual(search(app, users.kevin.id, 'coffee'), ids.slice(-100))
  assert.deepEqual(search(app, users.kevin.id, 'coffee', 10), ids.slice(-10))
  assert.deepEqual(search(app, users.kevin.id, 'number 7'), [ids[7]!], 'numbers are words too')
})

test('orders by message id, not by created_at', async (t) => {
  const { app } = await buildTestApp(t)
  const first = await post(app, rooms.hq.id, users.jason.id, 'coffee one')
  const second = await post(app, rooms.hq.id, users.jason.id, 'coffee two')
  await app.store.write((m) => m.db.prepare("UPDATE messages SET created_at = '2000-01-01 00:00:00.000000' WHERE id = ?").run(second))
  assert.deepEqual(search(app, users.kevin.id, 'coffee', 1), [second])
  assert.deepEqual(search(app, users.kevin.id, 'coffee'), [first, second])
})

test('edited and deleted messages are searched as they are now', async (t) => {
  const { app } = await buildTestApp(t)
  const id = await post(app, rooms.hq.id, users.jason.id, 'coffee')
  await app.store.write((m) => m.messages.revise(id, '<div>tea</div>', 'tea'))
  assert.deepEqual(search(app, users.kevin.id, 'coffee'), [])
  assert.deepEqual(search(app, users.kevin.id, 'tea'), [id])
  await app.store.write((m) => m.messages.destroy(id))
  assert.deepEqual(search(app, users.kevin.id, 'tea'), [])
})

test('hostile queries never raise and an empty query finds nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const id = await post(app, rooms.hq.id, users.jason.id, 'NOT AND OR NEAR coffee col x café 東京')
  for (const query of HOSTILE_QUERIES) {
    assert.doesNotThrow(() => search(app, users.kevin.id, query), `query ${JSON.stringify(query.slice(0, 40))}`)
  }
  assert.deepEqual(search(app, users.kevin.id, 'NOT'), [id], 'operators are plain words')
  assert.deepEqual(search(app, users.kevin.id, 'AND OR'), [id])
  assert.deepEqual(search(app, users.kevin.id, 'NEAR(coffee'), [id])
  assert.deepEqual(search(app, users.kevin.id, 'col:x'), [id])
  assert.deepEqual(search(app, users.kevin.id, '^coffee*'), [id])
  assert.deepEqual(search(app, users.kevin.id, 'cafe'), [id], 'diacritics are folded by the tokenizer')
  assert.deepEqual(search(app, users.kevin.id, '東京'), [id])
  assert.deepEqual(search(app, users.kevin.id, ''), [])
  assert.deepEqual(search(app, users.kevin.id, '!!!'), [])
  assert.deepEqual(app.store.read((m) => m.searchable.reachableMatches(users.kevin.id, null)), [])
})

// A synthetic history that takes every path: the probe, nothing reachable below it, the
// membership-scoped race (won by either walk) and the long index walk for people who reach
// many messages. Small probe sizes and caps make the paths reachable at this size.
test('matches the full sort on a synthetic history, whichever path answers', async (t) => {
  const { app } = await buildTestApp(t)
  const N = 20_000
  const [BIG, OTHER, TINY, MEDIUM, LATE] = [101, 102, 103, 104, 105]
  const people = { big: users.jason.id, tiny: users.kevin.id, medium: users.jz.id, both: users.david.id, late: users.bender.id }
  app.store.writeNow((m) => {
    const T = '2026-03-01 12:00:00.000000'
    const room = m.db.prepare("INSERT INTO rooms (id, name, type, creator_id, created_at, updated_at) VALUES (?, ?, 'Rooms::Closed', 1, ?, ?)")
    const member = m.db.prepare("INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at) VALUES (?, ?, 'mentions', 0, ?, ?)")
    for (const id of [BIG, OTHER, TINY, MEDIUM, LATE]) room.run(id, `synthetic ${id}`, T, T)
    for (const [roomId, userId] of [[BIG, people.big], [TINY, people.tiny], [MEDIUM, people.medium], [TINY, people.both], [MEDIUM, people.both], [LATE, people.late]] as const) {
      member.run(roomId, userId, T, T)
    }
    const message = m.db.prepare('INSERT INTO messages (id, room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, ?, 1, ?, ?, ?)')
    const index = m.db.prepare('INSERT INTO message_search_index (rowid, body) VALUES (?, ?)')
    let seed = 7
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647
    for (let id = 1; id <= N; id++) {
      const roomId = id > N - 200 && id % 7 === 0 ? LATE : id % 450 === 0 ? TINY : id % 13 === 0 ? MEDIUM : id % 5 === 0 ? OTHER : BIG
      const words = ['common']
      if (random() < 0.03) words.push('blue')
      if (roomId === OTHER && random() < 0.5) words.push('zebra')
      if (roomId === OTHER && id > N - 450) words.push('rare')
      if (roomId !== BIG && random() < 0.2) words.push('offside')
      if (id < 3000) words.push('ancient')
      if (random() < 0.3) words.push('running')
      message.run(id, roomId, `syn-${id}`, T, T)
      index.run(id, words.join(' '))
    }
  })
  const reference = (userId: number, query: string, limit: number): number[] =>
    app.store.read((m) =>
      (
        m.db
          .prepare(
            `SELECT m.id FROM messages m JOIN message_search_index f ON f.rowid = m.id
             WHERE f.message_search_index MATCH ? AND m.room_id IN (SELECT room_id FROM memberships WHERE user_id = ?)
             ORDER BY m.id DESC LIMIT ?`,
          )
          .pluck()
          .all(ftsQuery(query), userId, limit) as number[]
      ).reverse(),
    )
  const queries = ['common', 'blue', 'zebra', 'rare', 'offside', 'ancient', 'running blue', 'common running', 'nothing']
  const configurations: SearchableOptions[] = [{}, { probeSize: 10 }, { probeSize: 50, accessibleCap: 400 }]
  const taken: Record<string, number> = {}
  for (const options of configurations) {
    const model = searchable(app.store.readDb, options)
    for (const person of Object.keys(people) as (keyof typeof people)[]) {
      for (const query of queries) {
        for (const limit of [100, 7]) {
          const found = model.reachableMatches(people[person], query, limit).map((row) => row.id)
          assert.deepEqual(found, reference(people[person], query, limit), `${person} searching ${query} (limit ${limit}, ${JSON.stringify(options)})`)
        }
      }
    }
    for (const [path, count] of Object.entries(model.paths)) taken[path] = (taken[path] ?? 0) + count
  }
  for (const path of ['probe', 'nothingReachableBelow', 'longIndexWalk', 'raceWonByMembership', 'raceWonByIndex']) {
    assert.ok((taken[path] ?? 0) > 0, `the ${path} path was taken: ${JSON.stringify(taken)}`)
  }
  assert.equal(search(app, people.tiny, 'common').length, N / 450 > 100 ? 100 : Math.floor(N / 450), 'the tiny room holds every 450th message')
})

test('the index is read newest first without sorting all matches', async (t) => {
  const { app } = await buildTestApp(t)
  const plan = app.store.read((m) =>
    m.db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT f.rowid FROM message_search_index AS f CROSS JOIN messages AS m ON m.id = f.rowid
         WHERE f.message_search_index MATCH '"x"' AND f.rowid < 100 AND f.rowid >= 0 AND m.room_id IN (SELECT value FROM json_each('[1]'))
         ORDER BY f.rowid DESC LIMIT 100`,
      )
      .all()
      .map((row) => (row as { detail: string }).detail),
  )
  assert.match(plan[0]!, /SCAN f VIRTUAL TABLE INDEX 192:/, 'FTS5 consumes ORDER BY rowid DESC')
  assert.match(plan[1]!, /SEARCH m USING INTEGER PRIMARY KEY/)
  assert.ok(!plan.some((line) => line.includes('TEMP B-TREE')), plan.join('\n'))
})
