// Runs in its own piscina thread, so a scheduled backup (a one-step SQLite copy, the files, an
// upload) never holds up the event loop that serves people: takes one backup, then lets go of
// the scheduled backups BACKUP_KEEP no longer keeps.
import { rm } from 'node:fs/promises'
import { openDestination, stagingFolder } from '../backups/open-destination.ts'
import { backupsToDelete } from '../backups/retention.ts'
import type { BackupResult, BackupTask } from '../backups/task.ts'
import { takeBackup } from '../backups/take.ts'

export default async function backup(task: BackupTask): Promise<BackupResult> {
  const destination = openDestination(task.destination, task.location.storagePath)
  try {
    // Runs are one at a time: whatever a killed run staged is not in use.
    await rm(stagingFolder(task.location.storagePath), { recursive: true, force: true })
    const taken = await takeBackup(task.location, destination, { scheduled: true })
    const deleted: string[] = []
    let retentionProblem: string | null = null
    try {
      for (const name of backupsToDelete(await destination.listScheduled(), task.keep, new Date(), taken.name)) {
        await destination.remove(name)
        deleted.push(name)
      }
    } catch (error) {
      retentionProblem = (error as Error).message
    }
    return { taken, deleted, retentionProblem }
  } finally {
    destination.close?.()
  }
}
