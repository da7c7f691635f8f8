import { test } from 'node:test'
import assert from 'node:assert/strict'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { CookieJar, formPost, request, startServer, stopServer } from './support/server-process.ts'
import { smallFilesystem } from './support/small-filesystem.ts'
import { openCable } from './cluster/cluster-helper.ts'
import { SECRET_KEY_BASE } from './helper.ts'

const TURBO = 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml'
const POSTERS = 6

interface Answer {
  at: number
  status: number
  phase: 'before' | 'full' | 'freed'
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('a full filesystem is answered 507 with one warning, and writes come back by themselves once space returns', { timeout: 180_000 }, async (t) => {
  const fs = smallFilesystem()
  t.after(() => fs.remove())
  t.diagnostic(`filled with: ${fs.kind}`)
  // No reserve: every refusal here comes from a write that really failed for lack of space.
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: fs.dir, SECRET_KEY_BASE, DISABLE_SSL: 'true', LOG_FORMAT: 'json', CAMPFIRE_MIN_FREE_MB: '0' })
  t.after(() => stopServer(server, 'SIGKILL'))
  const pid = server.child.pid!

  const jar = new CookieJar()
  const setup = await request(server.baseUrl, jar, '/first_run', formPost({ 'user[name]': 'Ada', 'user[email_address]': 'ada@example.com', 'user[password]': 'secret123456' }))
  assert.equal(setup.status, 302)
  assert.equal((await request(server.baseUrl, jar, '/account/bots', formPost({ 'user[name]': 'Robo' }))).status, 302)
  const databasePath = join(fs.dir, 'db', 'production.sqlite3')
  const setupDb = new BetterSqlite3(databasePath, { readonly: true })
  const roomId = setupDb.prepare('SELECT min(id) FROM rooms').pluck().get() as number
  const bot = setupDb.prepare('SELECT id, bot_token FROM users WHERE bot_token IS NOT NULL').get() as { id: number; bot_token: string }
  setupDb.close()

  // The log is read from the moment the posters start: on a fast machine the WAL alone can fill
  // the disk before fill() runs.
  const logBefore = server.output().length
  let phase: Answer['phase'] = 'before'
  let stop = false
  const answers: Answer[] = []
  const acknowledged: string[] = []
  const unexpected: string[] = []
  const poster = async (n: number) => {
    for (let i = 0; !stop; i++) {
      const id = `p${n}x${i}`
      const response = await request(server.baseUrl, jar, `/rooms/${roomId}/messages`, {
        ...formPost({ 'message[body]': `poster ${n} says ${i} ${'words '.repeat(40)}`, 'message[client_message_id]': id }),
        headers: { ...formPost({}).headers, accept: TURBO },
      })
      const body = await response.text()
      answers.push({ at: performance.now(), status: response.status, phase })
      if (response.status === 200) acknowledged.push(id)
      else if (response.status === 507) {
        if (!response.headers.get('content-type')?.startsWith('text/vnd.turbo-stream.html') || !body.includes('out of disk space') || response.headers.get('retry-after') !== '60') unexpected.push(body.slice(0, 200))
      } else unexpected.push(`${response.status} ${body.slice(0, 200)}`)
      await sleep(5)
    }
  }
  const posters = Array.from({ length: POSTERS }, (_, n) => poster(n))
  // Browser tabs coming and going: each subscription writes presence, which fails while full.
  let tabs = 0
  const presence = JSON.stringify({ channel: 'PresenceChannel', room_id: roomId })
  const tabLoop = (async () => {
    while (!stop) {
      const cable = await openCable(t, server.baseUrl, jar.header())
      cable.subscribe(presence)
      await sleep(100)
      cable.socket.close()
      tabs++
    }
  })()
  await sleep(1500)

  // Full: the filesystem (or the file-size limit) leaves no room, and anything the server
  // gives back is taken again, as another program filling the disk would.
  phase = 'full'
  fs.fill(pid)
  const filling = setInterval(() => fs.fill(pid), 200)
  const fullSince = performance.now()
  while (!answers.some((a) => a.phase === 'full' && a.status === 507) && performance.now() - fullSince < 20_000) await sleep(50)
  await sleep(3000)
  const page = await request(server.baseUrl, jar, `/rooms/${roomId}/messages`, formPost({ 'message[body]': 'from a plain form' }))
  const botAnswer = await fetch(`${server.baseUrl}/rooms/${roomId}/${bot.id}-${bot.bot_token}/messages`, { method: 'POST', body: 'from a bot' })
  const reading = await request(server.baseUrl, jar, `/rooms/${roomId}`)
  clearInterval(filling)
  const walWhileFull = statSafe(`${databasePath}-wal`)

  // Freed, with the posters still posting.
  fs.free(pid)
  phase = 'freed'
  const freedAt = performance.now()
  while (!answers.some((a) => a.phase === 'freed' && a.status === 200) && performance.now() - freedAt < 20_000) await sleep(20)
  const recoveryMs = (answers.find((a) => a.phase === 'freed' && a.status === 200)?.at ?? Number.POSITIVE_INFINITY) - freedAt
  await sleep(3000)
  const walAfter = statSafe(`${databasePath}-wal`)
  stop = true
  await Promise.all([...posters, tabLoop])
  const truncated = /WAL checkpoint succeeded again and truncated the WAL/.test(server.output().slice(logBefore))
  // Warnings and errors (request lines, at info, are one per request whatever happens).
  const logWhileFull = server.output().slice(logBefore).split('\n').filter((line) => /"level":(40|50|60)/.test(line))
  await stopServer(server, 'SIGTERM')

  const whileFull = answers.filter((a) => a.phase === 'full')
  const refused = whileFull.filter((a) => a.status === 507).length
  const lastRefusal = Math.max(...answers.filter((a) => a.status === 507).map((a) => a.at))
  t.diagnostic(`while full: ${refused} × 507 of ${whileFull.length} posts; warnings and errors logged from filling to the end: ${logWhileFull.length}; first post accepted ${Math.round(recoveryMs)} ms after space returned; refusals stopped ${Math.round(lastRefusal - freedAt)} ms after it; acknowledged ${acknowledged.length}; ${tabs} tabs opened; WAL ${walWhileFull} bytes while full, ${walAfter} bytes 3 s after`)
  for (const line of logWhileFull) t.diagnostic(line.slice(0, 300))

  assert.deepEqual(unexpected, [], 'every refusal is a 507 Turbo Stream that says the disk is full')
  assert.ok(refused > 0, 'posts were refused while the disk was full')
  assert.equal(page.status, 507)
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
  assert.match(await page.text(), /Error 507.*<h1>[^<]*out of disk space/s)
  assert.equal(botAnswer.status, 507)
  assert.deepEqual(await botAnswer.json(), { error: 'The server is out of disk space, so nothing was saved. Try again in a few minutes.', status: 507 })
  assert.equal(reading.status, 200, 'reads keep working on a full disk')

  const warnings = logWhileFull.filter((line) => line.includes('out of disk space'))
  assert.equal(warnings.length, 1, 'one warning a minute, however many writes are refused')
  assert.deepEqual(logWhileFull.filter((line) => /"level":(50|60)/.test(line)), [], 'no error lines')
  assert.ok(logWhileFull.length <= 3, `a warning or two, not one per request (${logWhileFull.length})`)

  assert.ok(recoveryMs < 3000, `writes succeed again within 3 s of space returning (${Math.round(recoveryMs)} ms)`)
  assert.ok(lastRefusal - freedAt < 3000, 'and stay accepted')
  assert.ok(truncated, 'a TRUNCATE checkpoint ran once space returned, with posters still posting')

  const db = new BetterSqlite3(databasePath)
  t.after(() => db.close())
  const stored = new Set(db.prepare('SELECT client_message_id FROM messages').pluck().all() as string[])
  assert.deepEqual(acknowledged.filter((id) => !stored.has(id)), [], 'no acknowledged post is lost')
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok')
  t.diagnostic(`WAL after a clean shutdown: ${statSafe(`${databasePath}-wal`)} bytes`)
})

function statSafe(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
