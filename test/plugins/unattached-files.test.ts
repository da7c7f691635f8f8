import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { buildTestApp, capturedLog, inject, signIn } from '../helper.ts'
import { buildApp } from '../../server/app.ts'
import { rooms } from '../fixtures.ts'
import { listFiles } from '../../server/lib/files.ts'
import { generateBlobKey } from '../../server/lib/uploads.ts'
import { multipart } from '../support/multipart.ts'
import { grayPng } from '../support/images.ts'
import { ROOT } from '../support/server-process.ts'

const run = promisify(execFile)

// A file no blob names, where the storage layout would keep one, last written two hours ago.
function plantStray(filesPath: string): string {
  const key = generateBlobKey()
  const path = join(filesPath, key.slice(0, 2), key.slice(2, 4), key)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, 'lost')
  const twoHoursAgo = (Date.now() - 2 * 60 * 60 * 1000) / 1000
  utimesSync(path, twoHoursAgo, twoHoursAgo)
  return path
}

test('deleting a room purges its attachments, variants and previews from disk in the background', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const { payload, headers } = multipart([{ name: 'message[attachment]', filename: 'gray.png', type: 'image/png', data: grayPng(900, 700) }], { accept: 'text/vnd.turbo-stream.html' })
  assert.equal((await inject(app, david, { method: 'POST', url: `/rooms/${rooms.designers.id}/messages`, payload, headers })).statusCode, 200)
  const stored = listFiles(config.filesPath).filter((path) => !path.startsWith(join(config.filesPath, 'tmp')))
  const blobCount = () => app.store.read((m) => m.db.prepare('SELECT count(*) FROM active_storage_blobs').pluck().get() as number)
  assert.ok(stored.length >= 2, `the image and its variant are on disk (${stored.length})`)
  assert.ok(blobCount() >= 2)

  const deleted = await inject(app, david, { method: 'DELETE', url: `/rooms/${rooms.designers.id}`, headers: { 'sec-fetch-site': 'same-origin' } })
  assert.equal(deleted.statusCode, 302)
  await app.unattachedFiles.settled()
  assert.deepEqual(listFiles(config.filesPath).filter((path) => !path.startsWith(join(config.filesPath, 'tmp'))), [])
  assert.equal(blobCount(), 0)
})

test('a purge cut short by a restart is resumed at boot, which reports the orphans in one line', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const { payload, headers } = multipart([{ name: 'message[attachment]', filename: 'gray.png', type: 'image/png', data: grayPng(900, 700) }], { accept: 'text/vnd.turbo-stream.html' })
  assert.equal((await inject(app, david, { method: 'POST', url: `/rooms/${rooms.designers.id}/messages`, payload, headers })).statusCode, 200)
  // The room goes as the route deletes it, but the process stops before any purge runs.
  app.store.writeNow((m) => m.roomDestruction.destroyRoom(rooms.designers.id))
  const stray = plantStray(config.filesPath)
  await app.close()
  assert.ok(listFiles(config.filesPath).length >= 3)

  const log = capturedLog()
  const again = await buildApp({ config, logger: { level: 'info', stream: log.stream }, passwordCost: 4 })
  t.after(() => again.close())
  await again.ready()
  await again.unattachedFiles.settled()
  assert.deepEqual(listFiles(config.filesPath), [stray], 'the deleted room’s files are gone; the stray file waits for the doctor')
  const deadline = Date.now() + 5000
  while (!log.lines.some((line) => line.msg?.startsWith('orphaned files found at boot')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  const report = log.lines.filter((line) => line.msg?.startsWith('orphaned files found at boot'))
  assert.equal(report.length, 1)
  assert.equal(report[0]!.strayFiles, 1)
  assert.equal(report[0]!.unattachedBlobs, 1, 'the image (its variant goes with it)')
})

test('npm run doctor lists orphaned blobs and stray files, and --fix removes them', async (t) => {
  const { app, config, storage } = await buildTestApp(t)
  // A blob row nothing is attached to (a purge cut short) and a file no blob names.
  app.store.writeNow((m) => m.blobs.create({ key: 'orphanblobkey0001', filename: 'lost.txt', contentType: 'text/plain', metadata: {}, byteSize: 4, checksum: 'x' }))
  const orphanFile = join(config.filesPath, 'or', 'ph', 'orphanblobkey0001')
  mkdirSync(join(orphanFile, '..'), { recursive: true })
  writeFileSync(orphanFile, 'lost')
  const strayFile = plantStray(config.filesPath)
  const env = { ...process.env, CAMPFIRE_STORAGE_PATH: storage, RAILS_ENV: config.environment }
  const doctor = (...args: string[]) => run('node', ['--import', 'tsx', 'server/admin/doctor.ts', ...args], { cwd: ROOT, env })

  const help = await doctor('--help')
  assert.match(help.stdout, /--fix/)
  const listed = await doctor()
  assert.match(listed.stdout, /^1 orphaned blob \(no record attached\)$/m)
  assert.match(listed.stdout, /^1 stray file \(no blob row\), 4 bytes$/m)
  assert.ok(listed.stdout.includes(strayFile), 'the stray is named')
  assert.equal(listFiles(config.filesPath).length, 2, 'listing removes nothing')

  const fixed = await doctor('--fix')
  assert.match(fixed.stdout, /removed 1 orphaned blob and 1 stray file/)
  assert.deepEqual(listFiles(config.filesPath), [])
  assert.equal(app.store.read((m) => m.blobs.countUnattached()), 0)
})
