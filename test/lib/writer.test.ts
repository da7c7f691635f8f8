import { test } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

// Another process holding SQLite's write lock: a second connection to the same file.
function onFile(t: import('node:test').TestContext, lockWaitMs?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-writer-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'db.sqlite3')
  const db = new BetterSqlite3(path)
  db.pragma('journal_mode = WAL')
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, value TEXT NOT NULL UNIQUE)')
  const insert = db.prepare('INSERT INTO items (value) VALUES (?)')
  const writer = new Writer(db, { insert: (value: string) => Number(insert.run(value).lastInsertRowid) }, { lockWaitMs })
  const other = new BetterSqlite3(path)
  t.after(() => (writer.close(), db.close(), other.close()))
  return { db, writer, other }
}

test('while another process holds the write lock, writes wait for it without blocking the event loop, in order', async (t) => {
  const { db, writer, other } = onFile(t)
  other.exec('BEGIN IMMEDIATE')
  const writes = ['a', 'b', 'c'].map((value) => writer.write((m) => m.insert(value)))
  let turns = 0
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 1)).then(() => turns++)
  assert.equal(turns, 20, 'timers ran while the writes waited')
  assert.equal(db.prepare('SELECT count(*) FROM items').pluck().get(), 0, 'nothing written while the lock is held')
  const later = writer.write((m) => m.insert('d'))
  other.exec('COMMIT')
  assert.deepEqual(await Promise.all([...writes, later]), [1, 2, 3, 4])
  assert.deepEqual(db.prepare('SELECT value FROM items ORDER BY id').pluck().all(), ['a', 'b', 'c', 'd'])
  assert.equal(writer.stats.lockWaits, 1)
})

test('a write that waits longer than its limit for the lock fails, and the next one succeeds once the lock is free', async (t) => {
  const { db, writer, other } = onFile(t, 30)
  other.exec('BEGIN IMMEDIATE')
  await assert.rejects(writer.write((m) => m.insert('late')), (error: { code?: string }) => error.code === 'SQLITE_BUSY')
  other.exec('COMMIT')
  assert.equal(await writer.write((m) => m.insert('now')), 1)
  assert.deepEqual(db.prepare('SELECT value FROM items').pluck().all(), ['now'])
})
