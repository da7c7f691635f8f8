// `npm run backup`: a consistent copy of the database and the files while the server runs, into
// a folder or an S3 bucket (server/backups/take.ts, the code the schedule runs too).
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { megabytes } from '../backups/backup-folder.ts'
import { fail, readCommandLine, STORAGE_NOTES, scriptStorage } from './support/command-line.ts'
import { openDestination } from '../backups/open-destination.ts'
import { BackupSettingsError, readDestination } from '../backup-config.ts'
import { takeBackup } from '../backups/take.ts'

const NAME = 'backup'

const { values } = readCommandLine({
  name: NAME,
  summary: [
    'Copies the database (SQLite online backup, safe while the server runs) and the uploaded files',
    'into a new folder named campfire-backup-<UTC date and time>, checks the copy with',
    'PRAGMA integrity_check, reads back what was written, and prints where it is.',
    'Restore it with `npm run restore`.',
  ].join('\n'),
  options: {
    to: { type: 'string', value: 'DIR|URL', description: 'the folder, or s3://bucket/prefix, the backup is made in (default <storage>/backups)' },
  },
  notes: [
    STORAGE_NOTES,
    'SECRET_KEY_BASE and the VAPID keys set in the environment are not in the backup: keep them with it.',
    'An s3:// destination reads BACKUP_S3_ENDPOINT, BACKUP_S3_REGION and the AWS SDK\'s credentials',
    '(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) as the server\'s BACKUP_DESTINATION does.',
    'A backup taken here has no scheduled-backup.txt: BACKUP_KEEP never deletes it.',
  ].join('\n'),
})

const location = scriptStorage(NAME)
if (!existsSync(location.databasePath)) fail(NAME, `there is no database at ${location.databasePath} (set CAMPFIRE_STORAGE_PATH and RAILS_ENV as for the server)`)
let destination
try {
  const to = values.to === undefined ? join(location.storagePath, 'backups') : /^[a-z][a-z0-9+.-]*:\/\//i.test(values.to) ? values.to : resolve(values.to)
  destination = openDestination(readDestination({ ...process.env, BACKUP_DESTINATION: to }, location.storagePath, location.filesPath), location.storagePath)
} catch (error) {
  if (!(error instanceof BackupSettingsError)) throw error
  fail(NAME, error.message.replace('BACKUP_DESTINATION', '--to'))
}

try {
  const taken = await takeBackup(location, destination, { scheduled: false })
  if (taken.missing.length > 0) process.stderr.write(`${NAME}: warning: ${taken.missing.length} stored file(s) the database names were not on disk (${taken.missing.slice(0, 3).join(', ')}${taken.missing.length > 3 ? ', …' : ''})\n`)
  process.stdout.write(`Backed up ${location.databasePath} (${megabytes(taken.databaseBytes)}, integrity ok) and ${taken.files.count} files (${megabytes(taken.files.bytes)})${taken.secretKeyBase ? ' and secret_key_base' : ''} to\n${taken.where}\n`)
} catch (error) {
  fail(NAME, `${(error as Error).message}; nothing was kept`)
} finally {
  destination.close?.()
}
