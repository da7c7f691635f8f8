// The unread fan-out on the large fixture: `npm run bench:fanout`. Every member of the biggest
// room (10,003 on seed:large) holds a socket subscribed to UnreadRoomsChannel; person 1 posts
// --posts messages (5), one every --interval-ms (2000), and for each the time is taken from the
// post being sent, and from its acknowledgement, until the unread notice ({"roomId":…}) reached
// the last of those sockets (performance.md §1.1 lesson 6: 24 ms in one batch, 1,038 ms published
// one by one). Measured at the sockets, by the generator pinned to core 1.
//
//   npm run bench:fanout                                 tmp/bench/large (seeded first if missing)
//   npm run bench:fanout -- --fixture DIR --posts 10 --interval-ms 1000 --room 1
//   npm run bench:fanout -- --base http://127.0.0.1:3000 --fixture DIR
//
// Other options: --in-place (no copy of the fixture), --no-pin, --tsx (server sources under tsx),
// --server-dir DIR, --out DIR.
// Saves tmp/bench/fanout-<stamp>.json and .md with an SVG plot.
import BetterSqlite3 from 'better-sqlite3'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildFixture, largeSpec } from './fixtures.ts'
import { fixturePaths, readPeople, ROOT } from './support/fixture.ts'
import { HttpClient, isFailure } from './support/http.ts'
import { processCpuSeconds, processMemory, round, selfCpuSeconds } from './support/measure.ts'
import { writeFanoutReport } from './support/report.ts'
import { flag, number, path, readOptions, text } from './support/options.ts'
import { checkPost } from './support/page-checks.ts'
import { RawWebSocket } from './support/raw-websocket.ts'
import { copyStorage, makeMeters, reexecPinned, sleep, stampNow, startServer, stopServer, type ServerChild } from './support/server.ts'
import { percentiles } from './support/stats.ts'

const SCRIPT = fileURLToPath(import.meta.url)
const PINNED_ENV = 'CAMPFIRE_BENCH_FANOUT_PINNED'
const UNREAD = JSON.stringify({ channel: 'UnreadRoomsChannel' })

interface Options {
  fixture: string
  base: string | null
  room: number
  posts: number
  intervalMs: number
  inPlace: boolean
  serverDir: string
  pin: boolean
  tsx: boolean
  out: string
}

const OPTIONS = {
  fixture: path('DIR', 'the fixture folder (seeded with npm run seed:large first when missing, unless --base)', 'tmp/bench/large'),
  base: text('URL', 'a server that is already up, serving --fixture, instead of starting ours'),
  room: number('ID', 'the room whose members hold sockets', 1, { integer: true, min: 1 }),
  posts: number('N', 'how many messages person 1 posts', 5, { integer: true, min: 1 }),
  'interval-ms': number('MS', 'the time from one post to the next', 2000),
  'in-place': flag('run on the fixture itself, not a copy'),
  'server-dir': path('DIR', "start another checkout's server", '.', 'this checkout'),
  out: path('DIR', 'where the report goes', 'tmp/bench'),
  'no-pin': flag('do not pin the server and the generator to their cores'),
  tsx: flag("run the server's sources under tsx instead of compiling them as npm start does"),
}

const SUMMARY = `The unread fan-out: every member of the biggest room holds a socket subscribed to
UnreadRoomsChannel; person 1 posts, and the time until the notice reached the last socket is
reported. Saves tmp/bench/fanout-<stamp>.json and .md. See README.md, "Unread fan-out".`

function parseOptions(argv: string[]): Options {
  const v = readOptions({ name: 'bench:fanout', summary: SUMMARY, options: OPTIONS }, argv)
  return {
    fixture: v.fixture, base: v.base?.replace(/\/$/, '') ?? null, room: v.room, posts: v.posts, intervalMs: v.intervalMs,
    inPlace: v.inPlace, serverDir: v.serverDir, pin: !v.noPin, tsx: v.tsx, out: v.out,
  }
}

function fail(message: string): never {
  console.error(`bench:fanout: ${message}`)
  process.exit(2)
}

interface Notice {
  seq: number
  sentAt: number
  ackAt: number | null
  got: Uint8Array
  count: number
  firstAt: number
  lastAt: number
  // CPU seconds each side spent from the post being sent until the last notice arrived.
  serverCpu: number | null
  generatorCpu: number
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2))
  if (reexecPinned(SCRIPT, ROOT, PINNED_ENV, options.pin)) return
  const stamp = stampNow()
  mkdirSync(options.out, { recursive: true })
  const paths = fixturePaths(options.fixture)
  if (!existsSync(paths.database)) {
    if (options.base !== null) fail(`no fixture at ${options.fixture}`)
    console.log(`bench:fanout: no fixture at ${options.fixture}; seeding it (npm run seed:large, a few minutes)…`)
    buildFixture(options.fixture, largeSpec(), true)
  }
  const db = new BetterSqlite3(paths.database, { readonly: true })
  const members = new Set(db.prepare<[number], number>('SELECT user_id FROM memberships WHERE room_id = ?').pluck().all(options.room))
  db.close()
  const people = readPeople(paths.people).filter((p) => members.has(p.id))
  const poster = people.find((p) => p.id === 1) ?? people[0]!
  let server: ServerChild | null = null
  let storage: string | null = null
  const sockets: RawWebSocket[] = []
  try {
    let baseUrl = options.base ?? ''
    if (options.base === null) {
      console.log(`bench:fanout: copying ${options.fixture}…`)
      storage = options.inPlace ? options.fixture : copyStorage(options.fixture)
      server = await startServer(options.serverDir, storage, join(options.out, `fanout-${stamp}-server.log`), {}, options.tsx)
      baseUrl = server.baseUrl
    }
    const url = new URL(baseUrl)
    const meters = makeMeters(server?.pid ?? null)
    const notices: Notice[] = []
    let current: Notice | null = null
    const roomMarker = Buffer.from(`"roomId":${options.room}`)
    let ready = 0
    let failed = 0
    let inFlight = 0
    let next = 0
    const connectStarted = performance.now()
    console.log(`bench:fanout: connecting ${people.length} members of room ${options.room}…`)
    await new Promise<void>((done) => {
      const settle = () => {
        if (ready + failed === people.length) done()
      }
      const pump = () => {
        while (inFlight < 50 && next < people.length) {
          const index = next++
          inFlight++
          let welcomed = false
          let confirmed = false
          const socket = new RawWebSocket(
            { host: url.hostname, port: Number(url.port), path: '/cable', protocols: ['actioncable-v1-json'], handshakeTimeoutMs: 30_000, headers: { Origin: url.origin, Cookie: people[index]!.cookie } },
            {
              onOpen: () => {
                inFlight--
                pump()
              },
              onText: (payload, at) => {
                if (!welcomed && payload.indexOf('"type":"welcome"') >= 0) {
                  welcomed = true
                  socket.sendText(JSON.stringify({ command: 'subscribe', identifier: UNREAD }))
                } else if (!confirmed && payload.indexOf('confirm_subscription') >= 0) {
                  confirmed = true
                  ready++
                  settle()
                } else if (current && payload.indexOf(roomMarker) >= 0 && !current.got[index]) {
                  current.got[index] = 1
                  if (current.count++ === 0) current.firstAt = at
                  current.lastAt = at
                }
              },
              onClose: () => {
                if (!confirmed) {
                  inFlight = Math.max(0, inFlight - 1)
                  failed++
                  settle()
                  pump()
                }
              },
            },
          )
          sockets.push(socket)
        }
      }
      pump()
    })
    const connectSecs = (performance.now() - connectStarted) / 1000
    console.log(`bench:fanout: ${ready} subscribed (${failed} failed) in ${round(connectSecs, 1)} s; server RSS ${server ? processMemory(server.pid)?.rss_mb : '–'} MB`)
    await sleep(1000)
    meters.lap()
    const http = new HttpClient(baseUrl, 2)
    const postErrors: string[] = []
    for (let seq = 1; seq <= options.posts; seq++) {
      const serverBefore = server ? processCpuSeconds(server.pid) : null
      const generatorBefore = selfCpuSeconds()
      const notice: Notice = { seq, sentAt: performance.now(), ackAt: null, got: new Uint8Array(people.length), count: 0, firstAt: 0, lastAt: 0, serverCpu: null, generatorCpu: 0 }
      current = notice
      notices.push(notice)
      const text = `bench write ${randomBytes(6).toString('hex')} fanout ${seq}`
      const answer = await http.request({
        method: 'POST', path: `/rooms/${options.room}/messages`,
        body: new URLSearchParams({ 'message[body]': text, 'message[client_message_id]': randomBytes(16).toString('hex') }).toString(),
        headers: { cookie: poster.cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml', 'sec-fetch-site': 'same-origin' },
      })
      notice.ackAt = performance.now()
      if (isFailure(answer)) postErrors.push(answer.error)
      else {
        const { failure } = checkPost(answer.status, answer.headers['content-type'], answer.body.toString('utf8'), text)
        if (failure) postErrors.push(failure)
      }
      const deadline = notice.sentAt + 30_000
      while (notice.count < ready && performance.now() < deadline) await sleep(2)
      const serverAfter = server ? processCpuSeconds(server.pid) : null
      notice.serverCpu = serverBefore !== null && serverAfter !== null ? serverAfter - serverBefore : null
      notice.generatorCpu = selfCpuSeconds() - generatorBefore
      await sleep(Math.max(0, options.intervalMs - (performance.now() - notice.sentAt)))
    }
    current = null
    const lap = meters.lap()
    http.close()
    const complete = notices.filter((n) => n.count >= ready)
    const report = {
      benchmark: 'fanout', stamp, target: options.base ?? `${baseUrl} (started by this script)`, fixture: options.fixture, room: options.room,
      members: people.length, subscribed: ready, failed, connect_secs: round(connectSecs, 2), posts: notices.length, post_errors: postErrors,
      complete: complete.length,
      post_ack_ms: percentiles(notices.filter((n) => n.ackAt).map((n) => n.ackAt! - n.sentAt)),
      sent_to_last_socket_ms: percentiles(complete.map((n) => n.lastAt - n.sentAt)),
      ack_to_last_socket_ms: percentiles(complete.map((n) => n.lastAt - n.ackAt!)),
      first_to_last_socket_ms: percentiles(complete.map((n) => n.lastAt - n.firstAt)),
      // CPU time from post sent to last notice received (clock-tick resolution, 10 ms): contention-robust.
      server_cpu_ms_per_post: percentiles(notices.filter((n) => n.serverCpu !== null).map((n) => n.serverCpu! * 1000)),
      generator_cpu_ms_per_post: percentiles(notices.map((n) => n.generatorCpu * 1000)),
      per_post: notices.map((n) => ({
        seq: n.seq, received: n.count, ack_ms: n.ackAt && round(n.ackAt - n.sentAt), sent_to_last_ms: n.count ? round(n.lastAt - n.sentAt) : null,
        ack_to_last_ms: n.count && n.ackAt ? round(n.lastAt - n.ackAt) : null, first_to_last_ms: n.count ? round(n.lastAt - n.firstAt) : null,
        server_cpu_ms: n.serverCpu === null ? null : round(n.serverCpu * 1000), generator_cpu_ms: round(n.generatorCpu * 1000),
      })),
      server_cpu_percent: lap.server_cpu_percent, generator_cpu_percent: lap.generator_cpu_percent, generator_loop_lag: lap.generator_loop_lag,
      core_busy_percent: lap.core_busy_percent, server_memory: server ? processMemory(server.pid) : null,
    }
    const file = join(options.out, `fanout-${stamp}.json`)
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    writeFanoutReport(report, options.out, `fanout-${stamp}`)
    console.log(`bench:fanout: ${complete.length}/${notices.length} posts reached all ${ready} sockets; post ack p50 ${report.post_ack_ms.p50_ms} ms; sent → last socket p50 ${report.sent_to_last_socket_ms.p50_ms} / max ${report.sent_to_last_socket_ms.max_ms} ms; ack → last socket p50 ${report.ack_to_last_socket_ms.p50_ms} / max ${report.ack_to_last_socket_ms.max_ms} ms`)
    for (const row of report.per_post) console.log(`  post ${row.seq}: ${row.received} notices, ack ${row.ack_ms} ms, sent → last ${row.sent_to_last_ms} ms, ack → last ${row.ack_to_last_ms} ms, first → last ${row.first_to_last_ms} ms; CPU server ${row.server_cpu_ms ?? '–'} ms, generator ${row.generator_cpu_ms} ms`)
    console.log(`  JSON: ${file}`)
    process.exitCode = complete.length === notices.length && postErrors.length === 0 ? 0 : 1
  } finally {
    for (const socket of sockets) socket.destroy()
    if (server) await stopServer(server)
    if (storage && !options.inPlace) rmSync(storage, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
