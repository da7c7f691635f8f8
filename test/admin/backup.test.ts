import { test } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { listFiles } from '../../server/lib/files.ts'
import { tempStorage } from '../helper.ts'
import { DEFAULT_PASSWORD } from '../load/seed.ts'
import { multipart } from '../support/multipart.ts'
import { CookieJar, formPost, request, startServer, stopServer } from '../support/server-process.ts'
import { assertHelpWritesNothing, runAdmin } from './support/admin-script.ts'
import { seededStorage } from './support/seeded-storage.ts'
import { startS3Bucket } from '../support/s3-bucket.ts'

const POSTERS = 4

// Every file below a folder, by its path inside it, with its bytes.
function tree(dir: string): Map<string, string> {
  return new Map(listFiles(dir).map((path) => [relative(dir, path), readFileSync(path).toString('base64')]))
}

test('a backup taken while people post holds every post answered before it began, and restores to storage the server runs on', { timeout: 120_000 }, async (t) => {
  const { storage, labels } = seededStorage(t)
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, DISABLE_SSL: 'true' })
  t.after(() => stopServer(server, 'SIGKILL'))
  const david = new CookieJar()
  const signIn = await request(server.baseUrl, david, '/session', formPost({ email_address: labels.emails.david!, password: DEFAULT_PASSWORD }))
  assert.equal(signIn.status, 302)

  // A real upload, so the files folder holds a blob the database names; and an upload still
  // arriving (files/tmp), which a backup leaves out.
  const upload = multipart([{ name: 'message[client_message_id]', value: 'with-file' }, { name: 'message[attachment]', filename: 'notes.txt', type: 'text/plain', data: Buffer.from('minutes of the meeting\n') }])
  const uploaded = await request(server.baseUrl, david, `/rooms/${labels.rooms.hq}/messages`, { method: 'POST', body: upload.payload, headers: upload.headers })
  assert.ok([200, 303].includes(uploaded.status), `upload answered ${uploaded.status}`)
  mkdirSync(join(storage, 'files', 'tmp'), { recursive: true })
  writeFileSync(join(storage, 'files', 'tmp', 'arriving.upload'), 'half a file')

  // A reader holding a snapshot from before the load, as a sqlite3 shell reading the live file
  // might: no checkpoint can move the posts into the database file, so they are only in the WAL,
  // where a copy of the file alone would miss them.
  const reader = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })
  t.after(() => reader.close())
  reader.exec('BEGIN')
  reader.prepare('SELECT count(*) FROM messages').get()

  const acknowledged: string[] = []
  let posting = true
  let sent = 0
  const posters = Array.from({ length: POSTERS }, async () => {
    while (posting) {
      const id = `load-${sent++}`
      const response = await request(server.baseUrl, david, `/rooms/${labels.rooms.watercooler}/messages`, formPost({ 'message[body]': `post ${id}`, 'message[client_message_id]': id }))
      assert.ok([200, 303].includes(response.status), `${id} answered ${response.status}`)
      acknowledged.push(id)
    }
  })
  while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 10))

  const backups = join(tempStorage(t), 'backups')
  const beforeBackup = [...acknowledged]
  const result = await runAdmin('backup', ['--to', backups], { CAMPFIRE_STORAGE_PATH: storage })
  const duringBackup = acknowledged.length - beforeBackup.length
  posting = false
  await Promise.all(posters)
  reader.exec('COMMIT')
  assert.equal(result.code, 0, result.stderr)
  assert.ok(duringBackup > 0, 'posts were answered while the backup ran')

  const [folder, ...others] = readdirSync(backups)
  assert.equal(others.length, 0, 'one backup folder and nothing else (no partial copy left behind)')
  assert.match(folder!, /^campfire-backup-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/)
  assert.ok(result.stdout.includes(join(backups, folder!)), result.stdout)

  const restored = join(tempStorage(t), 'restored')
  const restore = await runAdmin('restore', [join(backups, folder!)], { CAMPFIRE_STORAGE_PATH: restored })
  assert.equal(restore.code, 0, restore.stderr)

  const db = new BetterSqlite3(join(restored, 'db', 'production.sqlite3'))
  const restoredIds = new Map((db.prepare('SELECT client_message_id, id FROM messages').all() as { client_message_id: string; id: number }[]).map((row) => [row.client_message_id, row.id]))
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok')
  db.prepare("INSERT INTO message_search_index (message_search_index) VALUES ('integrity-check')").run()
  db.close()
  const lost = beforeBackup.filter((id) => !restoredIds.has(id))
  assert.deepEqual(lost, [], 'posts answered before the backup began are in it')

  // A snapshot, not a mixture: every message the live database committed up to the newest one in
  // the backup is in the backup.
  const live = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })
  const newest = Math.max(...restoredIds.values())
  const liveUpToNewest = live.prepare('SELECT client_message_id FROM messages WHERE id <= ?').pluck().all(newest) as string[]
  live.close()
  assert.deepEqual(liveUpToNewest.filter((id) => !restoredIds.has(id)), [])

  const files = tree(join(storage, 'files'))
  files.delete(join('tmp', 'arriving.upload'))
  assert.equal(files.size, 1, 'the uploaded file')
  assert.deepEqual(tree(join(restored, 'files')), files)
  assert.equal(readFileSync(join(restored, 'secret_key_base'), 'utf8'), readFileSync(join(storage, 'secret_key_base'), 'utf8'))

  // The restored storage serves David's session (its row and the secret came along) and the file.
  const again = await startServer({ CAMPFIRE_STORAGE_PATH: restored, DISABLE_SSL: 'true' })
  t.after(() => stopServer(again, 'SIGKILL'))
  const room = await request(again.baseUrl, david, `/rooms/${labels.rooms.hq}`)
  assert.equal(room.status, 200)
  const html = await room.text()
  assert.match(html, /notes\.txt/)
  const href = /href="(\/rails\/active_storage\/blobs\/redirect\/[^"?]+)/.exec(html)?.[1]
  assert.ok(href, 'a link to the uploaded file')
  const download = await request(again.baseUrl, david, href!.replace(/&amp;/g, '&'))
  const location = download.headers.get('location')
  const file = location ? await request(again.baseUrl, david, new URL(location, again.baseUrl).pathname + new URL(location, again.baseUrl).search) : download
  assert.equal(await file.text(), 'minutes of the meeting\n')
})

test('backup stops with a message and writes nothing when there is no database', async (t) => {
  const storage = join(tempStorage(t), 'storage')
  const backups = join(tempStorage(t), 'backups')
  const result = await runAdmin('backup', ['--to', backups], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(result.code, 1)
  assert.match(result.stderr, /there is no database at .*production\.sqlite3/)
  assert.deepEqual(readdirSync(join(backups, '..')), [])
})

test('backup --help and -h print the usage and write nothing', async (t) => {
  const dir = tempStorage(t)
  await assertHelpWritesNothing('backup', join(dir, 'storage'), ['--to', join(dir, 'backups')], [join(dir, 'backups')])
})

test('backup --to s3://bucket/prefix uploads a backup the schedule’s retention will never delete, and --to with another scheme is one line', { timeout: 120_000 }, async (t) => {
  const bucket = await startS3Bucket(t, 'campfire-backups')
  const { storage } = seededStorage(t)
  const env = { CAMPFIRE_STORAGE_PATH: storage, BACKUP_S3_ENDPOINT: bucket.endpoint }
  const result = await runAdmin('backup', ['--to', 's3://campfire-backups/by-hand'], env)
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /integrity ok\) and 0 files .* to\ns3:\/\/campfire-backups\/by-hand\/campfire-backup-[\dT-]+Z\/\n$/)
  const keys = (await bucket.keys('by-hand/')).map((key) => key.split('/').slice(1).join('/')).sort()
  assert.deepEqual(keys, ['db/production.sqlite3', 'manifest.json', 'secret_key_base'], 'no scheduled-backup.txt')
  assert.deepEqual(readdirSync(storage).filter((name) => name.startsWith('.')), [], 'nothing staged is left in the storage folder')

  const refused = await runAdmin('backup', ['--to', 'ftp://backups.example.com/campfire'], env)
  assert.equal(refused.code, 1)
  assert.equal(refused.stderr, 'backup: --to must be a folder, a file:// URL or an s3://bucket/prefix URL, got a ftp:// URL\n')
})
