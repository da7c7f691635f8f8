import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BackupSettingsError, readBackupSettings } from '../server/backup-config.ts'

const STORAGE = '/srv/campfire/storage'
const FILES = '/srv/campfire/storage/files'
const read = (env: Record<string, string>) => readBackupSettings(env, STORAGE, FILES)
const refused = (env: Record<string, string>, says: RegExp) => assert.throws(() => read(env), (error: Error) => error instanceof BackupSettingsError && says.test(error.message) && !error.message.includes('\n'))

test('without BACKUP_SCHEDULE the server takes no backups, and BACKUP_KEEP or BACKUP_DESTINATION alone is a mistake said in one line', () => {
  assert.equal(read({}), null)
  refused({ BACKUP_KEEP: '7' }, /BACKUP_KEEP is set but BACKUP_SCHEDULE is not/)
  refused({ BACKUP_DESTINATION: '/mnt/backups' }, /BACKUP_DESTINATION is set but BACKUP_SCHEDULE is not/)
})

test('BACKUP_SCHEDULE takes "daily HH:MM", "hourly" or a cron expression of five or six fields', () => {
  assert.equal(read({ BACKUP_SCHEDULE: 'daily 03:00' })!.pattern, '0 3 * * *')
  assert.equal(read({ BACKUP_SCHEDULE: 'Daily 23:45' })!.pattern, '45 23 * * *')
  assert.equal(read({ BACKUP_SCHEDULE: 'hourly' })!.pattern, '0 * * * *')
  assert.equal(read({ BACKUP_SCHEDULE: '30 2 * * 1-5' })!.pattern, '30 2 * * 1-5')
  assert.equal(read({ BACKUP_SCHEDULE: '*/5 * * * * *' })!.pattern, '*/5 * * * * *')
  refused({ BACKUP_SCHEDULE: 'daily 24:00' }, /BACKUP_SCHEDULE "daily 24:00" is not a time of day/)
  refused({ BACKUP_SCHEDULE: 'every night' }, /BACKUP_SCHEDULE must be "daily HH:MM", "hourly" or a cron expression/)
  refused({ BACKUP_SCHEDULE: '61 * * * *' }, /BACKUP_SCHEDULE "61 \* \* \* \*" is not a schedule/)
  refused({ BACKUP_SCHEDULE: '0 0 31 2 *' }, /is not a schedule/)
})

test('BACKUP_KEEP is a count of backups or an age, 7 backups when unset; 0 and anything else are refused', () => {
  const withKeep = (keep?: string) => read({ BACKUP_SCHEDULE: 'hourly', ...(keep === undefined ? {} : { BACKUP_KEEP: keep }) })!.keep
  assert.deepEqual(withKeep(), { count: 7 })
  assert.deepEqual(withKeep('14'), { count: 14 })
  assert.deepEqual(withKeep('36h'), { ageMs: 36 * 3_600_000 })
  assert.deepEqual(withKeep('30d'), { ageMs: 30 * 86_400_000 })
  assert.deepEqual(withKeep('8w'), { ageMs: 8 * 7 * 86_400_000 })
  for (const bad of ['0', '-1', '0d', 'forever', '7 backups', '1.5', '100000'])
    refused({ BACKUP_SCHEDULE: 'hourly', BACKUP_KEEP: bad }, /^BACKUP_KEEP must be a number of backups from 1 to 10000, or an age such as 36h, 30d or 8w, got "/)
})

test('BACKUP_DESTINATION is a folder (a path or a file:// URL) or an s3:// URL; <storage>/backups when unset', () => {
  const destination = (env: Record<string, string>) => read({ BACKUP_SCHEDULE: 'hourly', ...env })!.destination
  assert.deepEqual(destination({}), { kind: 'folder', path: '/srv/campfire/storage/backups' })
  assert.deepEqual(destination({ BACKUP_DESTINATION: '/mnt/backup-disk/campfire' }), { kind: 'folder', path: '/mnt/backup-disk/campfire' })
  assert.deepEqual(destination({ BACKUP_DESTINATION: 'file:///mnt/backup-disk' }), { kind: 'folder', path: '/mnt/backup-disk' })
  assert.deepEqual(destination({ BACKUP_DESTINATION: 's3://team-backups/campfire/daily/' }), { kind: 's3', bucket: 'team-backups', prefix: 'campfire/daily', endpoint: null, region: 'us-east-1' })
  assert.deepEqual(destination({ BACKUP_DESTINATION: 's3://team-backups', BACKUP_S3_ENDPOINT: 'http://127.0.0.1:9000', BACKUP_S3_REGION: 'eu-central-1' }), { kind: 's3', bucket: 'team-backups', prefix: '', endpoint: 'http://127.0.0.1:9000', region: 'eu-central-1' })
  refused({ BACKUP_SCHEDULE: 'hourly', BACKUP_DESTINATION: 'ftp://backups.example.com/campfire' }, /BACKUP_DESTINATION must be a folder, a file:\/\/ URL or an s3:\/\/bucket\/prefix URL, got a ftp:\/\/ URL/)
  refused({ BACKUP_SCHEDULE: 'hourly', BACKUP_DESTINATION: 's3://Not_A_Bucket/x' }, /is not s3:\/\/bucket\/prefix with a valid bucket name/)
  refused({ BACKUP_SCHEDULE: 'hourly', BACKUP_DESTINATION: `${FILES}/backups` }, /is inside the files folder it backs up/)
  refused({ BACKUP_SCHEDULE: 'hourly', BACKUP_DESTINATION: 's3://team-backups', BACKUP_S3_ENDPOINT: 'localhost:9000' }, /BACKUP_S3_ENDPOINT must be an http:\/\/ or https:\/\/ URL, got "localhost:9000"/)
})
