import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helper.ts'
import { users } from '../fixtures.ts'

const david = users.david.id
const jason = users.jason.id

function recent(app: Awaited<ReturnType<typeof buildTestApp>>['app'], userId: number): string[] {
  return app.store.read((m) => m.searches.recent(userId).map((search) => search.query))
}

test('record inserts a query and lists recent searches newest first', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.searches.record(david, 'pizza'))
  await app.store.write((m) => m.searches.record(david, 'coffee'))
  assert.deepEqual(recent(app, david), ['coffee', 'pizza'])
  assert.deepEqual(recent(app, jason), [], 'searches belong to their person')
})

test('recording an identical query touches it instead of adding a row', async (t) => {
  const { app } = await buildTestApp(t)
  for (const query of ['pizza', 'coffee', 'tea']) await app.store.write((m) => m.searches.record(david, query))
  const before = app.store.read((m) => m.searches.recent(david).find((s) => s.query === 'pizza')!)
  await app.store.write((m) => m.searches.record(david, 'pizza'))
  const rows = app.store.read((m) => m.searches.recent(david))
  assert.deepEqual(rows.map((s) => s.query), ['pizza', 'tea', 'coffee'])
  assert.equal(rows[0]!.id, before.id, 'the same row')
  assert.ok(rows[0]!.updated_at > before.updated_at, 'updated_at is touched')
  assert.equal(rows[0]!.created_at, before.created_at)
  const count = app.store.read((m) => m.db.prepare('SELECT count(*) FROM searches WHERE user_id = ?').pluck().get(david))
  assert.equal(count, 3)
})

test('queries differing in case are different searches', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.searches.record(david, 'Pizza'))
  await app.store.write((m) => m.searches.record(david, 'pizza'))
  assert.deepEqual(recent(app, david), ['pizza', 'Pizza'])
})

test('only the newest ten searches are kept', async (t) => {
  const { app } = await buildTestApp(t)
  for (let i = 1; i <= 13; i++) await app.store.write((m) => m.searches.record(david, `query ${i}`))
  await app.store.write((m) => m.searches.record(jason, 'kept'))
  const expected = Array.from({ length: 10 }, (_, i) => `query ${13 - i}`)
  assert.deepEqual(recent(app, david), expected)
  const count = app.store.read((m) => m.db.prepare('SELECT count(*) FROM searches WHERE user_id = ?').pluck().get(david))
  assert.equal(count, 10, 'older rows are deleted, not just hidden')
  assert.deepEqual(recent(app, jason), ['kept'], "trimming leaves other people's searches alone")
})

test('touching an old search keeps it among the ten and trims the oldest instead', async (t) => {
  const { app } = await buildTestApp(t)
  for (let i = 1; i <= 10; i++) await app.store.write((m) => m.searches.record(david, `query ${i}`))
  await app.store.write((m) => m.searches.record(david, 'query 1'))
  await app.store.write((m) => m.searches.record(david, 'query 11'))
  const list = recent(app, david)
  assert.equal(list.length, 10)
  assert.deepEqual(list.slice(0, 2), ['query 11', 'query 1'])
  assert.ok(!list.includes('query 2'), 'the least recently used search went')
})

test('clear deletes only that person’s searches', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.searches.record(david, 'pizza'))
  await app.store.write((m) => m.searches.record(jason, 'coffee'))
  const removed = await app.store.write((m) => m.searches.clear(david))
  assert.equal(removed, 1)
  assert.deepEqual(recent(app, david), [])
  assert.deepEqual(recent(app, jason), ['coffee'])
})
