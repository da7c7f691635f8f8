import { execFileSync } from 'node:child_process'
import { mkdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { StorageLocation } from '../../config.ts'
import { litestreamBinary } from '../../litestream/binary.ts'
import BetterSqlite3 from 'better-sqlite3'
import { integrityOf } from '../../backups/backup-folder.ts'

export class ReplicaProblem extends Error {}

// `npm run restore -- --from-replica URL [--timestamp T]`: `litestream restore` of the replica's
// latest state (or its state at T) under a temporary name in <storage>/db, checked with
// PRAGMA integrity_check, then renamed into place as the server's database. The caller has made
// sure the target has no database.
export function restoreFromReplica(replicaUrl: string, timestamp: string | undefined, target: StorageLocation): string {
  if (timestamp !== undefined && Number.isNaN(Date.parse(timestamp))) throw new ReplicaProblem(`--timestamp must be a time such as 2026-12-04T18:30:00Z, got "${timestamp}"`)
  const incoming = join(target.storagePath, 'db', `.${target.environment}.sqlite3.restoring`)
  mkdirSync(join(target.storagePath, 'db'), { recursive: true })
  rmSync(incoming, { force: true })
  const args = ['restore', '-o', incoming, ...(timestamp === undefined ? [] : ['-timestamp', new Date(timestamp).toISOString()]), replicaUrl]
  try {
    execFileSync(litestreamBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
  } catch (error) {
    removeLitestreamScratch(incoming)
    rmSync(incoming, { force: true })
    const { stderr, message } = error as Error & { stderr?: string }
    throw new ReplicaProblem(`litestream could not restore ${replicaUrl}: ${(stderr || message).trim().split('\n').slice(-3).join(' ')}`)
  }
  removeLitestreamScratch(incoming)
  // Read-write but query-only, so that closing it, the only connection, leaves no -wal or -shm.
  const database = new BetterSqlite3(incoming, { fileMustExist: true })
  database.pragma('query_only = ON')
  const integrity = integrityOf(database)
  database.close()
  if (integrity !== 'ok') {
    rmSync(incoming, { force: true })
    throw new ReplicaProblem(`the restored database fails PRAGMA integrity_check (${integrity}); nothing was put in place`)
  }
  renameSync(incoming, target.databasePath)
  return target.databasePath
}

// Litestream restores into <output>.tmp, opened as a WAL database, and renames it to <output>,
// leaving that file's -wal and -shm behind (empty, or of a failed restore).
function removeLitestreamScratch(incoming: string): void {
  for (const suffix of ['.tmp', '.tmp-wal', '.tmp-shm', '-wal', '-shm']) rmSync(incoming + suffix, { force: true })
}
