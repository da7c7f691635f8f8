// How the scheduled backups are going, for /metrics and for tests: read with backupStatus().
// The process that runs the schedule (the only one, or a cluster's primary) holds it.
export interface BackupStatus {
  // Whether a schedule runs in this process.
  scheduled: boolean
  running: boolean
  // null before the first run has ended.
  lastOk: boolean | null
  lastStartedAt: Date | null
  lastFinishedAt: Date | null
  lastSuccessAt: Date | null
  lastDurationMs: number | null
  // The last failure's one-line reason.
  lastError: string | null
  // Bytes of the last backup taken (database and files).
  lastBytes: number | null
  successes: number
  failures: number
  // Times the schedule fired while the previous backup was still running (that firing is skipped).
  skipped: number
  // Scheduled backups deleted by BACKUP_KEEP.
  deleted: number
}

const status: BackupStatus = {
  scheduled: false,
  running: false,
  lastOk: null,
  lastStartedAt: null,
  lastFinishedAt: null,
  lastSuccessAt: null,
  lastDurationMs: null,
  lastError: null,
  lastBytes: null,
  successes: 0,
  failures: 0,
  skipped: 0,
  deleted: 0,
}

export function backupStatus(): Readonly<BackupStatus> {
  return { ...status }
}

export function updateBackupStatus(change: Partial<BackupStatus>): void {
  Object.assign(status, change)
}
