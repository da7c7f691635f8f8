// Who has a database open, told by the operating system rather than guessed: beside
// <storage>/db/<RAILS_ENV>.sqlite3 lies <RAILS_ENV>.sqlite3.lock, an empty SQLite file used only
// for its lock. Every server process that opens the database (the only one, or a cluster's
// primary and each of its workers) holds a shared lock on it for as long as it lives; a script
// that replaces the database (restore, finish-restore) needs it alone, and is refused while any
// of them holds it. The locks are the kernel's (SQLite's fcntl locks), so a process killed with
// kill -9 lets go of its lock as it dies: a lock file left behind is never mistaken for a server.
// The file itself is never removed: removing a lock file someone may be opening is a race.
import { existsSync } from 'node:fs'
import BetterSqlite3 from 'better-sqlite3'

export class DatabaseInUse extends Error {}

export interface DatabaseLock {
  release(): void
}

export function lockPathOf(databasePath: string): string {
  return `${databasePath}.lock`
}

// Held by the processes kept alive below, so the lock lasts as long as the process does.
const held = new Set<BetterSqlite3.Database>()

// A server's share: many may hold it at once; refused only while a script holds the file alone.
export function shareDatabase(databasePath: string): DatabaseLock {
  return hold(databasePath, (db) => {
    db.exec('BEGIN')
    db.prepare('SELECT count(*) FROM sqlite_master').get()
  }, `${databasePath} is being restored by another process (restore or finish-restore); start the server once it has finished`)
}

// A script's sole hold: refused while any server (or another such script) has the database open.
export function holdDatabaseAlone(databasePath: string): DatabaseLock {
  return hold(databasePath, (db) => db.exec('BEGIN EXCLUSIVE'), `a Campfire server has ${databasePath} open; stop it first (nothing was changed)`)
}

// The same, when the lock file is there. Every server makes it before it opens the database, so
// without it none has the database open, and nothing is written to find out; a script takes
// holdDatabaseAlone before its first write all the same, for a server that starts meanwhile.
export function holdDatabaseAloneIfPresent(databasePath: string): DatabaseLock | null {
  return existsSync(lockPathOf(databasePath)) ? holdDatabaseAlone(databasePath) : null
}

function hold(databasePath: string, take: (db: BetterSqlite3.Database) => void, busy: string): DatabaseLock {
  const db = new BetterSqlite3(lockPathOf(databasePath), { timeout: 0 })
  try {
    // Nothing is ever written to it: no journal file beside it, even when a holder is killed.
    db.pragma('journal_mode = MEMORY')
    take(db)
  } catch (error) {
    db.close()
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DatabaseInUse(busy)
    throw error
  }
  held.add(db)
  return {
    release() {
      if (!held.delete(db)) return
      db.close()
    },
  }
}
