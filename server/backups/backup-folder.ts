// What a backup folder holds and how its parts are copied, for `backup` and `restore`:
//
//   campfire-backup-2026-12-01T20-00-00Z/
//     manifest.json            what was backed up, when, from which RAILS_ENV
//     db/<RAILS_ENV>.sqlite3   the database, one self-contained file (journal_mode=DELETE)
//     files/                   the Active Storage root (<storage>/files) without uploads in progress
//     secret_key_base          the generated SECRET_KEY_BASE, when the storage folder held one
import BetterSqlite3 from 'better-sqlite3'
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { listFiles } from '../lib/files.ts'

export const MANIFEST = 'manifest.json'
export const FOLDER_PREFIX = 'campfire-backup-'

export interface Manifest {
  format: 1
  createdAt: string
  environment: string
  // Relative to the backup folder.
  database: string
  schemaVersion: number
  files: { count: number; bytes: number }
  secretKeyBase: boolean
}

export class BackupProblem extends Error {}

// campfire-backup-2026-12-01T20-00-00Z: sorts by date and has no characters a shell or Windows minds.
export function backupFolderName(at: Date): string {
  return FOLDER_PREFIX + at.toISOString().replace(/\.\d{3}Z$/, 'Z').replaceAll(':', '-')
}

export function readManifest(folder: string): Manifest {
  const path = join(folder, MANIFEST)
  if (!existsSync(path)) throw new BackupProblem(`${folder} is not a finished backup: it has no ${MANIFEST}`)
  let manifest: Manifest
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest
  } catch (error) {
    throw new BackupProblem(`${path} cannot be read (${(error as Error).message})`)
  }
  if (manifest.format !== 1 || typeof manifest.database !== 'string') throw new BackupProblem(`${path} is not a backup manifest this version reads`)
  // The database is always db/<env>.sqlite3 inside the backup: never a path out of it.
  if (!/^db\/[A-Za-z0-9_-]+\.sqlite3$/.test(manifest.database)) throw new BackupProblem(`${path} names its database as "${manifest.database}", not db/<env>.sqlite3`)
  if (!existsSync(join(folder, manifest.database))) throw new BackupProblem(`${folder} has no ${manifest.database}`)
  return manifest
}

// "ok", or SQLite's list of what is wrong with the file.
export function integrityOf(db: BetterSqlite3.Database): string {
  const rows = db.pragma('integrity_check') as { integrity_check: string }[]
  return rows.map((row) => row.integrity_check).join('; ')
}

// A backup's own database file (journal_mode=DELETE), which a read-only connection leaves as it was.
export function openReadOnly(path: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(path, { readonly: true, fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  return db
}

// The live database, for reading only. Not opened read-only: a read-only connection to a WAL
// database leaves -wal and -shm files behind when it is the only one (the server stopped), owned
// by whoever ran the script, which can keep the server's own user from opening the file later.
// The last read-write connection to close removes them, and query_only keeps this one from writing.
export function openLiveForReading(path: string): BetterSqlite3.Database {
  const db = new BetterSqlite3(path, { fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  db.pragma('query_only = ON')
  return db
}

// Copies every file below `from` to the same place below `to`, leaving out the top-level folders
// named in `skip`. A file that goes away while the copy runs (a purged blob) is left out, not an
// error: the live folder changes as the server works.
export function copyFiles(from: string, to: string, skip: readonly string[] = []): { count: number; bytes: number; paths: Set<string> } {
  mkdirSync(to, { recursive: true })
  const paths = new Set<string>()
  let bytes = 0
  for (const source of listFiles(from)) {
    const path = relative(from, source)
    if (skip.includes(path.split(sep)[0]!)) continue
    const target = join(to, path)
    mkdirSync(dirname(target), { recursive: true })
    try {
      copyFileSync(source, target)
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT' && !existsSync(source)) continue
      throw error
    }
    bytes += statSync(target).size
    paths.add(path)
  }
  return { count: paths.size, bytes, paths }
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}
