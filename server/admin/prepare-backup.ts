// ONCE's /hooks/pre-backup: before ONCE copies the storage folder, a consistent snapshot of the
// live database goes to <storage>/backups/<RAILS_ENV>.sqlite3, where upstream's hook puts it.
// ONCE then copies the folder (the snapshot with it) however busy the server is; the live db/
// files it copies alongside may be mid-write, and /hooks/post-restore puts the snapshot back.
// The snapshot is made as `npm run backup` makes its copy (SQLite's online backup API in one step,
// one read transaction), checked with PRAGMA integrity_check, and only then renamed into place.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { integrityOf, openLiveForReading } from '../backups/backup-folder.ts'
import { fail, readCommandLine, STORAGE_NOTES, scriptStorage } from './support/command-line.ts'

const NAME = 'prepare-backup'
const EVERY_PAGE = 0x7fffffff

readCommandLine({
  name: NAME,
  summary: [
    "ONCE's pre-backup hook (/hooks/pre-backup in the image): snapshots the live database into",
    '<storage>/backups/<RAILS_ENV>.sqlite3, safe while the server runs, for ONCE to copy with the',
    'rest of the storage folder. /hooks/post-restore puts it back in place after a restore.',
  ].join('\n'),
  options: {},
  notes: STORAGE_NOTES,
})

const location = scriptStorage(NAME)
if (!existsSync(location.databasePath)) fail(NAME, `there is no database at ${location.databasePath} (set CAMPFIRE_STORAGE_PATH and RAILS_ENV as for the server)`)

const folder = join(location.storagePath, 'backups')
const snapshot = join(folder, basename(location.databasePath))
const working = `${snapshot}.partial`
try {
  mkdirSync(folder, { recursive: true })
  rmSync(working, { force: true })
  const source = openLiveForReading(location.databasePath)
  try {
    await source.backup(working, { progress: () => EVERY_PAGE })
  } finally {
    source.close()
  }
  const copy = new BetterSqlite3(working)
  let integrity: string
  try {
    // One file, nothing beside it: ONCE copies it as it is.
    copy.pragma('journal_mode = DELETE')
    integrity = integrityOf(copy)
  } finally {
    copy.close()
  }
  if (integrity !== 'ok') throw new Error(`the snapshot fails PRAGMA integrity_check: ${integrity}`)
  renameSync(working, snapshot)
} catch (error) {
  rmSync(working, { force: true })
  fail(NAME, (error as Error).message)
}
console.log(`snapshot of ${location.databasePath} written to ${snapshot}`)
