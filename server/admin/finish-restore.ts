// ONCE's /hooks/post-restore: after ONCE has put a backed-up storage folder back (the server not
// yet started on it), the snapshot /hooks/pre-backup made replaces the database that was copied
// live, and that database's -wal and -shm files go: they belong to the live copy, not to the
// snapshot, and SQLite would otherwise replay them onto it. As `npm run restore`, the snapshot is
// checked first and written under a temporary name renamed into place. Without a snapshot (a
// folder backed up without the hook) nothing changes.
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { DatabaseInUse, holdDatabaseAlone, holdDatabaseAloneIfPresent, type DatabaseLock } from '../lib/database-lock.ts'
import { integrityOf, openReadOnly } from '../backups/backup-folder.ts'
import { fail, readCommandLine, STORAGE_NOTES, scriptStorage } from './support/command-line.ts'

const NAME = 'finish-restore'
let lock: DatabaseLock | null = null

readCommandLine({
  name: NAME,
  summary: [
    "ONCE's post-restore hook (/hooks/post-restore in the image): puts the snapshot in",
    '<storage>/backups/<RAILS_ENV>.sqlite3 back as the database and removes the stale -wal and',
    '-shm files. Does nothing when there is no snapshot.',
  ].join('\n'),
  options: {},
  notes: STORAGE_NOTES + '\nRun it before the server starts on the restored folder.',
})

const location = scriptStorage(NAME)
// Never beside a running server: it would go on writing to the file this replaces, and what it
// acknowledged from then on would be lost. Held until the script exits.
holdAlone(false)
const snapshot = join(location.storagePath, 'backups', basename(location.databasePath))
if (!existsSync(snapshot)) {
  console.log(`no snapshot at ${snapshot}: the database is left as restored`)
  process.exit(0)
}

const db = openReadOnly(snapshot)
const integrity = integrityOf(db)
db.close()
if (integrity !== 'ok') fail(NAME, `${snapshot} fails PRAGMA integrity_check (${integrity}); the database is left as restored`)

const incoming = join(dirname(location.databasePath), `.${basename(location.databasePath)}.restoring`)
try {
  mkdirSync(dirname(location.databasePath), { recursive: true })
  holdAlone(true)
  copyFileSync(snapshot, incoming)
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(location.databasePath + suffix, { force: true })
  renameSync(incoming, location.databasePath)
} catch (error) {
  rmSync(incoming, { force: true })
  fail(NAME, (error as Error).message)
}
console.log(`${location.databasePath} restored from ${snapshot}`)

// Checked first without writing anything (the lock file is there whenever a server has run), then
// held from the first write to the end.
function holdAlone(write: boolean): void {
  try {
    lock ??= write ? holdDatabaseAlone(location.databasePath) : holdDatabaseAloneIfPresent(location.databasePath)
  } catch (error) {
    if (error instanceof DatabaseInUse) fail(NAME, error.message)
    throw error
  }
}
