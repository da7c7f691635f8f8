import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import BetterSqlite3 from 'better-sqlite3'
import { preparingOnFirstUse } from '../../server/models/lazy-statements.ts'
import { Store } from '../../server/models/store.ts'
import { tempStorage } from '../helper.ts'
import { watchedStatements } from './watched-statements.ts'

function database() {
  const db = new BetterSqlite3(':memory:')
  db.exec("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO people (name) VALUES ('David'), ('Jason')")
  return db
}

test('a statement made through the wrapped connection is compiled when it first runs, once, not when it is made', () => {
  const watched = watchedStatements(database())
  const lazy = preparingOnFirstUse(watched.db)
  const names = lazy.connection.prepare<[], string>('SELECT name FROM people ORDER BY id').pluck()
  assert.deepEqual(watched.statements, [], 'nothing compiled yet')
  assert.deepEqual(names.all(), ['David', 'Jason'], 'pluck, set before it was compiled, applies')
  assert.deepEqual(names.all(), ['David', 'Jason'])
  assert.equal(watched.statements.length, 1, 'compiled once')
})

test('a lazy statement runs, iterates, binds and reports like a compiled one', () => {
  const lazy = preparingOnFirstUse(database())
  const insert = lazy.connection.prepare('INSERT INTO people (name) VALUES (?)')
  assert.equal(insert.run('Kevin').lastInsertRowid, 3)
  const row = lazy.connection.prepare<[number], { id: number; name: string }>('SELECT id, name FROM people WHERE id = ?')
  assert.deepEqual(row.get(3), { id: 3, name: 'Kevin' })
  assert.deepEqual([...row.iterate(1)], [{ id: 1, name: 'David' }])
  assert.deepEqual(row.raw().get(2), [2, 'Jason'])
  assert.equal(row.reader, true)
  assert.equal(insert.reader, false)
  assert.deepEqual(row.columns().map((column) => column.name), ['id', 'name'])
  assert.equal(row.source, 'SELECT id, name FROM people WHERE id = ?')
})

test('a statement whose SQL is wrong fails when it runs, and prepareAll finds it before anyone runs it', () => {
  const lazy = preparingOnFirstUse(database())
  const wrong = lazy.connection.prepare('SELECT nickname FROM people')
  assert.throws(() => lazy.prepareAll(), /no such column: nickname/)
  assert.throws(() => wrong.all(), /no such column: nickname/)
})

test('after the seal, prepare compiles at once and keeps nothing, so statements made per call do not pile up', () => {
  const watched = watchedStatements(database())
  const lazy = preparingOnFirstUse(watched.db)
  lazy.connection.prepare('SELECT 1')
  lazy.seal()
  for (let i = 0; i < 3; i++) lazy.connection.prepare(`SELECT ${i + 2}`)
  assert.deepEqual(watched.statements, ['SELECT 2', 'SELECT 3', 'SELECT 4'])
  assert.equal(lazy.prepareAll(), 1)
  assert.throws(() => lazy.connection.prepare('SELECT FROM'), /syntax error/)
})

test('the connection wrapped keeps its own transactions and pragmas', () => {
  const db = database()
  const lazy = preparingOnFirstUse(db)
  const insert = lazy.connection.prepare('INSERT INTO people (name) VALUES (?)')
  const both = lazy.connection.transaction((a: string, b: string) => {
    insert.run(a)
    insert.run(b)
  })
  both('Kevin', 'Jorge')
  assert.equal(lazy.connection.prepare('SELECT count(*) FROM people').pluck().get(), 4)
  lazy.connection.pragma('user_version = 7')
  assert.equal(db.pragma('user_version', { simple: true }), 7)
})

test("a store's models compile none of their statements at boot, and every one of them compiles against a fresh database", (t) => {
  const store = new Store({ path: join(tempStorage(t), 'db', 'production.sqlite3'), migrationsDir: join(import.meta.dirname, '../../migrations') })
  t.after(() => store.close())
  const compiled = store.prepareAllStatements()
  assert.ok(compiled > 400, `${compiled} statements`)
})
