// The unread fan-out on the large fixture: `npm run bench:fanout`. Every member of the biggest
// room (10,003 on seed:large) holds a socket subscribed to UnreadRoomsChannel and to the room's
// messages (RoomMessagesChannel, as a page showing the room is: an open room's notice goes to a
// socket once until it shows the room again, so this is the case where every post reaches
// everyone, the message and its notice in one write); person 1 posts
// --posts messages (5), one every --interval-ms (2000), and for each the time is taken from the
// post being sent, and from its acknowledgement, until the unread notice ({"roomId":…}) reached
// the last of those sockets (performance.md §1.1 lesson 6: 24 ms in one batch, 1,038 ms published
// one by one). Measured at the sockets, by the generator pinned to core 1.
// Then the floor (unless --no-floor or --base): once the server has stopped, as many sockets
// connect to a bare broadcaster on the server's core (support/floor-server.ts: no database, no
// channels), which is told --posts times, --interval-ms apart, to write each of them one frame
// as big as the unread notice was. Its time from being told to the last socket is the analogue of
// the acknowledgement → last socket, and the report gives ours as a multiple of it.
//
//   npm run bench:fanout                                 tmp/bench/large (seeded first if missing)
//   npm run bench:fanout -- --fixture DIR --posts 10 --interval-ms 1000 --room 1
//   npm run bench:fanout -- --base http://127.0.0.1:3000 --fixture DIR
//   npm run bench:fanout -- --no-floor                   skips the floor
//   npm run bench:fanout -- --cpu-prof                   also profiles the server (node --cpu-prof, every 200 µs)
//                                                        and names its top frames from post sent to last notice
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
import { describeProfiles, type ProfileSummary, type ProfileWindow } from './support/cpu-profile.ts'
import { fixturePaths, readPeople, ROOT } from './support/fixture.ts'
import { HttpClient, isFailure } from './support/http.ts'
import { processesCpuSeconds, processMemory, round, selfCpuSeconds } from './support/measure.ts'
import { writeFanoutReport } from './support/report.ts'
import { flag, number, path, readOptions, text } from './support/options.ts'
import { checkPost, scanPage } from './support/page-checks.ts'
import { RawWebSocket } from './support/raw-websocket.ts'
import { copyStorage, cpuProfileFlags, makeMeters, pinningAvailable, processOptionsOf, PROCESS_OPTIONS, reexecPinned, SERVER_CORE, sharesGeneratorCore, sleep, stampNow, startServer, stopServer, type ServerChild, type ServerExtras } from './support/server.ts'
import { measureFloor, type FloorReport } from './support/socket-floor.ts'
import { percentiles } from './support/stats.ts'

const SCRIPT = fileURLToPath(import.meta.url)
const PINNED_ENV = 'CAMPFIRE_BENCH_FANOUT_PINNED'
const UNREAD = JSON.stringify({ channel: 'UnreadRoomsChannel' })
const PROFILE_US = 200

interface Options {
  fixture: string
  base: string | null
  room: number
  posts: number
  intervalMs: number
  inPlace: boolean
  serverDir: string
  pin: boolean
  floor: boolean
  processes: ServerExtras
  cpuProf: boolean
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
  'no-floor': flag("skip the floor (the same sockets and notice bytes through a bare broadcaster on the server's core)"),
  'cpu-prof': flag('also profile the server (node --cpu-prof) and name its top frames from each post sent to its last notice'),
  tsx: flag("run the server's sources under tsx instead of compiling them as npm start does"),
  ...PROCESS_OPTIONS,
}

const SUMMARY = `The unread fan-out: every member of the biggest room holds a socket subscribed to
UnreadRoomsChannel and showing the room (its messages); person 1 posts, and the time until the notice reached the last socket is
reported, then the same for a bare broadcaster (the floor). Saves tmp/bench/fanout-<stamp>.json
and .md. See docs/benchmarks.md, "Unread fan-out".`

function parseOptions(argv: string[]): Options {
  const v = readOptions({ name: 'bench:fanout', summary: SUMMARY, options: OPTIONS }, argv)
  return {
    fixture: v.fixture, base: v.base?.replace(/\/$/, '') ?? null, room: v.room, posts: v.posts, intervalMs: v.intervalMs,
    inPlace: v.inPlace, serverDir: v.serverDir, pin: !v.noPin && !sharesGeneratorCore(v.serverCores), floor: !v.noFloor, processes: processOptionsOf(v), cpuProf: v.cpuProf, tsx: v.tsx, out: v.out,
  }
}

// A text frame's size on the wire (server frames are unmasked).
function wireBytes(payload: number): number {
  return payload + (payload < 126 ? 2 : payload < 65_536 ? 4 : 10)
}

function ratio(ours: number | null, floor: number | null): number | null {
  return ours !== null && floor ? round(ours / floor, 2) : null
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
  bytes: number // the notice frame's size on the wire
  firstAt: number
  lastAt: number
  // CPU seconds each side spent from the post being sent until the last notice arrived.
  serverCpu: number | null
  generatorCpu: number
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2))
  if (options.cpuProf && options.base !== null) fail('--cpu-prof only works on the server this script starts')
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
  const profileDir = join(options.out, `fanout-${stamp}-prof`)
  let profile: ProfileSummary[] | null = null
  let profileLines: string[] = []
  const sockets: RawWebSocket[] = []
  try {
    let baseUrl = options.base ?? ''
    if (options.base === null) {
      console.log(`bench:fanout: copying ${options.fixture}…`)
      storage = options.inPlace ? options.fixture : copyStorage(options.fixture)
      const profileFlags = options.cpuProf ? cpuProfileFlags(profileDir, PROFILE_US) : []
      server = await startServer(options.serverDir, storage, join(options.out, `fanout-${stamp}-server.log`), {}, options.tsx, profileFlags, options.processes)
      baseUrl = server.baseUrl
    }
    const url = new URL(baseUrl)
    const meters = makeMeters(server?.pids ?? null)
    const notices: Notice[] = []
    let current: Notice | null = null
    const roomMarker = Buffer.from(`"roomId":${options.room}`)
    let ready = 0
    let failed = 0
    let inFlight = 0
    let next = 0
    const connectStarted = performance.now()
    // The room's signed message stream, the same for every member, from its page.
    const page = await new HttpClient(baseUrl, 1).request({ method: 'GET', path: `/rooms/${options.room}`, headers: { cookie: poster.cookie, accept: 'text/html' } })
    const messagesStream = isFailure(page) ? undefined : scanPage(page.body, 'room').streams.find((stream) => stream.channel === 'RoomMessagesChannel')?.signed
    if (messagesStream === undefined) throw new Error(`bench:fanout: no message stream on room ${options.room}'s page`)
    const ROOM = JSON.stringify({ channel: 'RoomMessagesChannel', signed_stream_name: messagesStream })
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
          let confirmations = 0
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
                  socket.sendText(JSON.stringify({ command: 'subscribe', identifier: ROOM }))
                } else if (!confirmed && payload.indexOf('confirm_subscription') >= 0) {
                  if (++confirmations < 2) return
                  confirmed = true
                  ready++
                  settle()
                } else if (current && payload.indexOf(roomMarker) >= 0 && !current.got[index]) {
                  current.got[index] = 1
                  if (current.count++ === 0) {
                    current.firstAt = at
                    current.bytes = wireBytes(payload.length)
                  }
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
      const serverBefore = server ? processesCpuSeconds(server.pids) : null
      const generatorBefore = selfCpuSeconds()
      const notice: Notice = { seq, sentAt: performance.now(), ackAt: null, got: new Uint8Array(people.length), count: 0, bytes: 0, firstAt: 0, lastAt: 0, serverCpu: null, generatorCpu: 0 }
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
      const serverAfter = server ? processesCpuSeconds(server.pids) : null
      notice.serverCpu = serverBefore !== null && serverAfter !== null ? serverAfter - serverBefore : null
      notice.generatorCpu = selfCpuSeconds() - generatorBefore
      await sleep(Math.max(0, options.intervalMs - (performance.now() - notice.sentAt)))
    }
    current = null
    const lap = meters.lap()
    http.close()
    const complete = notices.filter((n) => n.count >= ready)
    const serverMemory = server ? processMemory(server.pid) : null
    const ackToLast = percentiles(complete.map((n) => n.lastAt - n.ackAt!))
    let floor: FloorReport | null = null
    let floorCores: number[] | null = null
    const floorNotes: string[] = []
    const noticeBytes = Math.max(0, ...notices.map((n) => n.bytes))
    if (server && options.cpuProf) {
      // The profile is written as the server exits. Its clock is CLOCK_MONOTONIC in µs, as hrtime's.
      const offsetUs = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000
      const windows: ProfileWindow[] = notices.filter((n) => n.count > 0).map((n) => ({ fromUs: n.sentAt * 1000 + offsetUs, toUs: n.lastAt * 1000 + offsetUs }))
      for (const socket of sockets.splice(0)) socket.destroy()
      await stopServer(server)
      server = null
      if (existsSync(profileDir)) ({ summaries: profile, lines: profileLines } = describeProfiles(profileDir, options.serverDir, 25, 8, windows))
    }
    if (options.floor && options.base === null && ready > 0 && noticeBytes > 0) {
      for (const socket of sockets.splice(0)) socket.destroy()
      if (server) await stopServer(server)
      server = null
      console.log(`bench:fanout: floor: ${options.posts} notices of ${noticeBytes} bytes to ${ready} sockets through a bare broadcaster…`)
      const floorMeters = makeMeters(null)
      try {
        floor = await measureFloor({
          clients: ready, bytesPerPost: noticeBytes, singleFrame: true, posts: options.posts, intervalMs: options.intervalMs,
          core: pinningAvailable() ? SERVER_CORE : null, connectTimeoutMs: 120_000, drainSecs: 30,
        })
        if (floor.ready < floor.clients || floor.complete < floor.posts) {
          floorNotes.push(`the floor had ${floor.ready} of ${floor.clients} sockets and ${floor.complete} of ${floor.posts} posts complete: its figures are not comparable`)
        }
      } catch (error) {
        floorNotes.push(`the floor failed: ${(error as Error).message}`)
      }
      floorCores = floorMeters.lap().core_busy_percent
    }
    if ((lap.other_processes_cpu_percent ?? 0) > 10) {
      floorNotes.push(`other processes used ${lap.other_processes_cpu_percent}% of a core while the posts fanned out: the machine was not quiet, so these figures are pessimistic`)
    }
    const report = {
      benchmark: 'fanout', stamp, target: options.base ?? `${baseUrl} (started by this script)`, fixture: options.fixture, room: options.room,
      members: people.length, subscribed: ready, failed, connect_secs: round(connectSecs, 2), posts: notices.length, post_errors: postErrors,
      complete: complete.length,
      post_ack_ms: percentiles(notices.filter((n) => n.ackAt).map((n) => n.ackAt! - n.sentAt)),
      sent_to_last_socket_ms: percentiles(complete.map((n) => n.lastAt - n.sentAt)),
      ack_to_last_socket_ms: ackToLast,
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
      core_busy_percent: lap.core_busy_percent, other_processes_cpu_percent: lap.other_processes_cpu_percent, server_memory: serverMemory,
      notice_bytes: noticeBytes,
      // The bare broadcaster's time from being told to send to the last socket, and ours
      // (acknowledgement → last socket) as a multiple of it.
      floor: floor && { ...floor, told_to_last_socket_ms: floor.all_clients, core_busy_percent: floorCores },
      vs_floor: floor && { p50: ratio(ackToLast.p50_ms, floor.all_clients.p50_ms), p99: ratio(ackToLast.p99_ms, floor.all_clients.p99_ms) },
      notes: floorNotes,
      // With --cpu-prof: the server's samples from each post sent to its last notice.
      server_profile: profile,
    }
    const file = join(options.out, `fanout-${stamp}.json`)
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    writeFanoutReport(report, options.out, `fanout-${stamp}`)
    console.log(`bench:fanout: ${complete.length}/${notices.length} posts reached all ${ready} sockets; post ack p50 ${report.post_ack_ms.p50_ms} ms; sent → last socket p50 ${report.sent_to_last_socket_ms.p50_ms} / max ${report.sent_to_last_socket_ms.max_ms} ms; ack → last socket p50 ${report.ack_to_last_socket_ms.p50_ms} / max ${report.ack_to_last_socket_ms.max_ms} ms`)
    for (const row of report.per_post) console.log(`  post ${row.seq}: ${row.received} notices, ack ${row.ack_ms} ms, sent → last ${row.sent_to_last_ms} ms, ack → last ${row.ack_to_last_ms} ms, first → last ${row.first_to_last_ms} ms; CPU server ${row.server_cpu_ms ?? '–'} ms, generator ${row.generator_cpu_ms} ms`)
    if (floor && report.vs_floor) {
      console.log(`  floor (bare broadcaster, ${floor.ready} sockets, ${floor.bytes_per_post} bytes each, ${floor.complete}/${floor.posts} complete): told → last socket p50 ${floor.all_clients.p50_ms} / p99 ${floor.all_clients.p99_ms} ms; its write loop p50 ${floor.write_loop.p50_ms} ms`)
      console.log(`  ours vs floor: ack → last socket p50 ${ackToLast.p50_ms} vs ${floor.all_clients.p50_ms} ms (${report.vs_floor.p50 ?? '–'}×), p99 ${ackToLast.p99_ms} vs ${floor.all_clients.p99_ms} ms (${report.vs_floor.p99 ?? '–'}×)`)
    }
    console.log(`  cores busy during the posts ${report.core_busy_percent.join('% / ')}% (other processes ${report.other_processes_cpu_percent ?? '–'}%)${floorCores ? `; during the floor ${floorCores.join('% / ')}%` : ''}`)
    for (const note of floorNotes) console.log(`  note: ${note}`)
    if (profileLines.length > 0) console.log('  the server, from each post sent to its last notice:')
    for (const line of profileLines) console.log(line)
    console.log(`  JSON: ${file}`)
    process.exitCode = complete.length === notices.length && postErrors.length === 0 ? 0 : 1
  } finally {
    for (const socket of sockets) socket.destroy()
    if (server) await stopServer(server)
    if (storage && !options.inPlace) rmSync(storage, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
