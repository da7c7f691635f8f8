import { test } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { SECRET_KEY_BASE, tempStorage } from '../helper.ts'
import { DEFAULT_PASSWORD } from '../load/seed.ts'
import { CookieJar, formPost, request, startServer, stopServer, type ServerProcess } from '../support/server-process.ts'
import { runAdmin } from '../admin/support/admin-script.ts'
import { seededStorage } from '../admin/support/seeded-storage.ts'
import { litestreamLevel, startLitestream } from '../../server/litestream/sidecar.ts'

const POSTERS = 4
// Litestream's sync interval (server/litestream/binary.ts), and a margin for a loaded machine.
const SYNC_INTERVAL_MS = 1000
const MARGIN_MS = 1000

// The pid of the Litestream started after `after` characters of the server's log.
async function litestreamPid(server: ServerProcess, after = 0): Promise<number> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const match = /"litestream":(\d+)[^\n]*"msg":"litestream started"/.exec(server.output().slice(after))
    if (match) return Number(match[1])
    assert.ok(Date.now() < deadline, `litestream never started:\n${server.output()}`)
    await sleep(50)
  }
}

// Running (a zombie waiting for its reaper is not).
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

// Waits until Litestream has shipped a snapshot and a WAL segment, from its own log lines.
async function shipped(server: ServerProcess, after: number): Promise<void> {
  const deadline = Date.now() + 30_000
  while (!/wal segment written/.test(server.output().slice(after))) {
    assert.ok(Date.now() < deadline, `litestream never shipped the WAL:\n${server.output()}`)
    await sleep(50)
  }
}

test('a file replica survives kill -9 of Litestream and of the server: restored into an empty folder it holds every post acknowledged a sync interval before the kill, and an old cookie signs in', { timeout: 300_000 }, async (t) => {
  const { storage, labels } = seededStorage(t)
  const replica = join(tempStorage(t), 'replica')
  const env = { CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', LITESTREAM_REPLICA_URL: `file://${replica}` }
  const server = await startServer(env)
  t.after(() => stopServer(server, 'SIGKILL'))
  const firstPid = await litestreamPid(server)
  await shipped(server, 0)

  const david = new CookieJar()
  const signIn = await request(server.baseUrl, david, '/session', formPost({ email_address: labels.emails.david!, password: DEFAULT_PASSWORD }))
  assert.equal(signIn.status, 302)

  const acknowledgedAt = new Map<string, number>()
  let posting = true
  let sent = 0
  const posters = Array.from({ length: POSTERS }, async () => {
    while (posting) {
      const id = `replicated-${sent++}`
      const response = await request(server.baseUrl, david, `/rooms/${labels.rooms.watercooler}/messages`, formPost({ 'message[body]': `post ${id}`, 'message[client_message_id]': id })).catch(() => null)
      if (response && [200, 303].includes(response.status)) acknowledgedAt.set(id, Date.now())
    }
  })
  while (acknowledgedAt.size < 50) await sleep(10)

  // Litestream killed outright under load is started again, and replication goes on.
  const logBeforeKill = server.output().length
  process.kill(firstPid, 'SIGKILL')
  const secondPid = await litestreamPid(server, logBeforeKill)
  assert.notEqual(secondPid, firstPid)
  await shipped(server, logBeforeKill)
  const countAtRestart = acknowledgedAt.size
  while (acknowledgedAt.size < countAtRestart + 50) await sleep(10)
  await sleep(SYNC_INTERVAL_MS + MARGIN_MS)

  // The server killed outright: Litestream dies with it (it has no parent left to ship for).
  const killedAt = Date.now()
  server.child.kill('SIGKILL')
  posting = false
  await Promise.all(posters)
  const deadline = Date.now() + 10_000
  while (alive(secondPid)) {
    assert.ok(Date.now() < deadline, 'litestream died with the server')
    await sleep(50)
  }

  // The host's disk is lost: restore into an empty storage folder from the replica alone.
  rmSync(storage, { recursive: true, force: true })
  const restore = await runAdmin('restore', ['--from-replica', `file://${replica}`], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(restore.code, 0, restore.stderr)
  assert.match(restore.stdout, /Restored the database from file:\/\//)
  const databasePath = join(storage, 'db', 'production.sqlite3')
  assert.ok(existsSync(databasePath))
  assert.deepEqual(readdirSync(join(storage, 'db')).sort(), ['production.sqlite3', 'production.sqlite3.lock'], 'nothing left beside the restored file: no WAL, no .restoring.tmp-wal or -shm')

  const db = new BetterSqlite3(databasePath, { readonly: true })
  const present = new Set(db.prepare("SELECT client_message_id FROM messages WHERE client_message_id LIKE 'replicated-%'").pluck().all() as string[])
  db.close()
  const due = [...acknowledgedAt].filter(([, at]) => at < killedAt - SYNC_INTERVAL_MS - MARGIN_MS).map(([id]) => id)
  assert.ok(due.length >= 100, `${due.length} posts were acknowledged well before the kill`)
  const lost = due.filter((id) => !present.has(id))
  assert.deepEqual(lost, [], `every post acknowledged more than the sync interval before the kill is in the restored copy (${present.size} of ${acknowledgedAt.size} acknowledged are)`)

  // The restored copy boots, and the cookie from before the loss still signs David in.
  const restored = await startServer({ ...env, LITESTREAM_REPLICA_URL: '' })
  t.after(() => stopServer(restored, 'SIGKILL'))
  const home = await request(restored.baseUrl, david, '/')
  assert.equal(home.status, 302)
  assert.match(home.headers.get('location') ?? '', /^\/rooms\/\d+$/, 'the old session cookie is still signed in')
  const page = await request(restored.baseUrl, david, `/rooms/${labels.rooms.watercooler}`)
  assert.equal(page.status, 200)
})

test('restore from a replica refuses a storage folder that has a database, and a replica with nothing in it', { timeout: 60_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const refused = await runAdmin('restore', ['--from-replica', `file://${join(tempStorage(t), 'replica')}`], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /refusing to overwrite .*production\.sqlite3 exists/)

  const empty = join(tempStorage(t), 'empty')
  const nothing = await runAdmin('restore', ['--from-replica', `file://${join(tempStorage(t), 'no-replica')}`], { CAMPFIRE_STORAGE_PATH: empty })
  assert.equal(nothing.code, 1)
  assert.match(nothing.stderr, /litestream could not restore/)
  assert.deepEqual(readdirSync(join(empty, 'db')), ['production.sqlite3.lock'], 'no database, and nothing Litestream started')

  const both = await runAdmin('restore', ['some-backup', '--from-replica', 'file:///nowhere'], { CAMPFIRE_STORAGE_PATH: empty })
  assert.equal(both.code, 2)
  const badTime = await runAdmin('restore', ['--from-replica', 'file:///nowhere', '--timestamp', 'yesterday'], { CAMPFIRE_STORAGE_PATH: empty })
  assert.equal(badTime.code, 1)
  assert.match(badTime.stderr, /--timestamp must be a time/)
})

test("Litestream's own levels carry into the log: its level=ERROR lines at error, INFO at info, so LOG_LEVEL=warn still shows a failing replica", { timeout: 60_000 }, async (t) => {
  assert.equal(litestreamLevel('time=2026-01-01T00:00:00Z level=ERROR msg="monitor error"'), 'error')
  assert.equal(litestreamLevel('time=2026-01-01T00:00:00Z level=WARN msg="x"'), 'warn')
  assert.equal(litestreamLevel('time=2026-01-01T00:00:00Z level=DEBUG msg="x"'), 'debug')
  assert.equal(litestreamLevel('time=2026-01-01T00:00:00Z level=INFO msg="x"'), 'info')
  assert.equal(litestreamLevel('a line without a level'), 'info')

  const path = join(tempStorage(t), 'db.sqlite3')
  const db = new BetterSqlite3(path)
  db.pragma('journal_mode = WAL')
  db.exec('CREATE TABLE t (x)')
  db.close()
  const lines: [string, string][] = []
  const record = (level: string) => (_details: object, message: string) => void lines.push([level, message])
  // An SFTP replica on a loopback port nothing listens on: every sync fails.
  const litestream = startLitestream(path, 'sftp://nobody@127.0.0.1:1/replica', { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') })
  t.after(() => litestream.stop())
  const deadline = Date.now() + 30_000
  while (!lines.some(([level, message]) => level === 'error' && /level=ERROR/.test(message))) {
    assert.ok(Date.now() < deadline, `no error line:\n${lines.map((line) => line.join(' ')).join('\n')}`)
    await sleep(50)
  }
  const litestreamLines = lines.filter(([, message]) => message.startsWith('litestream: '))
  for (const [level, message] of litestreamLines) assert.equal(level, litestreamLevel(message), message)
  assert.ok(litestreamLines.some(([level, message]) => level === 'info' && /level=INFO/.test(message)))
  assert.ok(!litestreamLines.some(([level, message]) => level !== 'error' && /level=ERROR/.test(message)))
})
