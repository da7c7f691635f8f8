// Takes one backup into a destination (a folder or an S3 bucket), for `npm run backup` and for
// the schedule. The database is copied with SQLite's online backup API in one step, that is
// inside one read transaction: in WAL mode that is a snapshot of the last commit before it began,
// and the server goes on writing meanwhile. The files come after it, so every blob the copied
// database names was already on disk (a file is written before its row is committed). The copy
// is checked with PRAGMA integrity_check before it is sent, and what arrived is read back and
// checked again (every file there with its size, the database's integrity) before the manifest
// is written, which is what makes a backup complete.
import BetterSqlite3 from 'better-sqlite3'
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname, join, relative, sep } from 'node:path'
import { backupFolderName, integrityOf, openLiveForReading, type Manifest } from './backup-folder.ts'
import type { StorageLocation } from '../config.ts'
import { blobPath, listFiles } from '../lib/files.ts'
import type { Destination } from './destination.ts'

const EVERY_PAGE = 0x7fffffff
// Uploads still arriving: a finished one is renamed out of it before its row exists.
const SKIPPED_FOLDERS = ['tmp']

export interface TakenBackup {
  name: string
  // The folder, or the s3:// URL, the backup is in.
  where: string
  databaseBytes: number
  files: { count: number; bytes: number }
  secretKeyBase: boolean
  // Blobs the database names that were not on disk.
  missing: string[]
}

export async function takeBackup(location: StorageLocation, destination: Destination, options: { scheduled: boolean; at?: Date }): Promise<TakenBackup> {
  if (!existsSync(location.databasePath)) throw new Error(`there is no database at ${location.databasePath}`)
  const startedAt = options.at ?? new Date()
  const name = backupFolderName(startedAt)
  const writer = await destination.begin(name, { scheduled: options.scheduled })
  try {
    const database = `db/${location.environment}.sqlite3`
    const copyPath = join(writer.stagingDir, database)
    await mkdir(dirname(copyPath), { recursive: true })
    const source = openLiveForReading(location.databasePath)
    try {
      await source.backup(copyPath, { progress: () => EVERY_PAGE })
    } finally {
      source.close()
    }
    const { schemaVersion, blobKeys } = checkCopy(copyPath)

    const written = new Map<string, number>()
    written.set(database, (await writer.put(database, copyPath))!)
    const files = { count: 0, bytes: 0 }
    const copied = new Set<string>()
    for (const file of listFiles(location.filesPath)) {
      const path = relative(location.filesPath, file)
      if (SKIPPED_FOLDERS.includes(path.split(sep)[0]!)) continue
      const backupPath = `files/${path.split(sep).join('/')}`
      const bytes = await writer.put(backupPath, file)
      if (bytes === null) continue
      written.set(backupPath, bytes)
      copied.add(path)
      files.count++
      files.bytes += bytes
    }
    const missing = blobKeys.filter((key) => {
      const path = blobPath('', key)
      return path !== null && !copied.has(path)
    })
    const secretBytes = existsSync(location.secretKeyBasePath) ? await writer.put('secret_key_base', location.secretKeyBasePath) : null
    const secretKeyBase = secretBytes !== null
    if (secretKeyBase) written.set('secret_key_base', secretBytes)

    await writer.verify(written, database)
    const manifest: Manifest = {
      format: 1,
      createdAt: startedAt.toISOString(),
      environment: location.environment,
      database,
      schemaVersion,
      files: { count: files.count, bytes: files.bytes },
      secretKeyBase,
    }
    const where = await writer.finish(JSON.stringify(manifest, null, 2) + '\n')
    return { name, where, databaseBytes: written.get(database)!, files, secretKeyBase, missing }
  } catch (error) {
    await writer.abort().catch(() => undefined)
    throw error
  }
}

// A self-contained file (journal_mode=DELETE) that passes PRAGMA integrity_check.
function checkCopy(path: string): { schemaVersion: number; blobKeys: string[] } {
  const copy = new BetterSqlite3(path)
  try {
    copy.pragma('journal_mode = DELETE')
    const integrity = integrityOf(copy)
    if (integrity !== 'ok') throw new Error(`the copied database fails PRAGMA integrity_check: ${integrity}`)
    return {
      schemaVersion: copy.pragma('user_version', { simple: true }) as number,
      blobKeys: copy.prepare('SELECT key FROM active_storage_blobs').pluck().all() as string[],
    }
  } finally {
    copy.close()
  }
}
