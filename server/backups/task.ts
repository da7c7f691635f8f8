// What the backup thread (server/workers/backup.ts) is given, and what it answers: one backup taken
// into the destination, then the scheduled ones BACKUP_KEEP no longer keeps let go.
import type { BackupDestination, Retention } from '../backup-config.ts'
import type { StorageLocation } from '../config.ts'
import type { TakenBackup } from './take.ts'

export interface BackupTask {
  location: StorageLocation
  destination: BackupDestination
  keep: Retention
}

export interface BackupResult {
  taken: TakenBackup
  deleted: string[]
  // The backup was taken, but letting older ones go failed.
  retentionProblem: string | null
}
