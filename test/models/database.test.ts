import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { migrate, openConnection, readMigrations, type Connection } from '../../server/models/database.ts'
import { tempStorage } from '../helper.ts'

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url))
const expected = JSON.parse(readFileSync(new URL('../fixtures/upstream-schema.json', import.meta.url), 'utf8'))
const OUR_INDEXES = ['index_messages_on_room_id_and_created_at', 'index_messages_on_room_id_and_updated_at']
// Additive columns and tables of our own (003-cache-versions.sql, 007-worker-connections.sql, 013-message-client-ids.sql,
// 011-email-notifications.sql, 014-mentions.sql, 015-saved-messages.sql); Rails ignores them.
const OUR_COLUMNS = ['messages.presentation_version', 'messages.campfire_repeat_of', 'memberships.campfire_unread_message_id', 'rooms.content_version', 'users.sidebar_version']
const OUR_TABLES = ['campfire_cache_versions', 'campfire_worker_connections', 'campfire_email_notifications', 'campfire_email_preferences', 'oidc_identities', 'oidc_sessions', 'oidc_settings', 'slack_import_records', 'campfire_mentions', 'campfire_mention_checks', 'campfire_saved_messages']

interface Column { name: string; type: string; notnull: number; dflt_value: string | null }

function describeTable(db: Connection, table: string) {
  const columns = (db.pragma(`table_info("${table}")`) as Column[]).filter((c) => !OUR_COLUMNS.includes(`${table}.${c.name}`)).map((c) => ({ name: c.name, type: c.type, notnull: c.notnull, default: c.dflt_value }))
  const indexes = (db.pragma(`index_list("${table}")`) as { name: string; unique: number; origin: string }[])
    // Indexes of our own migrations are named campfire_… (005, 006); Rails ignores them.
    .filter((i) => !OUR_INDEXES.includes(i.name) && !i.name.startsWith('campfire_'))
    .map((i) => ({ name: i.name, unique: i.unique === 1, columns: (db.pragma(`index_info("${i.name}")`) as { name: string }[]).map((c) => c.name) }))
    .sort((a, b) => a.name.localeCompare(b.name))
  const foreignKeys = (db.pragma(`foreign_key_list("${table}")`) as { id: number; from: string; table: string; to: string }[])
    .sort((a, b) => b.id - a.id)
    .map((fk) => ({ column: fk.from, references_table: fk.table, references_column: fk.to }))
  return { columns, indexes, foreignKeys }
}

function freshDatabase(t: Parameters<typeof tempStorage>[0]): Connection {
  const db = openConnection(join(tempStorage(t), 'fresh.sqlite3'))
  migrate(db, MIGRATIONS)
  t.after(() => db.close())
  return db
}

test('a fresh database has exactly the tables of the upstream schema', (t) => {
  const db = freshDatabase(t)
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'message_search_index%' ORDER BY name").pluck().all()
  assert.deepEqual(tables.filter((name) => !OUR_TABLES.includes(name as string)), Object.keys(expected.tables).sort())
})

test('every table has upstream columns, types, defaults, indexes and foreign keys', (t) => {
  const db = freshDatabase(t)
  for (const [table, spec] of Object.entries<any>(expected.tables)) {
    const actual = describeTable(db, table)
    assert.deepEqual(actual.columns, spec.columns, `columns of ${table}`)
    const indexes = [...spec.indexes].sort((a: any, b: any) => a.name.localeCompare(b.name))
    assert.deepEqual(actual.indexes, indexes, `indexes of ${table}`)
    assert.deepEqual(actual.foreignKeys, spec.foreign_keys ?? [], `foreign keys of ${table}`)
  }
})

test('message_search_index is an FTS5 table with the porter tokenizer and rowid = message id', (t) => {
  const db = freshDatabase(t)
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'message_search_index'").pluck().get() as string
  assert.match(sql, /USING fts5\s*\(\s*body\s*,\s*tokenize\s*=\s*porter\s*\)/i)
  db.prepare('INSERT INTO message_search_index (rowid, body) VALUES (?, ?)').run(42, 'The dogs were running')
  assert.deepEqual(db.prepare("SELECT rowid FROM message_search_index WHERE message_search_index MATCH 'run'").pluck().all(), [42])
})

test('schema_migrations records every upstream Rails migration version', (t) => {
  const db = freshDatabase(t)
  const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()
  assert.deepEqual(versions, [...expected.schema_migrations].sort())
  assert.equal(db.prepare("SELECT value FROM ar_internal_metadata WHERE key = 'environment'").pluck().get(), 'production')
})

test('our own migrations add the message page indexes', (t) => {
  const db = freshDatabase(t)
  const names = (db.pragma('index_list("messages")') as { name: string }[]).map((i) => i.name)
  for (const name of OUR_INDEXES) assert.ok(names.includes(name), name)
  const plan = db.prepare('EXPLAIN QUERY PLAN SELECT id FROM messages WHERE room_id = 1 ORDER BY created_at DESC LIMIT 40').all() as { detail: string }[]
  assert.match(plan.map((p) => p.detail).join(' '), /index_messages_on_room_id_and_created_at/)
})

test('our own migrations let a sidebar read the oldest active people off an index', (t) => {
  const db = freshDatabase(t)
  const plan = db.prepare('EXPLAIN QUERY PLAN SELECT id FROM users WHERE status = 0 ORDER BY created_at, id LIMIT 20').all() as { detail: string }[]
  const details = plan.map((p) => p.detail).join(' ')
  assert.match(details, /campfire_index_users_on_status_and_created_at/)
  assert.doesNotMatch(details, /TEMP B-TREE/, 'no sort of every user')
})

test('a database Rails created gets only the additive migrations it lacks', (t) => {
  const path = join(tempStorage(t), 'rails.sqlite3')
  execFileSync('sqlite3', [path], { input: readFileSync(join(MIGRATIONS, '001-initial-schema.sql')) })
  const db = openConnection(path)
  t.after(() => db.close())
  db.prepare("INSERT INTO accounts (name, join_code, singleton_guard, created_at, updated_at) VALUES ('Campfire', 'abcd-efgh-ijkl', 0, '2026-01-01', '2026-01-01')").run()
  const applied = migrate(db, MIGRATIONS)
  assert.ok(!applied.includes('001-initial-schema.sql'))
  assert.ok(applied.includes('002-message-page-indexes.sql'))
  assert.ok(applied.includes('003-cache-versions.sql'))
  assert.equal(db.prepare('SELECT count(*) FROM accounts').pluck().get(), 1)
  assert.deepEqual(migrate(db, MIGRATIONS), [], 'a second boot applies nothing')
})

test('the database runs in WAL mode with a busy timeout', (t) => {
  const db = freshDatabase(t)
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal')
  assert.equal(db.pragma('busy_timeout', { simple: true }), 5000)
  assert.equal(db.pragma('foreign_keys', { simple: true }), 1)
})

test('worker processes booting together on a fresh file apply each migration once between them', async (t) => {
  const path = join(tempStorage(t), 'workers.sqlite3')
  const script = fileURLToPath(new URL('../support/migrating-process.ts', import.meta.url))
  const workers = Array.from({ length: 4 }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, path, MIGRATIONS], { stdio: ['pipe', 'pipe', 'inherit'] })
    const worker = { child, output: '', exited: once(child, 'exit') as Promise<[number | null, string | null]> }
    child.stdout!.on('data', (chunk: Buffer) => (worker.output += chunk))
    return worker
  })
  t.after(() => workers.forEach(({ child }) => child.exitCode === null && child.kill()))
  // Every one is ready to migrate before any is told to, so they all start together.
  for (const worker of workers) while (!worker.output.includes('ready\n')) await Promise.race([once(worker.child.stdout!, 'data'), worker.exited])
  for (const { child } of workers) child.stdin!.write('go\n')
  const applied: string[] = []
  for (const worker of workers) {
    assert.deepEqual(await worker.exited, [0, null], worker.output)
    applied.push(...(JSON.parse(worker.output.trim().split('\n').at(-1)!) as string[]))
  }
  assert.deepEqual(applied.sort(), readMigrations(MIGRATIONS).map((m) => m.name))
  const db = openConnection(path)
  t.after(() => db.close())
  assert.equal(db.pragma('user_version', { simple: true }), readMigrations(MIGRATIONS).at(-1)!.version)
})
