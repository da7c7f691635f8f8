import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MARKER } from '../../server/backups/destination.ts'
import { FolderDestination } from '../../server/backups/folder-destination.ts'
import { takeBackup } from '../../server/backups/take.ts'
import { storageLocation } from '../../server/config.ts'
import { readManifest, openReadOnly } from '../../server/backups/backup-folder.ts'
import { tempStorage } from '../helper.ts'
import { seededStorage } from '../admin/support/seeded-storage.ts'

// A seeded storage folder with two stored files and an upload still arriving.
function storageWithFiles(t: { after: (fn: () => void) => void }, blobBytes = 1024) {
  const { storage } = seededStorage(t)
  const location = storageLocation({ CAMPFIRE_STORAGE_PATH: storage })
  for (const key of ['abcdKEYONE', 'efghKEYTWO']) {
    mkdirSync(join(location.filesPath, key.slice(0, 2), key.slice(2, 4)), { recursive: true })
    writeFileSync(join(location.filesPath, key.slice(0, 2), key.slice(2, 4), key), Buffer.alloc(blobBytes, key))
  }
  mkdirSync(join(location.filesPath, 'tmp'), { recursive: true })
  writeFileSync(join(location.filesPath, 'tmp', 'arriving.upload'), 'half')
  return location
}

test('a scheduled backup into a folder is whole, checked, marked as the schedule’s, and restorable', async (t) => {
  const location = storageWithFiles(t)
  const folder = join(tempStorage(t), 'mounted-disk')
  const taken = await takeBackup(location, new FolderDestination(folder), { scheduled: true })

  assert.equal(taken.where, join(folder, taken.name))
  assert.deepEqual(readdirSync(folder), [taken.name], 'no working folder is left beside it')
  assert.deepEqual(readdirSync(taken.where).sort(), ['db', 'files', 'manifest.json', MARKER, 'secret_key_base'].sort())
  const manifest = readManifest(taken.where)
  assert.deepEqual(manifest.files, { count: 2, bytes: 2048 })
  assert.ok(!existsSync(join(taken.where, 'files', 'tmp')), 'uploads in progress are left out')
  assert.deepEqual(readFileSync(join(taken.where, 'files', 'ab', 'cd', 'abcdKEYONE')), Buffer.alloc(1024, 'abcdKEYONE'))
  const db = openReadOnly(join(taken.where, manifest.database))
  t.after(() => db.close())
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok')
  assert.ok((db.prepare('SELECT count(*) FROM messages').pluck().get() as number) > 0)
})

test('a backup taken by hand has no marker, so the schedule’s retention never sees it', async (t) => {
  const location = storageWithFiles(t)
  const folder = join(tempStorage(t), 'backups')
  const destination = new FolderDestination(folder)
  const byHand = await takeBackup(location, destination, { scheduled: false, at: new Date('2026-12-01T00:00:00Z') })
  const scheduled = await takeBackup(location, destination, { scheduled: true, at: new Date('2026-12-02T00:00:00Z') })
  // A killed run's working folder, and a folder of someone else's that only looks like ours.
  mkdirSync(join(folder, '.campfire-backup-2026-12-03T00-00-00Z.partial'))
  writeFileSync(join(folder, '.campfire-backup-2026-12-03T00-00-00Z.partial', MARKER), '')
  mkdirSync(join(folder, 'campfire-backup-2026-12-04T00-00-00Z'))
  assert.ok(existsSync(byHand.where))
  const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name)
  assert.deepEqual((await destination.listScheduled()).sort(byName), [
    { name: scheduled.name, complete: true },
    { name: 'campfire-backup-2026-12-03T00-00-00Z', complete: false },
  ])
  await destination.remove('campfire-backup-2026-12-03T00-00-00Z')
  assert.deepEqual(readdirSync(folder).sort(), [byHand.name, scheduled.name, 'campfire-backup-2026-12-04T00-00-00Z'].sort())
})

test('a destination disk that fills up fails the backup with ENOSPC and leaves nothing half-written on it', { timeout: 60_000 }, async (t) => {
  // 2 MB of files for a 1 MB disk: the copy cannot fit.
  const location = storageWithFiles(t, 1024 * 1024)
  const disk = mkdtempSync(join(tmpdir(), 'campfire-small-disk-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', disk], { stdio: 'ignore' })
  } catch {
    rmSync(disk, { recursive: true })
    t.skip('mounting a 1 MB tmpfs needs root')
    return
  }
  t.after(() => {
    execFileSync('umount', [disk])
    rmSync(disk, { recursive: true })
  })
  await assert.rejects(takeBackup(location, new FolderDestination(disk), { scheduled: true }), (error: NodeJS.ErrnoException) => error.code === 'ENOSPC')
  assert.deepEqual(readdirSync(disk), [], 'the working folder is removed, so the space is given back')
  // Once there is room, the next one succeeds.
  execFileSync('mount', ['-o', 'remount,size=8m', disk])
  const taken = await takeBackup(location, new FolderDestination(disk), { scheduled: true })
  assert.deepEqual(readManifest(taken.where).files, { count: 2, bytes: 2 * 1024 * 1024 })
})
