// BACKUP_SCHEDULE in the server: croner fires on the schedule and each firing takes one backup
// in the backup thread (workers/backup.ts), never two at once: a firing while one still runs is
// skipped, logged and counted. Each outcome is one log line (a failure at error) and is kept in
// status.ts for /metrics. Runs in the one process that boots the database: the server, or a
// cluster's primary.
import { Cron } from 'croner'
import { join } from 'node:path'
import type { StorageLocation } from '../config.ts'
import { workerSource } from '../lib/paths.ts'
import type { BackupResult, BackupTask } from './task.ts'
import type { BackupSettings } from '../backup-config.ts'
import { backupStatus, updateBackupStatus } from './status.ts'
import { LazyPool } from '../lib/lazy-pool.ts'

export interface BackupLog {
  info(details: object, message: string): void
  warn(details: object, message: string): void
  error(details: object, message: string): void
}

export interface BackupSchedule {
  // Takes a backup now, as a firing does (skipped when one is running).
  runNow(): Promise<void>
  // When the schedule fires next.
  nextRun(): Date | null
  // Stops the schedule; a backup still running is abandoned (its leftovers go with the next run).
  stop(): Promise<void>
}

type Storage = Pick<StorageLocation, 'storagePath' | 'environment' | 'databasePath' | 'filesPath'>

export function startBackupSchedule(settings: BackupSettings, storage: Storage, log: BackupLog, compiledWorkers?: string): BackupSchedule {
  const pool = new LazyPool({ ...workerSource('backup', compiledWorkers), minThreads: 0, maxThreads: 1, idleTimeout: 5_000 })
  let current: { done: Promise<void>; abort: AbortController } | null = null
  const { storagePath, environment, databasePath, filesPath } = storage
  const location: StorageLocation = { storagePath, environment, databasePath, filesPath, secretKeyBasePath: join(storagePath, 'secret_key_base') }
  const task: BackupTask = { location, destination: settings.destination, keep: settings.keep }
  updateBackupStatus({ scheduled: true })

  async function take(abort: AbortController): Promise<void> {
    const startedAt = new Date()
    updateBackupStatus({ running: true, lastStartedAt: startedAt })
    try {
      const result = (await pool.run(task, { signal: abort.signal })) as BackupResult
      const { taken, deleted, retentionProblem } = result
      const bytes = taken.databaseBytes + taken.files.bytes
      const durationMs = Date.now() - startedAt.getTime()
      const status = backupStatus()
      updateBackupStatus({ lastOk: true, lastError: null, lastSuccessAt: new Date(), lastBytes: bytes, successes: status.successes + 1, deleted: status.deleted + deleted.length })
      log.info({ backup: taken.where, files: taken.files.count, bytes, durationMs, deleted }, `backup taken and verified: ${taken.where}`)
      if (taken.missing.length > 0) log.warn({ missing: taken.missing.slice(0, 10) }, `backup: ${taken.missing.length} stored file(s) the database names were not on disk`)
      if (retentionProblem) log.error({ error: retentionProblem }, `backup retention failed: ${retentionProblem}`)
    } catch (error) {
      const message = abort.signal.aborted ? 'stopped with the server before it finished' : oneLine(error)
      updateBackupStatus({ lastOk: false, lastError: message, failures: backupStatus().failures + 1 })
      log.error({ destination: describe(settings), error: message }, `backup failed: ${message}`)
    } finally {
      updateBackupStatus({ running: false, lastFinishedAt: new Date(), lastDurationMs: Date.now() - startedAt.getTime() })
    }
  }

  function runNow(): Promise<void> {
    if (current !== null) {
      updateBackupStatus({ skipped: backupStatus().skipped + 1 })
      log.warn({}, 'backup skipped: the previous one is still running')
      return current.done
    }
    const abort = new AbortController()
    const done = take(abort).finally(() => (current = null))
    current = { done, abort }
    return done
  }

  const cron = new Cron(settings.pattern, () => void runNow())
  log.info({ schedule: settings.schedule, destination: describe(settings), next: cron.nextRun()?.toISOString() }, 'backups scheduled')

  return {
    runNow,
    nextRun: () => cron.nextRun(),
    async stop() {
      cron.stop()
      if (current) {
        current.abort.abort()
        await current.done
      }
      await pool.destroy()
    },
  }
}

function describe(settings: BackupSettings): string {
  const place = settings.destination
  return place.kind === 'folder' ? place.path : `s3://${place.bucket}/${place.prefix}`
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message || error.name : String(error)
  return message.replace(/\s+/g, ' ').trim()
}
