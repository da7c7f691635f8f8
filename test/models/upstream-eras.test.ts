import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildApp } from '../../server/app.ts'
import { RailsSigning } from '../../server/lib/rails/signing.ts'
import { openConnection, readMigrations } from '../../server/models/database.ts'
import { Store } from '../../server/models/store.ts'
import { UnknownSchemaError } from '../../server/models/upstream-eras.ts'
import { SECRET_KEY_BASE, tempStorage, testConfig } from '../helper.ts'
import { freePort } from '../support/ports.ts'
import { compiledWorkers } from '../support/compiled-server.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const MIGRATIONS = join(ROOT, 'migrations')
const ERAS = fileURLToPath(new URL('../fixtures/upstream-eras/', import.meta.url))
const expected = JSON.parse(readFileSync(new URL('../fixtures/upstream-schema.json', import.meta.url), 'utf8'))
const ROW_TABLES = ['accounts', 'users', 'rooms', 'memberships', 'messages', 'action_text_rich_texts', 'boosts', 'active_storage_blobs',
  'active_storage_attachments', 'sessions', 'webhooks', 'push_subscriptions', 'searches', 'message_search_index']

// An upstream database as Rails left it, made with the sqlite3 command from an era's fixture.
function eraDatabase(path: string, era: string, extraSql = ''): void {
  mkdirSync(dirname(path), { recursive: true })
  execFileSync('sqlite3', [path], { input: readFileSync(join(ERAS, `${era}.sql`), 'utf8') + extraSql, stdio: ['pipe', 'ignore', 'pipe'] })
}

function counts(path: string): Record<string, number> {
  const db = openConnection(path, { readonly: true })
  try {
    return Object.fromEntries(ROW_TABLES.map((table) => [table, db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number]))
  } finally {
    db.close()
  }
}

async function bootOn(t: TestContext, era: string) {
  const storage = tempStorage(t)
  const config = testConfig(storage)
  eraDatabase(config.databasePath, era)
  const before = counts(config.databasePath)
  const app = await buildApp({ config, logger: false, passwordCost: 4, compiledWorkers: await compiledWorkers() })
  t.after(() => app.close())
  await app.ready()
  return { app, config, before }
}

for (const era of ['2024-02-first-release', '2025-09-rails-8', '2025-11-bans', '2025-12-account-settings']) {
  test(`a database at upstream's ${era} schema boots with every row kept, the old session cookie and the room page`, async (t) => {
    const { app, config, before } = await bootOn(t, era)
    assert.deepEqual(counts(config.databasePath), before)
    assert.ok(app.store.prepareAllStatements() > 400, "every model's SQL compiles against the upgraded schema")

    const db = app.store.writeDb
    assert.deepEqual(db.prepare('SELECT id, status FROM users ORDER BY id').all(), [
      { id: 1, status: 0 }, { id: 2, status: 0 }, { id: 3, status: 1 }, { id: 4, status: 0 },
    ], 'users.active became users.status, the deactivated member kept deactivated')
    const versions = db.prepare('SELECT version FROM schema_migrations').pluck().all() as string[]
    for (const version of expected.schema_migrations) assert.ok(versions.includes(version), `schema_migrations records ${version}`)
    for (const [table, spec] of Object.entries<{ columns: { name: string }[] }>(expected.tables)) {
      const columns = (db.pragma(`table_info("${table}")`) as { name: string }[]).map((c) => c.name)
      for (const { name } of spec.columns) assert.ok(columns.includes(name), `${table}.${name}`)
    }

    const cookie = `session_token=${new RailsSigning(SECRET_KEY_BASE).signCookie('session_token', 'oldsessiontoken0001')}`
    const room = await app.inject({ method: 'GET', url: '/rooms/1', headers: { cookie } })
    assert.equal(room.statusCode, 200, room.body.slice(0, 500))
    assert.match(room.body, /Welcome to the old fire/)
    assert.match(room.body, /id="message_old-client-2"/)
    assert.match(room.body, /notes\.txt/)

    const form = (email: string) => ({ method: 'POST' as const, url: '/session', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      payload: `email_address=${encodeURIComponent(email)}&password=secret123456` })
    const bob = await app.inject(form('bob@example.com'))
    assert.equal(bob.statusCode, 302)
    assert.ok(bob.cookies.some((c) => c.name === 'session_token'), 'an active member signs in with the password Rails stored')
    const carol = await app.inject(form('carol@example.com'))
    assert.ok(!carol.cookies.some((c) => c.name === 'session_token'), 'a member deactivated under users.active stays out')
  })
}

function fileBytes(path: string): Buffer {
  return readFileSync(path)
}

test('a database from a newer upstream schema is refused by name and left byte for byte as it was', (t) => {
  const path = join(tempStorage(t), 'db', 'production.sqlite3')
  mkdirSync(dirname(path), { recursive: true })
  execFileSync('sqlite3', [path], { input: `PRAGMA journal_mode = WAL;\n${readFileSync(join(MIGRATIONS, '001-initial-schema.sql'), 'utf8')}\nINSERT INTO schema_migrations (version) VALUES ('20260301120000');`, stdio: ['pipe', 'ignore', 'pipe'] })
  const before = fileBytes(path)
  assert.throws(() => new Store({ path, migrationsDir: MIGRATIONS }), (error: Error) =>
    error instanceof UnknownSchemaError && /20260301120000/.test(error.message) && /newer than 20251212154340/.test(error.message))
  assert.ok(fileBytes(path).equals(before), 'not a byte written')
  assert.ok(!existsSync(`${path}-wal`) && !existsSync(`${path}-shm`), 'nothing left beside the file')
  const db = openConnection(path, { readonly: true })
  t.after(() => db.close())
  assert.equal(db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").pluck().get(), 0)
  assert.equal(db.pragma('user_version', { simple: true }), 0)
})

test('a database older than the first release is refused by name, unchanged', (t) => {
  const path = join(tempStorage(t), 'old.sqlite3')
  eraDatabase(path, '2024-02-first-release', "DELETE FROM schema_migrations WHERE version >= '20231215043540';")
  const before = fileBytes(path)
  assert.throws(() => new Store({ path, migrationsDir: MIGRATIONS }), /schema version 20231214195401, older than 20240209110503/)
  assert.ok(fileBytes(path).equals(before))
})

test('an upgrade step that fails stops the boot naming its version and writes nothing: the file is byte for byte as it was, still in its journal mode, nothing beside it', (t) => {
  const path = join(tempStorage(t), 'two-accounts.sqlite3')
  // Upstream's singleton guard cannot be added to a file holding two accounts.
  eraDatabase(path, '2025-09-rails-8', "INSERT INTO accounts (name, join_code, created_at, updated_at) VALUES ('Second', 'x', '2024-01-01', '2024-01-01');")
  const before = fileBytes(path)
  assert.throws(() => new Store({ path, migrationsDir: MIGRATIONS }), (error: Error) =>
    error instanceof UnknownSchemaError && /20251212154340 \(add_singleton_constraint_to_accounts\) failed/.test(error.message))
  assert.ok(fileBytes(path).equals(before), 'not a byte changed (the journal mode neither)')
  for (const suffix of ['-wal', '-shm', '-journal']) assert.ok(!existsSync(path + suffix), `no ${suffix} file left beside it`)
  const db = openConnection(path, { readonly: true })
  t.after(() => db.close())
  const columns = (db.pragma('table_info("users")') as { name: string }[]).map((c) => c.name)
  assert.ok(columns.includes('active') && !columns.includes('status'), 'the earlier steps were rolled back too')
  assert.equal(db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' OR name = 'bans'").pluck().get(), 0)
  assert.equal(db.prepare("SELECT max(version) FROM schema_migrations").pluck().get(), '20250825100959')
  assert.equal(db.pragma('user_version', { simple: true }), 0)
})

test('a database the old boot left half-migrated (our migrations on an old schema) is upgraded and completed', (t) => {
  const path = join(tempStorage(t), 'half.sqlite3')
  // What the boot before this fix left: 002 to 005 applied on users.active, then a crash at 006.
  const ours = ['002-message-page-indexes.sql', '003-cache-versions.sql', '004-sidebar-version-without-unread.sql', '005-rooms-by-creation.sql']
    .map((file) => readFileSync(join(MIGRATIONS, file), 'utf8')).join('\n')
  eraDatabase(path, '2024-02-first-release', `${ours}\nPRAGMA user_version = 5;`)
  const store = new Store({ path, migrationsDir: MIGRATIONS })
  t.after(() => store.close())
  assert.equal(store.writeDb.pragma('user_version', { simple: true }), Math.max(...readMigrations(MIGRATIONS).map((migration) => migration.version)))
  assert.equal(store.writeDb.prepare('SELECT count(*) FROM messages').pluck().get(), 3)
  assert.equal(store.writeDb.prepare('SELECT status FROM users WHERE id = 3').pluck().get(), 1)
})

test('the server process stops at boot on a newer schema with the version named and exit status 65', async (t) => {
  const storage = tempStorage(t)
  const path = join(storage, 'db', 'production.sqlite3')
  mkdirSync(dirname(path), { recursive: true })
  execFileSync('sqlite3', [path], { input: `PRAGMA journal_mode = WAL;\n${readFileSync(join(MIGRATIONS, '001-initial-schema.sql'), 'utf8')}\nINSERT INTO schema_migrations (version) VALUES ('20260301120000');`, stdio: ['pipe', 'ignore', 'pipe'] })
  const before = fileBytes(path)
  const child = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'main.ts')], {
    cwd: ROOT, encoding: 'utf8', timeout: 120_000,
    env: { PATH: process.env.PATH ?? '', CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, HTTP_PORT: String(await freePort()), DISABLE_SSL: 'true', LOG_LEVEL: 'silent' },
  })
  assert.equal(child.status, 65, child.stderr)
  assert.match(child.stderr, /Campfire cannot start: This database is at schema version 20260301120000, newer than 20251212154340/)
  assert.ok(fileBytes(path).equals(before))
})
