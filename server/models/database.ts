import BetterSqlite3 from 'better-sqlite3'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { restoreMissingTriggers } from './triggers.ts'
import { pendingSteps, upgradeUpstream } from './upstream-eras.ts'

import type { Connection, Migration } from './connection.ts'

export type { Connection, Migration } from './connection.ts'

export interface OpenOptions {
  readonly?: boolean
  // Leave the file in the journal mode it has (an upgrade runs before the switch to WAL, so one
  // that fails leaves the file as it was found).
  keepJournalMode?: boolean
  synchronous?: 'NORMAL' | 'FULL'
}

// Stable plans. A database that has been ANALYZEd holds sqlite_stat4 samples, and SQLite then
// re-plans a statement whenever a new value is bound to a parameter compared with an indexed
// column, unless the statement has one table found by a unique key: about 10 µs on every call
// of a two-table lookup that itself takes 2 µs. Hot statements write such a parameter as `+?`,
// which the planner cannot look into, so it plans once, from sqlite_stat1 as it would without
// samples; the unary plus changes nothing else (a number stays a number, the index is used).
// Only on the value side: `+column` would keep the index from being used at all.

// WAL with synchronous=NORMAL: a committed transaction is in the WAL file before COMMIT
// returns, so it survives the process being killed; only an OS crash or power loss can
// lose the last commits. CAMPFIRE_SYNCHRONOUS=FULL adds an fsync per commit for that case.
export function openConnection(path: string, options: OpenOptions = {}): Connection {
  if (!options.readonly) mkdirSync(dirname(path), { recursive: true })
  const db = new BetterSqlite3(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false })
  db.pragma('busy_timeout = 5000')
  if (!options.readonly && !options.keepJournalMode) db.pragma('journal_mode = WAL')
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`)
  db.pragma('foreign_keys = ON')
  db.pragma('cache_size = -16000')
  db.pragma('mmap_size = 0')
  db.pragma('journal_size_limit = 67108864')
  db.pragma('wal_autocheckpoint = 16384')
  return db
}

export function readMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{3}-[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 3)), name: file, sql: readFileSync(join(dir, file), 'utf8') }))
}

function tableExists(db: Connection, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined
}

// Our position is PRAGMA user_version, which Rails never reads. A database that Rails created
// already holds the upstream schema, so it counts as past 001 and only gets what it lacks.
function position(db: Connection): number {
  const current = db.pragma('user_version', { simple: true }) as number
  return current === 0 && tableExists(db, 'accounts') ? 1 : current
}

// First where the file stands in upstream's history: an unknown or newer schema is refused before
// anything is written (UnknownSchemaError). An older upstream schema is brought to upstream's
// current one (server/models/upstream-eras.ts), then our own migrations run, then any trigger of
// ours that a rebuilt table lost is created again (server/models/triggers.ts).
//
// Brings an upstream schema to upstream's current one, in one transaction (none when there is
// nothing to do): the names of the steps applied.
export function upgradeFromUpstream(db: Connection): string[] {
  const steps = pendingSteps(db)
  return steps === 'fresh' ? [] : upgradeUpstream(db, steps)
}

// Each pending migration is checked again under the write lock: worker processes booting
// together on one file race to migrate it, and the first one applies what the others skip.
export function migrate(db: Connection, dir: string): string[] {
  const applied = upgradeFromUpstream(db)
  const migrations = readMigrations(dir)
  const current = position(db)
  for (const migration of migrations) {
    if (migration.version <= current) continue
    const ran = db.transaction(() => {
      if (migration.version <= position(db)) return false
      db.exec(migration.sql)
      db.pragma(`user_version = ${migration.version}`)
      return true
    }).immediate()
    if (ran) applied.push(migration.name)
  }
  for (const name of restoreMissingTriggers(db, migrations)) applied.push(`trigger ${name} (restored)`)
  return applied
}
