import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { MARKER } from '../../server/backups/destination.ts'
import { startBackupSchedule } from '../../server/backups/schedule.ts'
import { readBackupSettings } from '../../server/backup-config.ts'
import { backupStatus } from '../../server/backups/status.ts'
import { readManifest } from '../../server/backups/backup-folder.ts'
import { storageLocation } from '../../server/config.ts'
import { tempStorage } from '../helper.ts'
import { seededStorage } from '../admin/support/seeded-storage.ts'
import { startCluster, logLines } from '../cluster/cluster-helper.ts'
import { compiledWorkers } from '../support/compiled-server.ts'
import { startServer, stopServer, type ServerProcess } from '../support/server-process.ts'
import { startS3Bucket } from '../support/s3-bucket.ts'

const HAND_MADE = 'campfire-backup-2026-01-01T00-00-00Z'

interface Line {
  msg?: string
  time?: number
  durationMs?: number
  level?: number
  primary?: boolean
}

const lines = (server: ServerProcess): Line[] => logLines(server) as Line[]
const taken = (server: ServerProcess) => lines(server).filter((line) => line.msg?.startsWith('backup taken and verified: '))

async function eventually(check: () => boolean, what: string, ms = 90_000): Promise<void> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

test('the server takes a backup each time BACKUP_SCHEDULE fires, one after another, and keeps BACKUP_KEEP of its own', { timeout: 180_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const destination = join(tempStorage(t), 'backup-disk')
  // A backup someone took by hand: not the schedule's, so never deleted by it.
  mkdirSync(join(destination, HAND_MADE), { recursive: true })
  writeFileSync(join(destination, HAND_MADE, 'manifest.json'), '{}')
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, DISABLE_SSL: 'true', LOG_FORMAT: 'json', BACKUP_SCHEDULE: '* * * * * *', BACKUP_KEEP: '2', BACKUP_DESTINATION: destination })
  t.after(() => stopServer(server, 'SIGKILL'))

  await eventually(() => taken(server).length >= 4, 'four scheduled backups')
  await stopServer(server)
  assert.ok(lines(server).some((line) => line.msg === 'backups scheduled'))
  assert.deepEqual(lines(server).filter((line) => (line.level ?? 0) >= 50), [], 'no error was logged')

  // Each run ends before the next begins.
  const runs = taken(server).map((line) => ({ start: line.time! - line.durationMs!, end: line.time! }))
  for (let i = 1; i < runs.length; i++) assert.ok(runs[i]!.start >= runs[i - 1]!.end, `run ${i} began ${runs[i - 1]!.end - runs[i]!.start} ms before run ${i - 1} ended`)

  const left = readdirSync(destination).sort()
  const scheduled = left.filter((name) => name !== HAND_MADE)
  assert.ok(left.includes(HAND_MADE), 'the hand-made backup is still there')
  assert.ok(scheduled.length === 2 || scheduled.length === 3, `BACKUP_KEEP=2 (and the run the stop cut short at most), found ${scheduled.join(', ')}`)
  const complete = scheduled.filter((name) => existsSync(join(destination, name, 'manifest.json')))
  assert.equal(complete.length, 2, `two complete backups are kept: ${scheduled.join(', ')}`)
  for (const name of complete) {
    assert.ok(existsSync(join(destination, name, MARKER)))
    assert.equal(readManifest(join(destination, name)).environment, 'production')
  }
})

test('a firing while a backup still runs is skipped and counted, never run beside it', { timeout: 60_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const location = storageLocation({ CAMPFIRE_STORAGE_PATH: storage })
  const destination = join(tempStorage(t), 'backups')
  // Next year: it never fires by itself here.
  const settings = readBackupSettings({ BACKUP_SCHEDULE: '0 0 1 1 *', BACKUP_DESTINATION: destination }, location.storagePath, location.filesPath)!
  const logged: string[] = []
  const log = { info: (_: object, message: string) => logged.push(message), warn: (_: object, message: string) => logged.push(message), error: (_: object, message: string) => logged.push(message) }
  const schedule = startBackupSchedule(settings, location, log, await compiledWorkers())
  t.after(() => schedule.stop())
  const before = backupStatus()

  const first = schedule.runNow()
  assert.equal(backupStatus().running, true)
  const second = schedule.runNow()
  await Promise.all([first, second])

  const after = backupStatus()
  assert.equal(after.successes - before.successes, 1)
  assert.equal(after.skipped - before.skipped, 1)
  assert.equal(after.failures, before.failures)
  assert.equal(after.lastOk, true)
  assert.equal(after.running, false)
  assert.ok(logged.includes('backup skipped: the previous one is still running'))
  assert.equal(readdirSync(destination).length, 1, 'one backup was taken')
})

test('a backup that fails is one error line, counted for metrics, and the next firing tries again', { timeout: 60_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const location = storageLocation({ CAMPFIRE_STORAGE_PATH: storage })
  // The destination is a file: no folder can be made there.
  const blocked = join(tempStorage(t), 'not-a-folder')
  writeFileSync(blocked, '')
  const settings = readBackupSettings({ BACKUP_SCHEDULE: '0 0 1 1 *', BACKUP_DESTINATION: join(blocked, 'backups') }, location.storagePath, location.filesPath)!
  const errors: string[] = []
  const log = { info: () => undefined, warn: () => undefined, error: (_: object, message: string) => errors.push(message) }
  const schedule = startBackupSchedule(settings, location, log, await compiledWorkers())
  t.after(() => schedule.stop())
  const before = backupStatus()
  await schedule.runNow()
  await schedule.runNow()
  const after = backupStatus()
  assert.equal(after.failures - before.failures, 2)
  assert.equal(after.lastOk, false)
  assert.match(after.lastError!, /ENOTDIR/)
  assert.equal(errors.length, 2)
  for (const error of errors) assert.match(error, /^backup failed: ENOTDIR[^\n]*$/)
})

test('with WEB_CONCURRENCY=2 only the primary takes the scheduled backups', { timeout: 180_000 }, async (t) => {
  const destination = join(tempStorage(t), 'backup-disk')
  const { server } = await startCluster(t, { LOG_FORMAT: 'json', BACKUP_SCHEDULE: '*/2 * * * * *', BACKUP_KEEP: '10', BACKUP_DESTINATION: destination })
  await eventually(() => taken(server).length >= 2, 'two scheduled backups')
  assert.equal(lines(server).filter((line) => line.msg === 'backups scheduled').length, 1, 'one schedule for the whole cluster')
  for (const line of taken(server)) assert.equal(line.primary, true, 'taken by the primary')
  // Two schedules would race for each firing's name: one of them would fail with "already exists".
  assert.deepEqual(lines(server).filter((line) => line.msg?.startsWith('backup failed')), [])
  const folders = readdirSync(destination).filter((name) => !name.startsWith('.')).length
  assert.ok(folders >= taken(server).length && folders <= taken(server).length + 1, `${folders} backups for ${taken(server).length} taken (one more may have just finished)`)
})

test('the server’s scheduled backups reach an S3-compatible server and are read back from it', { timeout: 180_000 }, async (t) => {
  const bucket = await startS3Bucket(t, 'campfire-backups')
  const { storage } = seededStorage(t)
  const server = await startServer({
    CAMPFIRE_STORAGE_PATH: storage,
    DISABLE_SSL: 'true',
    LOG_FORMAT: 'json',
    BACKUP_SCHEDULE: '*/2 * * * * *',
    BACKUP_KEEP: '1',
    BACKUP_DESTINATION: 's3://campfire-backups/chat',
    BACKUP_S3_ENDPOINT: bucket.endpoint,
    AWS_ACCESS_KEY_ID: 'campfire-test',
    AWS_SECRET_ACCESS_KEY: 'campfire-test-secret',
  })
  t.after(() => stopServer(server, 'SIGKILL'))
  await eventually(() => taken(server).length >= 2, 'two scheduled backups')
  await stopServer(server)
  assert.deepEqual(lines(server).filter((line) => (line.level ?? 0) >= 50), [], 'no error was logged')
  assert.match(taken(server)[0]!.msg!, /^backup taken and verified: s3:\/\/campfire-backups\/chat\/campfire-backup-/)
  const prefixes = new Set((await bucket.keys('chat/')).map((key) => key.split('/')[0]))
  assert.ok(prefixes.size >= 1 && prefixes.size <= 2, `BACKUP_KEEP=1 (and the run the stop cut short at most): ${[...prefixes].join(', ')}`)
  const complete = (await bucket.keys('chat/')).filter((key) => key.endsWith('/manifest.json'))
  assert.equal(complete.length, 1, 'one complete backup is kept')
})
