// `npm run backup`: a consistent copy of the database and the files while the server runs.
// The database is copied with SQLite's online backup API in one step, that is inside one read
// transaction: in WAL mode that is a snapshot of the last commit before it began, and the server
// goes on writing meanwhile. The files come after it, so every blob the copied database names was
// already on disk (a file is written before its row is committed). The copy is checked with
// PRAGMA integrity_check and only then renamed from its hidden working name to the dated one.
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { blobPath } from '../lib/files.ts'
import { backupFolderName, copyFiles, integrityOf, MANIFEST, megabytes, openLiveForReading, type Manifest } from './support/backup-folder.ts'
import { fail, readCommandLine, STORAGE_NOTES, scriptStorage } from './support/command-line.ts'

const NAME = 'backup'
const EVERY_PAGE = 0x7fffffff

const { values } = readCommandLine({
  name: NAME,
  summary: [
    'Copies the database (SQLite online backup, safe while the server runs) and the uploaded files',
    'into a new folder named campfire-backup-<UTC date and time>, checks the copy with',
    'PRAGMA integrity_check, and prints where it is. Restore it with `npm run restore`.',
  ].join('\n'),
  options: {
    to: { type: 'string', value: 'DIR', description: 'the folder the backup folder is made in (default <storage>/backups)' },
  },
  notes: STORAGE_NOTES + '\nSECRET_KEY_BASE and the VAPID keys set in the environment are not in the backup: keep them with it.',
})

const location = scriptStorage(NAME)
if (!existsSync(location.databasePath)) fail(NAME, `there is no database at ${location.databasePath} (set CAMPFIRE_STORAGE_PATH and RAILS_ENV as for the server)`)

const parent = resolve(values.to ?? join(location.storagePath, 'backups'))
const startedAt = new Date()
const name = backupFolderName(startedAt)
const folder = join(parent, name)
const working = join(parent, `.${name}.partial`)
if (existsSync(folder)) fail(NAME, `${folder} already exists; wait a second and run it again`)

try {
  rmSync(working, { recursive: true, force: true })
  mkdirSync(join(working, 'db'), { recursive: true })
  const databaseFile = join('db', `${location.environment}.sqlite3`)
  const copyPath = join(working, databaseFile)

  const source = openLiveForReading(location.databasePath)
  try {
    await source.backup(copyPath, { progress: () => EVERY_PAGE })
  } finally {
    source.close()
  }

  const copy = new BetterSqlite3(copyPath)
  let integrity: string, schemaVersion: number, blobKeys: string[]
  try {
    copy.pragma('journal_mode = DELETE')
    integrity = integrityOf(copy)
    schemaVersion = copy.pragma('user_version', { simple: true }) as number
    blobKeys = copy.prepare('SELECT key FROM active_storage_blobs').pluck().all() as string[]
  } finally {
    copy.close()
  }
  if (integrity !== 'ok') throw new Error(`the copied database fails PRAGMA integrity_check: ${integrity}`)

  // tmp/ holds uploads still arriving; a finished one is renamed out of it before its row exists.
  const files = copyFiles(location.filesPath, join(working, 'files'), ['tmp'])
  const missing = blobKeys.filter((key) => {
    const path = blobPath('', key)
    return path !== null && !files.paths.has(path)
  })

  const secretKeyBase = existsSync(location.secretKeyBasePath)
  if (secretKeyBase) copyFileSync(location.secretKeyBasePath, join(working, 'secret_key_base'))

  const manifest: Manifest = {
    format: 1,
    createdAt: startedAt.toISOString(),
    environment: location.environment,
    database: databaseFile,
    schemaVersion,
    files: { count: files.count, bytes: files.bytes },
    secretKeyBase,
  }
  writeFileSync(join(working, MANIFEST), JSON.stringify(manifest, null, 2) + '\n')
  renameSync(working, folder)

  const size = megabytes(statSync(join(folder, databaseFile)).size)
  if (missing.length > 0) process.stderr.write(`${NAME}: warning: ${missing.length} stored file(s) the database names were not on disk (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''})\n`)
  process.stdout.write(`Backed up ${location.databasePath} (${size}, integrity ok) and ${files.count} files (${megabytes(files.bytes)})${secretKeyBase ? ' and secret_key_base' : ''} to\n${folder}\n`)
} catch (error) {
  rmSync(working, { recursive: true, force: true })
  fail(NAME, `${(error as Error).message}; nothing was kept`)
}
