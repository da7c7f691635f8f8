import { test } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { Writer } from '../../server/lib/writer.ts'

function setup() {
  const db = new BetterSqlite3(':memory:')
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE)')
  const insert = db.prepare('INSERT INTO items (value) VALUES (?)')
  const writer = new Writer(db, { insert: (value: string) => Number(insert.run(value).lastInsertRowid) })
  return { db, writer }
}

test('writes run in the order they arrived', async () => {
  const { db, writer } = setup()
  const ids = await Promise.all(['a', 'b', 'c', 'd'].map((value) => writer.write((m) => m.insert(value))))
  assert.deepEqual(ids, [1, 2, 3, 4])
  assert.deepEqual(db.prepare('SELECT value FROM items ORDER BY id').pluck().all(), ['a', 'b', 'c', 'd'])
})

test('writes that arrive together share one transaction', async () => {
  const { writer } = setup()
  await Promise.all(Array.from({ length: 50 }, (_, i) => writer.write((m) => m.insert(`v${i}`))))
  assert.equal(writer.stats.writes, 50)
  assert.equal(writer.stats.batches, 1)
})

test('a failing write fails alone and the others in its batch still commit', async () => {
  const { db, writer } = setup()
  const results = await Promise.allSettled([
    writer.write((m) => m.insert('x')),
    writer.write((m) => m.insert('x')),
    writer.write((m) => m.insert('y')),
  ])
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled'])
  assert.deepEqual(db.prepare('SELECT value FROM items ORDER BY id').pluck().all(), ['x', 'y'])
})

test('a write is committed before its promise resolves', async () => {
  const { db, writer } = setup()
  await writer.write((m) => m.insert('committed'))
  assert.equal(db.inTransaction, false)
  assert.equal(db.prepare('SELECT count(*) FROM items').pluck().get(), 1)
})

test('a closed writer refuses new writes', async () => {
  const { writer } = setup()
  writer.close()
  await assert.rejects(writer.write((m) => m.insert('late')), /closed/)
})
