// Which scheduled backups BACKUP_KEEP lets go: beyond the newest `count` complete ones, or older
// than `ageMs`. The newest complete backup is always kept, whatever its age, so a schedule that
// stopped working never empties the destination; an incomplete one (a run that was killed) is
// let go unless it is the one being taken.
import { backupTime, type BackupEntry } from './destination.ts'
import type { Retention } from '../backup-config.ts'

export function backupsToDelete(entries: BackupEntry[], keep: Retention, now: Date, taking: string | null = null): string[] {
  const complete = entries.filter((entry) => entry.complete).sort((a, b) => b.name.localeCompare(a.name))
  const leftovers = entries.filter((entry) => !entry.complete && entry.name !== taking).map((entry) => entry.name)
  const [newest, ...older] = complete
  if (newest === undefined) return leftovers
  const expired =
    'count' in keep
      ? complete.slice(keep.count)
      : older.filter((entry) => now.getTime() - backupTime(entry.name)!.getTime() > keep.ageMs)
  return [...expired.map((entry) => entry.name), ...leftovers]
}
