// `npm run restore BACKUP`: puts a backup folder made by `npm run backup` into an empty storage
// folder. It never overwrites: when the target already has a database, any stored file or a
// different secret_key_base, it says so and writes nothing. Everything is checked before the
// first write, and the database is written last, under a temporary name renamed into place, so
// a server pointed at a half-restored folder finds no database rather than one without files.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { StorageLocation } from '../config.ts'
import { DatabaseInUse, holdDatabaseAlone, holdDatabaseAloneIfPresent, type DatabaseLock } from '../lib/database-lock.ts'
import { listFiles } from '../lib/files.ts'
import { BackupProblem, copyFiles, integrityOf, megabytes, openReadOnly, readManifest, type Manifest } from '../backups/backup-folder.ts'
import { fail, readCommandLine, STORAGE_NOTES, usageError, scriptStorage } from './support/command-line.ts'
import { ReplicaProblem, restoreFromReplica } from './support/replica-restore.ts'
import { redacted } from '../litestream/binary.ts'

const NAME = 'restore'
let lock: DatabaseLock | null = null

const { values, positionals } = readCommandLine({
  name: NAME,
  arguments: 'BACKUP | --from-replica URL',
  positionals: { min: 0, max: 1 },
  summary: [
    'Restores BACKUP (a campfire-backup-… folder made by `npm run backup`) into an empty storage',
    'folder: the database as <storage>/db/<RAILS_ENV>.sqlite3, the files into <storage>/files, and',
    'secret_key_base when the backup has one. Refuses, writing nothing, when the storage folder',
    'already has that database, any stored file, or a different secret_key_base.',
    'With --from-replica URL instead, restores the database alone from the Litestream replica at URL',
    '(LITESTREAM_REPLICA_URL), as it was last shipped or at --timestamp; refuses when the storage',
    'folder already has that database.',
  ].join('\n'),
  options: {
    'from-replica': { type: 'string', value: 'URL', description: 'restore the database from this Litestream replica instead of a backup folder' },
    timestamp: { type: 'string', value: 'TIME', description: 'with --from-replica: the database as it was at TIME (ISO 8601, e.g. 2026-12-04T18:30:00Z)' },
    to: { type: 'string', value: 'DIR', description: 'the storage folder to restore into (default CAMPFIRE_STORAGE_PATH, else ./storage)' },
  },
  notes: STORAGE_NOTES + '\nStop the server using the storage folder first; start it again once the restore is done.',
})

const replicaUrl = values['from-replica']
if (replicaUrl === undefined && positionals[0] === undefined) usageError(NAME, 'needs BACKUP (a backup folder) or --from-replica URL')
if (replicaUrl !== undefined && positionals[0] !== undefined) usageError(NAME, 'takes BACKUP or --from-replica URL, not both')
if (values.timestamp !== undefined && replicaUrl === undefined) usageError(NAME, '--timestamp goes with --from-replica')
if (replicaUrl !== undefined) {
  const target = scriptStorage(NAME, values.to === undefined ? process.env : { ...process.env, CAMPFIRE_STORAGE_PATH: values.to })
  holdAlone(target)
  const present = ['', '-wal', '-shm', '-journal'].map((suffix) => target.databasePath + suffix).filter((path) => existsSync(path))
  if (present.length > 0) fail(NAME, `refusing to overwrite ${target.storagePath}: ${present.map((path) => `${path} exists`).join('; ')}. Nothing was written; restore into an empty storage folder.`)
  try {
    mkdirSync(join(target.storagePath, 'db'), { recursive: true })
    holdAlone(target, true)
    const path = restoreFromReplica(replicaUrl, values.timestamp, target)
    process.stdout.write(`Restored the database from ${redacted(replicaUrl)}${values.timestamp ? ` as of ${values.timestamp}` : ''} into ${path}\n`)
    process.stdout.write('A replica holds the database only: restore the files under files/ from a backup, and start the server with the SECRET_KEY_BASE it ran with.\n')
    process.exit(0)
  } catch (error) {
    if (error instanceof ReplicaProblem || /Litestream/.test((error as Error).message)) fail(NAME, (error as Error).message)
    throw error
  }
}

const backup = resolve(positionals[0]!)
let manifest: Manifest
try {
  manifest = readManifest(backup)
} catch (error) {
  if (error instanceof BackupProblem) fail(NAME, error.message)
  throw error
}

const backupSecret = join(backup, 'secret_key_base')
if (manifest.secretKeyBase && !existsSync(backupSecret)) fail(NAME, `${backup} should hold secret_key_base and does not; nothing was written`)

const target = scriptStorage(NAME, values.to === undefined ? process.env : { ...process.env, CAMPFIRE_STORAGE_PATH: values.to })
holdAlone(target)
const problems = [
  ...['', '-wal', '-shm', '-journal'].map((suffix) => target.databasePath + suffix).filter((path) => existsSync(path)).map((path) => `${path} exists`),
  ...(listFiles(target.filesPath).length > 0 ? [`${target.filesPath} is not empty`] : []),
  ...(manifest.secretKeyBase && existsSync(target.secretKeyBasePath) && !sameContent(target.secretKeyBasePath, backupSecret) ? [`${target.secretKeyBasePath} holds a different secret`] : []),
]
if (problems.length > 0) fail(NAME, `refusing to overwrite ${target.storagePath}: ${problems.join('; ')}. Nothing was written; restore into an empty storage folder.`)

const database = openReadOnly(join(backup, manifest.database))
const integrity = integrityOf(database)
database.close()
if (integrity !== 'ok') fail(NAME, `${join(backup, manifest.database)} fails PRAGMA integrity_check (${integrity}); nothing was written`)

const incoming = join(target.storagePath, 'db', `.${target.environment}.sqlite3.restoring`)
try {
  mkdirSync(join(target.storagePath, 'db'), { recursive: true })
  holdAlone(target, true)
  const files = copyFiles(join(backup, 'files'), target.filesPath)
  if (manifest.secretKeyBase && !existsSync(target.secretKeyBasePath)) copyFileSync(backupSecret, target.secretKeyBasePath)
  copyFileSync(join(backup, manifest.database), incoming)
  renameSync(incoming, target.databasePath)
  const renamed = manifest.environment === target.environment ? '' : ` (backed up as RAILS_ENV=${manifest.environment})`
  process.stdout.write(`Restored the backup of ${manifest.createdAt} into ${target.storagePath}: ${target.databasePath}${renamed} and ${files.count} files (${megabytes(files.bytes)})${manifest.secretKeyBase ? ' and secret_key_base' : ''}\n`)
  if (!manifest.secretKeyBase) process.stdout.write('The backup has no secret_key_base: start the server with the SECRET_KEY_BASE it ran with, or everyone is signed out.\n')
} catch (error) {
  rmSync(incoming, { force: true })
  fail(NAME, `${(error as Error).message}; the database was not put in place`)
}

// Nothing is restored beside a running server: its folder is refused while a server has the
// database open (checked first, writing nothing: see holdDatabaseAloneIfPresent), and held from
// the first write (`write`) to the end, so none starts on it half-restored.
function holdAlone(target: StorageLocation, write = false): void {
  try {
    lock ??= write ? holdDatabaseAlone(target.databasePath) : holdDatabaseAloneIfPresent(target.databasePath)
  } catch (error) {
    if (error instanceof DatabaseInUse) fail(NAME, error.message)
    throw error
  }
}

function sameContent(a: string, b: string): boolean {
  return readFileSync(a, 'utf8').trim() === readFileSync(b, 'utf8').trim()
}
