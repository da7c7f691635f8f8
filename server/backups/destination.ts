// Where a backup is written: a folder (folder-destination.ts) or an S3 bucket
// (s3-destination.ts). Both hold the layout of backup-folder.ts, one backup per
// campfire-backup-<UTC date and time> folder or key prefix.
//
// A backup the schedule takes has a marker, written before anything else: retention only ever
// deletes backups with one, so a backup taken by hand (`npm run backup`) or anything else kept
// beside them is never touched. A backup is complete once its manifest is there; the manifest is
// written last.
import { FOLDER_PREFIX } from './backup-folder.ts'

export const MARKER = 'scheduled-backup.txt'
export const MARKER_TEXT = 'Taken on BACKUP_SCHEDULE. Retention (BACKUP_KEEP) deletes the backups that hold this file, and only those.\n'

const NAME = new RegExp(`^${FOLDER_PREFIX}(\\d{4}-\\d\\d-\\d\\dT\\d\\d)-(\\d\\d)-(\\d\\d)Z$`)

export interface BackupWriter {
  // A local folder the database copy is made in, as <stagingDir>/<database path in the backup>.
  readonly stagingDir: string
  // Copies or uploads a file into the backup at `path` (e.g. files/ab/cd/abcd…); the bytes written.
  // null when the source went away meanwhile (a purged blob).
  put(path: string, source: string): Promise<number | null>
  // Reads back what is at the destination: every path with its size, as put wrote them, and
  // the database file checked with PRAGMA integrity_check. Throws on any difference.
  verify(expected: Map<string, number>, database: string): Promise<void>
  // Writes the manifest last and makes the backup complete; returns where it is.
  finish(manifestJson: string): Promise<string>
  // Removes whatever was written.
  abort(): Promise<void>
}

export interface BackupEntry {
  name: string
  complete: boolean
}

export interface Destination {
  readonly description: string
  begin(name: string, options: { scheduled: boolean }): Promise<BackupWriter>
  // The backups this schedule took (with a marker), complete or not.
  listScheduled(): Promise<BackupEntry[]>
  remove(name: string): Promise<void>
}

// When a backup was taken, from its name; null for a name not of ours.
export function backupTime(name: string): Date | null {
  const match = NAME.exec(name)
  if (!match) return null
  const at = new Date(`${match[1]}:${match[2]}:${match[3]}Z`)
  return Number.isNaN(at.getTime()) ? null : at
}

export class VerificationFailed extends Error {}

// The differences between what was written and what is there, as one sentence.
export function compareListing(expected: Map<string, number>, found: Map<string, number>): void {
  const missing = [...expected.keys()].filter((path) => !found.has(path))
  const wrongSize = [...expected].filter(([path, size]) => found.has(path) && found.get(path) !== size).map(([path]) => path)
  const extra = [...found.keys()].filter((path) => !expected.has(path))
  if (missing.length + wrongSize.length + extra.length === 0) return
  const parts = [
    missing.length ? `${missing.length} missing (${missing.slice(0, 2).join(', ')})` : '',
    wrongSize.length ? `${wrongSize.length} of another size (${wrongSize.slice(0, 2).join(', ')})` : '',
    extra.length ? `${extra.length} unexpected (${extra.slice(0, 2).join(', ')})` : '',
  ].filter(Boolean)
  throw new VerificationFailed(`the backup read back holds ${found.size} files where ${expected.size} were written: ${parts.join(', ')}`)
}
