import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { readMigrations } from '../../server/models/database.ts'
import { Store } from '../../server/models/store.ts'
import { definedTriggers } from '../../server/models/triggers.ts'
import { tempStorage } from '../helper.ts'

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url))

function triggers(store: Store): string[] {
  return store.writeDb.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").pluck().all() as string[]
}

function freshFile(t: { after: (fn: () => void) => void }): string {
  const path = join(tempStorage(t), 'db.sqlite3')
  const store = new Store({ path, migrationsDir: MIGRATIONS })
  store.writeDb.exec(`INSERT INTO users (id, name, created_at, updated_at) VALUES (1, 'Ada', '2026-01-01', '2026-01-01');
    INSERT INTO rooms (id, name, type, creator_id, created_at, updated_at) VALUES (1, 'Lobby', 'Rooms::Open', 1, '2026-01-01', '2026-01-01');
    INSERT INTO messages (id, room_id, creator_id, client_message_id, created_at, updated_at) VALUES (1, 1, 1, 'a', '2026-01-01', '2026-01-01');`)
  store.close()
  return path
}

test('the migrations define 32 triggers on Rails tables, all present in a fresh file', (t) => {
  const store = new Store({ path: freshFile(t), migrationsDir: MIGRATIONS })
  t.after(() => store.close())
  const defined = [...definedTriggers(readMigrations(MIGRATIONS)).keys()].sort()
  assert.equal(defined.length, 32)
  assert.deepEqual(triggers(store), defined)
})

test('a trigger dropped with the sqlite3 command is created again at the next boot, and every cached version moves', (t) => {
  const path = freshFile(t)
  execFileSync('sqlite3', [path, 'DROP TRIGGER campfire_boost_inserted;'])
  const store = new Store({ path, migrationsDir: MIGRATIONS })
  t.after(() => store.close())
  assert.deepEqual(store.appliedMigrations, ['trigger campfire_boost_inserted (restored)'])
  assert.ok(triggers(store).includes('campfire_boost_inserted'))
  const counter = store.writeDb.prepare("SELECT value FROM campfire_cache_versions WHERE name = 'counter'").pluck().get()
  assert.equal(store.writeDb.prepare('SELECT presentation_version FROM messages WHERE id = 1').pluck().get(), counter, 'writes made without the trigger are not served from a stale cache')
  const before = store.writeDb.prepare('SELECT presentation_version FROM messages WHERE id = 1').pluck().get() as number
  store.writeDb.prepare("INSERT INTO boosts (message_id, booster_id, content, created_at, updated_at) VALUES (1, 1, 'x', '2026-01-01', '2026-01-01')").run()
  assert.ok((store.writeDb.prepare('SELECT presentation_version FROM messages WHERE id = 1').pluck().get() as number) > before, 'the restored trigger fires')
})

test('a table rebuilt the way a Rails migration rebuilds it on SQLite gets its triggers back at boot, rows and our columns kept', (t) => {
  const path = freshFile(t)
  // Rails' alter_table: copy into a temporary table, drop the table (its triggers go with it), copy back.
  execFileSync('sqlite3', [path], { input: `BEGIN;
    CREATE TEMPORARY TABLE "arooms" AS SELECT * FROM rooms;
    PRAGMA foreign_keys = OFF;
    DROP TABLE rooms;
    CREATE TABLE "rooms" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "created_at" datetime(6) NOT NULL, "creator_id" bigint NOT NULL, "name" varchar, "type" varchar NOT NULL, "updated_at" datetime(6) NOT NULL, "content_version" integer DEFAULT 0 NOT NULL);
    INSERT INTO rooms SELECT * FROM arooms;
    COMMIT;` })
  const store = new Store({ path, migrationsDir: MIGRATIONS })
  t.after(() => store.close())
  assert.deepEqual(store.appliedMigrations.sort(), ['trigger campfire_direct_room_touched (restored)', 'trigger campfire_room_renamed (restored)'])
  assert.equal(store.writeDb.prepare('SELECT name FROM rooms WHERE id = 1').pluck().get(), 'Lobby')
})

test('a boot with every trigger in place restores nothing and moves no version', (t) => {
  const path = freshFile(t)
  const store = new Store({ path, migrationsDir: MIGRATIONS })
  t.after(() => store.close())
  assert.deepEqual(store.appliedMigrations, [])
})
