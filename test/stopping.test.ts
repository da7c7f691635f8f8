import { test } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { connect, type Socket } from 'node:net'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { chromiumAvailable, launchBrowser, openTab, waitUntilLive } from './browser/support/browser.ts'
import { SECRET_KEY_BASE, tempStorage } from './helper.ts'
import { compiledServer } from './support/compiled-server.ts'
import { freePort } from './support/ports.ts'
import { kill, loggedPids, startGroup, type Group } from './support/process-group.ts'
import { RedisServer } from './support/redis-server.ts'
import { CookieJar, formPost, request } from './support/server-process.ts'

// `docker stop` sends SIGTERM and kills 10 s later; a terminal's Ctrl-C or an orchestrator
// signals the whole process group. Whatever clients hold, the server is gone within 5 s, and
// nothing it acknowledged is lost.
const LIMIT_MS = 5_000
const TURBO = 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml'
const FLAGS = ['--enable-source-maps', '--max-semi-space-size=8']

interface Launch {
  name: string
  workers: number
  command: () => Promise<string[]>
  // Where SIGTERM goes: the whole group (a terminal, `npm start` under a supervisor), or the
  // entry point alone (as tini passes `docker stop`'s SIGTERM to the container's command).
  signal: 'group' | 'process'
}

const npmStart = async () => ['npm', 'start']
const containerEntry = async () => ['node', ...FLAGS, join(dirname(await compiledServer()), 'container.js')]
const LAUNCHES: Launch[] = [
  { name: 'npm start', workers: 1, command: npmStart, signal: 'group' },
  { name: 'npm start', workers: 2, command: npmStart, signal: 'group' },
  { name: "the container's entry point", workers: 1, command: containerEntry, signal: 'process' },
  { name: "the container's entry point", workers: 2, command: containerEntry, signal: 'process' },
]

for (const launch of LAUNCHES) {
  test(`SIGTERM stops ${launch.name} with WEB_CONCURRENCY=${launch.workers} within 5 s while a browser, an idle keep-alive connection and a half-sent body are held, and keeps every acknowledged post`, { timeout: 600_000, skip: !chromiumAvailable() && 'chromium is not installed' }, async (t) => {
    const storage = tempStorage(t)
    const env: Record<string, string> = { CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', HTTP_PORT: String(await freePort()), HTTP_BIND: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json', WEB_CONCURRENCY: String(launch.workers) }
    if (launch.workers > 1 && launch.command === npmStart) env.REDIS_URL = (await RedisServer.start(t)).url
    const server = await startGroup(await launch.command(), env)
    t.after(() => kill(server))

    const jar = new CookieJar()
    const first = await request(server.baseUrl, jar, '/first_run', formPost({ 'user[name]': 'Ada', 'user[email_address]': 'ada@example.com', 'user[password]': 'secret123456' }))
    assert.equal(first.status, 302)
    const roomPath = (await request(server.baseUrl, jar, '/')).headers.get('location')!
    assert.match(roomPath, /^\/rooms\/\d+$/)

    const frames: string[] = []
    const tab = await openTab(await launchBrowser(t), server.baseUrl)
    await tab.context.addCookies(jar.header().split('; ').map((pair) => ({ name: pair.split('=')[0]!, value: pair.slice(pair.indexOf('=') + 1), url: server.baseUrl })))
    tab.page.on('websocket', (socket) => socket.on('framereceived', ({ payload }) => void frames.push(String(payload))))
    await tab.page.goto(roomPath)
    await waitUntilLive(tab.page)

    const port = Number(new URL(server.baseUrl).port)
    const idle = await hold(port, 'GET /up HTTP/1.1\r\nHost: localhost\r\n\r\n', /\r\n\r\n/)
    const half = await hold(port, `POST /session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nemail_address=`)

    // Posts keep coming; SIGTERM goes out once ten have been answered, with more under way.
    const acknowledged: string[] = []
    let signalled = 0
    let posting = true
    const poster = async (n: number) => {
      for (let i = 0; posting; i++) {
        const id = `p${n}-${i}`
        const response = await request(server.baseUrl, jar, `${roomPath}/messages`, { ...formPost({ 'message[body]': `poster ${n} message ${i}`, 'message[client_message_id]': id }), headers: { ...formPost({}).headers, accept: TURBO } }).catch(() => null)
        if (response === null) return
        await response.arrayBuffer().catch(() => undefined)
        if (response.status === 200) acknowledged.push(id)
        if (acknowledged.length >= 10 && signalled === 0) {
          signalled = performance.now()
          process.kill(launch.signal === 'group' ? -server.child.pid! : server.child.pid!, 'SIGTERM')
        }
      }
    }
    const posters = Promise.all([1, 2, 3].map(poster))
    const stoppedMs = await waitForSignal(() => signalled).then(() => server.gone(LIMIT_MS + 5_000))
    posting = false
    await posters

    t.diagnostic(`stopped ${Math.round(stoppedMs)} ms after SIGTERM; ${acknowledged.length} posts acknowledged`)
    assert.ok(stoppedMs < LIMIT_MS, `every process of the group was gone ${Math.round(stoppedMs)} ms after SIGTERM`)
    assert.ok(idle.closed() && half.closed(), 'the held connections were closed')
    assert.ok(
      frames.some((frame) => /"type":"disconnect","reason":"server_restart","reconnect":true/.test(frame)),
      `the browser was told to reconnect (frames: ${frames.slice(-3).join(' | ')})`,
    )
    assert.match(server.output(), /shutting down/)
    assert.doesNotMatch(server.output(), /still stopping/, 'nothing needed the last resort')
    assert.ok(loggedPids(server.output()).size >= launch.workers, 'the log names the serving processes')

    const db = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })
    t.after(() => db.close())
    const stored = new Set(db.prepare('SELECT client_message_id FROM messages').pluck().all() as string[])
    for (const id of acknowledged) assert.ok(stored.has(id), `${id} was acknowledged but is not in the database`)
    assert.ok(acknowledged.length >= 10)
  })
}

test('SIGTERM to npm alone (which leaves its shell and the launcher behind) still stops the server within 5 s', { timeout: 600_000 }, async (t) => {
  const storage = tempStorage(t)
  const env = { CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', HTTP_PORT: String(await freePort()), HTTP_BIND: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json' }
  const server = await startGroup(['npm', 'start'], env)
  t.after(() => kill(server))
  const started = performance.now()
  server.child.kill('SIGTERM')
  const stoppedMs = await server.gone(LIMIT_MS + 5_000)
  t.diagnostic(`stopped ${Math.round(stoppedMs)} ms after SIGTERM`)
  assert.ok(stoppedMs < LIMIT_MS, `the group was gone ${Math.round(performance.now() - started)} ms after npm was sent SIGTERM`)
})

interface Held {
  socket: Socket
  closed: () => boolean
}

// A raw connection that sends `text` and then holds on (reading, if `answered`, until it matches).
async function hold(port: number, text: string, answered?: RegExp): Promise<Held> {
  const socket = connect(port, '127.0.0.1')
  let received = ''
  let closed = false
  socket.on('data', (chunk) => (received += chunk.toString()))
  socket.on('error', () => undefined)
  socket.on('close', () => (closed = true))
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write(text)
  while (answered && !answered.test(received)) await sleep(10)
  return { socket, closed: () => closed }
}

async function waitForSignal(signalled: () => number): Promise<void> {
  const deadline = performance.now() + 60_000
  while (signalled() === 0) {
    if (performance.now() > deadline) throw new Error('ten posts were never acknowledged')
    await sleep(10)
  }
}
