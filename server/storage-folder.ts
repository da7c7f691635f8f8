// The storage folder, checked at boot before anything is written to it: made when it is missing
// (with db/ inside), writable, and its database, when there is one, a SQLite file. Each problem is
// one line for "Campfire cannot start: …" rather than a stack from wherever it would otherwise
// surface first.
import { closeSync, existsSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { makeFolder } from './lib/make-folder.ts'
import type { StorageLocation } from './config.ts'

export class StorageProblem extends Error {}

const SQLITE_HEADER = 'SQLite format 3\0'

export function checkStorage(location: Pick<StorageLocation, 'storagePath' | 'databasePath'>): void {
  const db = dirname(location.databasePath)
  try {
    makeFolder(db)
  } catch (error) {
    throw new StorageProblem(`the storage folder ${location.storagePath} (CAMPFIRE_STORAGE_PATH) cannot be used: ${reason(error)}`)
  }
  for (const folder of [location.storagePath, db]) {
    const probe = join(folder, `.campfire-write-test-${process.pid}`)
    try {
      writeFileSync(probe, '')
      rmSync(probe)
    } catch (error) {
      throw new StorageProblem(`the storage folder ${folder} is not writable: ${reason(error)}`)
    }
  }
  if (existsSync(location.databasePath)) checkDatabaseFile(location.databasePath)
}

function checkDatabaseFile(path: string): void {
  const stat = statSync(path)
  if (!stat.isFile()) throw new StorageProblem(`${path} is not a file`)
  if (stat.size === 0) return
  const header = Buffer.alloc(16)
  let read = 0
  try {
    const fd = openSync(path, 'r')
    try {
      read = readSync(fd, header, 0, 16, 0)
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    throw new StorageProblem(`${path} cannot be read: ${reason(error)}`)
  }
  if (read < 16 || header.toString('latin1') !== SQLITE_HEADER) throw new StorageProblem(`${path} is not a SQLite database (move it away, or set CAMPFIRE_STORAGE_PATH or RAILS_ENV to another one)`)
}

function reason(error: unknown): string {
  return (error as Error).message
}
