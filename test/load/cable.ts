// The cable fan-out benchmark (issue 4): `npm run bench:cable`. It does what the verification
// harness's `loadgen cable` does (harness.md §3.1–3.2) against our own server:
//
//   1. Without --base: seeds a temp storage folder (test/load/seed.ts), adds --clients people who
//      are members of the busy room "All Talk", each with a sessions row and a session_token cookie
//      signed with the same SECRET_KEY_BASE as the server (sign-in is rate limited, so nobody signs
//      in), and starts server/main.ts as a child pinned to core 0 (`taskset -c 0`). The generator
//      re-executes itself pinned to core 1. With --base http://127.0.0.1:PORT --sessions FILE
//      --cookie C --room ID it runs against a server that is already up (loopback only).
//   2. Connects every client to /cable (subprotocol actioncable-v1-json, Origin, its cookie), at most
//      50 handshakes in flight, and subscribes it like a room page: PresenceChannel, UnreadRoomsChannel,
//      HeartbeatChannel, RoomMessagesChannel (the room page's signed stream) and the sidebar's
//      Turbo::StreamsChannel streams ("rooms" and the person's own "<user gid>:rooms").
//      A client is ready when every subscription is confirmed.
//   3. Paced phase: --paced posts (30), one every --interval-ms (200), `fanout bmk<seq>z`, drained up
//      to 20 s. Saturated phase: --posters closed-loop posters for --tput-secs, drained up to 60 s.
//      Each client counts each marker once, at the moment its frame was read.
//   4. Floor phase (unless --no-floor or --base): once the server has stopped, the same paced posts
//      go to a bare broadcaster on the server's core (support/floor-server.ts: no database, no
//      rendering), which writes the same bytes per client that the paced phase delivered to the
//      same number of clients. Its post → all clients is the best this machine allows, and the
//      report gives the server's figure as a multiple of it.
//   5. Prints a table and writes tmp/bench/cable-<UTC stamp>.json (and the server's log beside it).
//
//   npm run bench:cable                           1,000 clients, 4 posters, 15 s
//   npm run bench:cable -- --clients 5000 --posters 8
//   npm run bench:cable -- --idle 10000           10,000 subscribed idle sockets held 10 s: server RSS
//   npm run bench:cable -- --cpu-prof             also profiles the server (node --cpu-prof) and names its top frames
//   npm run bench:cable -- --no-floor             skips the floor phase (step 4 above)
//   npm run bench:cable -- --base http://127.0.0.1:3000 --sessions sessions.tsv --cookie 'session_token=…' --room 3
//
// Other options: --cpu-prof-us 1000 (the profile's sampling interval in µs), --paced-drain-secs 20, --tput-drain-secs 60, --hold-secs 10 (with --idle),
// --wait-quiet SECS (first wait up to SECS for every core to be under 10% busy: this machine may be
// shared), --keep (keep the temp storage, with its sessions.tsv), --no-pin, --out DIR (tmp/bench),
// --gen-cpu-prof (profile the generator itself into tmp/bench/cable-generator-prof-<stamp>),
// --server-dir DIR (start server/main.ts from another checkout, e.g. a worktree with a fix to compare;
// it is compiled into dist/ and started as `npm start` does), --tsx (run the server's TypeScript
// sources under the tsx loader instead of compiling them).
// Every phase also records each core's busy time, so a run disturbed by other processes says so.
//
// Sessions file lines (harness format): `cookie<TAB>identifier<TAB>identifier…`; client n uses
// line n mod lines. Lines without identifiers get the room page's set, with the person's own
// sidebar streams scraped from GET /users/me/sidebar.
import bcrypt from 'bcrypt'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, type WriteStream } from 'node:fs'
import http from 'node:http'
import { availableParallelism, cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { gunzipSync } from 'node:zlib'
import { globalIdParam, RailsSigning } from '../../server/lib/rails/signing.ts'
import { dbTime } from '../../server/lib/time.ts'
import { Store } from '../../server/models/store.ts'
import { seedDatabase } from './seed.ts'
import { summarizeProfileDir, type ProfileSummary } from './support/cpu-profile.ts'
import { CoreMeter, CpuMeter, processCpuSeconds, processCpuTimes, processMemory, round, Samples, selfCpuSeconds, selfSystemSeconds, summarize, type Memory, type Summary } from './support/measure.ts'
import { freePort } from '../support/ports.ts'
import { RawWebSocket } from './support/raw-websocket.ts'
import { flag, number, path, readOptions, text, usageError } from './support/options.ts'
import { floorBudgetMs, measureFloor, type FloorReport } from './support/socket-floor.ts'
import { serverDurationsMs } from './support/server-timing.ts'
import { LAG_RESOLUTION_MS, lagOf, RAISE_FILES, serverCommand, stopServer, waitForUp, type LoopLag } from './support/server.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SCRIPT = fileURLToPath(import.meta.url)
const PINNED_ENV = 'CAMPFIRE_BENCH_CABLE_PINNED'
const SERVER_CORE = '0'
const GENERATOR_CORE = '1'
const HANDSHAKES_IN_FLIGHT = 50
const POST_TIMEOUT_MS = 30_000
const SESSION_COOKIE = 'session_token'

// ---------------------------------------------------------------------------------------------
// Options

interface Options {
  clients: number
  posters: number
  tputSecs: number
  paced: number
  intervalMs: number
  pacedDrainSecs: number
  tputDrainSecs: number
  idle: number | null
  holdSecs: number
  base: string | null
  sessions: string | null
  cookie: string | null
  room: number | null
  cpuProf: boolean
  cpuProfUs: number
  tsx: boolean
  genCpuProf: boolean
  keep: boolean
  waitQuiet: number
  serverDir: string
  pin: boolean
  floor: boolean
  out: string
}

const OPTIONS = {
  clients: number('N', 'people connected and subscribed like a room page', 1000, { integer: true, min: 1 }),
  posters: number('N', 'closed-loop posters in the saturated phase', 4, { integer: true, min: 1 }),
  'tput-secs': number('SECS', 'how long the saturated phase posts', 15),
  paced: number('N', 'posts in the paced phase', 30, { integer: true }),
  'latency-msgs': number('N', 'the same as --paced', null, { integer: true }),
  'interval-ms': number('MS', 'the time between paced posts', 200),
  'paced-drain-secs': number('SECS', "how long to wait for the paced phase's last deliveries", 20),
  'tput-drain-secs': number('SECS', "how long to wait for the saturated phase's last deliveries", 60),
  idle: number('N', 'instead of posting, hold N subscribed idle sockets for --hold-secs and report the server\'s memory', null, { integer: true, min: 1 }),
  'hold-secs': number('SECS', 'how long --idle holds its sockets', 10),
  base: text('URL', 'a server that is already up (http://127.0.0.1:PORT), with --sessions and --room'),
  sessions: text('FILE', 'with --base: one line per person, `cookie<TAB>identifier<TAB>…` (client n uses line n mod lines)'),
  cookie: text('C', "with --base: the poster's cookie"),
  room: number('ID', 'with --base: the room to post into', null, { integer: true, min: 1 }),
  'cpu-prof': flag('also profile the server (node --cpu-prof) and name its top frames'),
  'cpu-prof-us': number('US', "the profile's sampling interval in µs", 1000),
  'gen-cpu-prof': flag('profile the generator itself into tmp/bench/cable-generator-prof-<stamp>'),
  keep: flag('keep the temporary storage, with its sessions.tsv'),
  'wait-quiet': number('SECS', 'first wait up to SECS for every core to be under 10% busy', 0),
  'no-pin': flag('do not pin the server and the generator to their cores'),
  'no-floor': flag('skip the floor phase (a bare broadcaster on the server\'s core)'),
  tsx: flag("run the server's sources under tsx instead of compiling them as npm start does"),
  'server-dir': path('DIR', "start another checkout's server (e.g. a worktree with a fix to compare)", '.', 'this checkout'),
  out: path('DIR', 'where the report and the server log go', 'tmp/bench'),
}

const SUMMARY = `The cable fan-out benchmark: seeds a temporary database, starts the server pinned to core 0
and this generator on core 1, connects --clients people subscribed like a room page, posts paced
and then saturated, checks every message reaches every client, then measures the floor (the
same posts through a bare broadcaster). Saves tmp/bench/cable-<stamp>.json.
The steps are described at the top of test/load/cable.ts.`

function parseOptions(argv: string[]): Options {
  const v = readOptions({ name: 'bench:cable', summary: SUMMARY, options: OPTIONS }, argv)
  const options: Options = {
    clients: v.idle ?? v.clients, posters: v.posters, tputSecs: v.tputSecs, paced: v.latencyMsgs ?? v.paced, intervalMs: v.intervalMs,
    pacedDrainSecs: v.pacedDrainSecs, tputDrainSecs: v.tputDrainSecs, idle: v.idle, holdSecs: v.holdSecs,
    base: v.base, sessions: v.sessions, cookie: v.cookie, room: v.room, cpuProf: v.cpuProf, cpuProfUs: v.cpuProfUs, tsx: v.tsx,
    genCpuProf: v.genCpuProf, keep: v.keep, waitQuiet: v.waitQuiet, serverDir: v.serverDir, pin: !v.noPin, floor: !v.noFloor, out: v.out,
  }
  const wrong = (message: string) => usageError('bench:cable', message)
  if (options.base !== null) {
    let url: URL
    try {
      url = new URL(options.base)
    } catch {
      return wrong(`--base is not a URL: ${options.base}`)
    }
    // This generator opens thousands of sockets: it only ever points at this machine's loopback.
    if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1' || !url.port) wrong('--base must be http://127.0.0.1:<port>')
    if (!options.sessions) wrong('--base needs --sessions FILE (one cookie per line)')
    if (options.room === null) wrong('--base needs --room <id>')
    if (options.cpuProf) wrong('--cpu-prof only works on the server this script starts')
  }
  return options
}

function fail(message: string): never {
  console.error(`bench:cable: ${message}`)
  process.exit(2)
}

// ---------------------------------------------------------------------------------------------
// Pinning: the generator re-executes itself on core 1 (through sh, to raise the open-files limit).

function reexecPinned(argv: string[], profileDir: string | null): void {
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []
  const child = spawn('sh', ['-c', `${RAISE_FILES}; exec taskset -c ${GENERATOR_CORE} "$0" "$@"`, process.execPath, ...profile, '--import', 'tsx', SCRIPT, ...argv], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, [PINNED_ENV]: '1' },
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
}

// ---------------------------------------------------------------------------------------------
// Setup: a seeded storage folder with N extra members and their sessions

interface Person {
  cookie: string
  identifiers: string[] | null // null: scrape this person's sidebar
}

interface Target {
  baseUrl: string
  host: string
  port: number
  room: number
  poster: string // the cookie of the person who posts
  people: Person[]
  sessionRows: number
  expected: { roomStream: string; sidebarStreams: (cookie: string) => string[] } | null
}

function stampNow(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
}

function sessionTokenFor(userId: number): string {
  // The shape of the harness's pre-minted sessions: 19 "a" and the zero-padded user id.
  return 'a'.repeat(19) + String(userId).padStart(5, '0')
}

function cookieFor(signing: RailsSigning, token: string): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(signing.signCookie(SESSION_COOKIE, token))}`
}

const base = (room: number) => [
  JSON.stringify({ channel: 'PresenceChannel', room_id: room }),
  JSON.stringify({ channel: 'UnreadRoomsChannel' }),
  JSON.stringify({ channel: 'HeartbeatChannel' }),
]

function streamIdentifier(channel: string, signed: string): string {
  return JSON.stringify({ channel, signed_stream_name: signed })
}

function prepareStorage(storage: string, secret: string, people: number): { room: number; roomType: string; posterCookie: string; users: { id: number; cookie: string }[]; sessionRows: number; signing: RailsSigning } {
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: join(ROOT, 'migrations') })
  try {
    const labels = seedDatabase(store, { secretKeyBase: secret, cost: 4 })
    const signing = new RailsSigning(secret)
    const room = labels.rooms.watercooler
    const digest = bcrypt.hashSync(randomBytes(12).toString('hex'), 4) // one digest for everyone; nobody signs in
    const users = store.writeNow((m) => {
      const db = m.db
      const now = dbTime()
      const insertUser = db.prepare("INSERT INTO users (name, email_address, password_digest, role, status, created_at, updated_at) VALUES (?, ?, ?, 0, 0, ?, ?)")
      const insertMembership = db.prepare("INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at) VALUES (?, ?, 'mentions', 0, ?, ?)")
      const insertSession = db.prepare("INSERT INTO sessions (user_id, token, ip_address, user_agent, last_active_at, created_at, updated_at) VALUES (?, ?, '127.0.0.1', 'campfire-ts bench:cable', ?, ?, ?)")
      const created: { id: number; cookie: string }[] = []
      for (let i = 1; i <= people; i++) {
        const number = String(i).padStart(5, '0')
        const id = Number(insertUser.run(`Bench Person ${number}`, `bench-${number}@example.test`, digest, now, now).lastInsertRowid)
        insertMembership.run(room, id, now, now)
        const token = sessionTokenFor(id)
        insertSession.run(id, token, now, now, now)
        created.push({ id, cookie: cookieFor(signing, token) })
      }
      const posterToken = sessionTokenFor(labels.users.david)
      insertSession.run(labels.users.david, posterToken, now, now, now)
      const roomType = db.prepare<[number], string>('SELECT type FROM rooms WHERE id = ?').pluck().get(room)!
      return { created, posterCookie: cookieFor(signing, posterToken), roomType }
    })
    return { room, roomType: users.roomType, posterCookie: users.posterCookie, users: users.created, sessionRows: people + 1, signing }
  } finally {
    store.close()
  }
}

interface ServerChild {
  child: ChildProcess
  pid: number
  log: WriteStream
  logPath: string
  logTail: () => string
  warnings: () => Record<string, number>
  profileDir: string | null
  command: string // how node was started, in the server's folder
}

function startServer(serverDir: string, storage: string, secret: string, port: number, logPath: string, profileDir: string | null, tsx: boolean, profileUs = 1000): ServerChild {
  // As `npm start` runs it: compiled into dist/ and started with its node flags (--tsx: the
  // sources under the tsx loader instead).
  const entry = serverCommand(serverDir, tsx)
  const node = [process.execPath, ...(profileDir ? ['--cpu-prof', `--cpu-prof-interval=${Math.max(50, Math.round(profileUs))}`, `--cpu-prof-dir=${profileDir}`] : []), ...entry]
  const pin = pinningAvailable() ? `taskset -c ${SERVER_CORE} ` : ''
  // sh execs taskset, which execs node: the pid we hold is the server's own.
  const child = spawn('sh', ['-c', `${RAISE_FILES}; exec ${pin}"$0" "$@"`, ...node], {
    cwd: serverDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      [PINNED_ENV]: '',
      CAMPFIRE_STORAGE_PATH: storage,
      SECRET_KEY_BASE: secret,
      RAILS_ENV: 'production',
      LOG_LEVEL: 'warn',
      DISABLE_SSL: 'true',
      HTTP_PORT: String(port),
      HTTP_BIND: '127.0.0.1',
    },
  })
  const log = createWriteStream(logPath)
  let tail = ''
  const warnings: Record<string, number> = {}
  const onData = (chunk: Buffer) => {
    log.write(chunk)
    const text = chunk.toString()
    tail = (tail + text).slice(-8000)
    for (const match of text.matchAll(/"msg":"([^"]{1,120})"/g)) warnings[match[1]!] = (warnings[match[1]!] ?? 0) + 1
  }
  child.stdout!.on('data', onData)
  child.stderr!.on('data', onData)
  return { child, pid: child.pid!, log, logPath, logTail: () => tail, warnings: () => warnings, profileDir, command: ['node', ...node.slice(1)].join(' ') }
}

let pinningChecked: boolean | null = null
function pinningAvailable(): boolean {
  if (pinningChecked === null) pinningChecked = cpus().length >= 2 && (existsSync('/usr/bin/taskset') || existsSync('/bin/taskset'))
  return pinningChecked
}

// ---------------------------------------------------------------------------------------------
// HTTP: scraping pages and posting messages

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })

interface HttpAnswer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

function httpRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<HttpAnswer> {
  const url = new URL(path, baseUrl)
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers: { host: url.host, ...headers }, agent, timeout: POST_TIMEOUT_MS },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('error', reject)
        response.on('end', () => {
          let raw = Buffer.concat(chunks)
          try {
            if (response.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw)
          } catch (error) {
            return reject(new Error(`bad gzip: ${(error as Error).message}`))
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: raw.toString('utf8') })
        })
      },
    )
    request.on('timeout', () => request.destroy(new Error(`timed out after ${POST_TIMEOUT_MS} ms`)))
    request.on('error', reject)
    request.end(body)
  })
}

const STREAM_SOURCE = /<turbo-cable-stream-source channel="([^"]*)" signed-stream-name="([^"]*)"/g

function unescapeHtml(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#x27;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
}

// As the harness's `scrape`: every stream source of the pages, unescaped and de-duplicated, "X|Y".
function streamsIn(html: string): { channel: string; signed: string }[] {
  const seen = new Set<string>()
  const streams: { channel: string; signed: string }[] = []
  for (const match of html.matchAll(STREAM_SOURCE)) {
    const channel = unescapeHtml(match[1]!)
    const signed = unescapeHtml(match[2]!)
    if (seen.has(`${channel}|${signed}`)) continue
    seen.add(`${channel}|${signed}`)
    streams.push({ channel, signed })
  }
  return streams
}

async function scrape(baseUrl: string, cookie: string, paths: string[]): Promise<{ channel: string; signed: string }[]> {
  let html = ''
  for (const path of paths) {
    const answer = await httpRequest(baseUrl, 'GET', path, { cookie })
    if (answer.status !== 200) throw new Error(`scrape: GET ${path} answered ${answer.status}`)
    html += answer.body
  }
  return streamsIn(html)
}

// ---------------------------------------------------------------------------------------------
// Clients and markers

const BMK = Buffer.from('bmk')
const CONFIRM = Buffer.from('confirm_subscription')
const REJECT = Buffer.from('reject_subscription')
const WELCOME = Buffer.from('"type":"welcome"')
const DISCONNECT = Buffer.from('"type":"disconnect"')
const ROOM_ID = Buffer.from('"roomId":')
const OBJECT_MESSAGE = Buffer.from('"message":{')

type Phase = 'paced' | 'saturated'

interface Marker {
  seq: number
  phase: Phase
  sentAt: number
  ackAt: number | null
  ok: boolean | null
  seen: Uint8Array
  count: number
  firstAt: number
  lastAt: number
  completeAt: number | null
}

interface Client {
  index: number
  identifiers: string[]
  socket: RawWebSocket | null
  welcomed: boolean
  confirmed: number
  ready: boolean
  readyAt: number | null
  failure: string | null
  disconnected: string | null
}

class Generator {
  readonly clients: Client[]
  readonly markers = new Map<number, Marker>()
  readonly delivery: Record<Phase, Samples> = { paced: new Samples(), saturated: new Samples() }
  readyCount = 0
  openReady = 0
  unreadFrames = 0
  disconnectFrames = 0
  framesIn = 0
  stopping = false
  private inFlight = 0
  private next = 0
  private settled = 0
  private connectStartedAt = 0
  lastSettledAt = 0
  closeReasons: Record<string, number> = {}
  failureReasons: Record<string, number> = {}

  constructor(
    readonly target: Target,
    people: Person[],
  ) {
    this.clients = people.map((person, index) => ({
      index, identifiers: person.identifiers!, socket: null, welcomed: false, confirmed: 0, ready: false, readyAt: null, failure: null, disconnected: null,
    }))
  }

  // Resolves when every client is ready or failed, or at the deadline.
  async connectAll(timeoutMs: number): Promise<number> {
    this.connectStartedAt = performance.now()
    this.pump()
    const deadline = Date.now() + timeoutMs
    while (this.settled < this.clients.length && Date.now() < deadline) await sleep(20)
    for (const client of this.clients) if (!client.ready && !client.failure) this.failClient(client, 'not ready before the deadline')
    return (this.lastSettledAt - this.connectStartedAt) / 1000
  }

  private pump(): void {
    while (this.inFlight < HANDSHAKES_IN_FLIGHT && this.next < this.clients.length && !this.stopping) {
      this.inFlight++
      this.open(this.clients[this.next++]!)
    }
  }

  private open(client: Client): void {
    const { host, port } = this.target
    let counted = true
    const release = () => {
      if (!counted) return
      counted = false
      this.inFlight--
      this.pump()
    }
    const person = this.target.people[client.index % this.target.people.length]!
    client.socket = new RawWebSocket(
      {
        host, port, path: '/cable', protocols: ['actioncable-v1-json', 'actioncable-unsupported'], handshakeTimeoutMs: 30_000,
        headers: { Origin: `http://${host}:${port}`, Cookie: person.cookie },
      },
      {
        onOpen: (protocol) => {
          release()
          if (protocol !== 'actioncable-v1-json') this.failClient(client, `subprotocol ${protocol ?? 'none'}`)
        },
        onText: (payload, at) => this.receive(client, payload, at),
        onClose: (reason, wasOpen) => {
          release()
          if (this.stopping) return
          if (client.ready) {
            client.disconnected = reason
            this.openReady--
            this.closeReasons[reason] = (this.closeReasons[reason] ?? 0) + 1
          } else this.failClient(client, wasOpen ? `closed before ready: ${reason}` : reason)
        },
      },
    )
  }

  private failClient(client: Client, reason: string): void {
    if (client.failure || client.ready) return
    client.failure = reason
    const key = reason.replace(/\d{2,}/g, 'N')
    this.failureReasons[key] = (this.failureReasons[key] ?? 0) + 1
    this.settle()
    client.socket?.destroy()
  }

  private settle(): void {
    this.settled++
    this.lastSettledAt = performance.now()
  }

  private receive(client: Client, payload: Buffer, at: number): void {
    this.framesIn++
    if (client.ready) {
      let index = payload.indexOf(BMK)
      if (index >= 0) {
        while (index >= 0) {
          index = this.marker(client, payload, index + 3, at)
          index = payload.indexOf(BMK, index)
        }
        return
      }
      if (payload.length < 512 && payload.indexOf(ROOM_ID) >= 0 && payload.indexOf(OBJECT_MESSAGE) >= 0) this.unreadFrames++
      else if (payload.indexOf(DISCONNECT) >= 0) this.disconnectFrames++
      return
    }
    if (client.failure) return
    if (!client.welcomed) {
      if (payload.indexOf(WELCOME) < 0) return
      client.welcomed = true
      for (const identifier of client.identifiers) client.socket!.sendText(JSON.stringify({ command: 'subscribe', identifier }))
      return
    }
    if (payload.indexOf(CONFIRM) >= 0) {
      if (++client.confirmed === client.identifiers.length) {
        client.ready = true
        client.readyAt = at
        this.readyCount++
        this.openReady++
        this.settle()
      }
    } else if (payload.indexOf(REJECT) >= 0) this.failClient(client, `rejected: ${payload.toString('utf8').slice(0, 200)}`)
  }

  // Reads the digits after "bmk"; counts the marker once per client. Returns where to search on.
  private marker(client: Client, payload: Buffer, from: number, at: number): number {
    let seq = 0
    let i = from
    while (i < payload.length && i - from < 15) {
      const byte = payload[i]!
      if (byte < 48 || byte > 57) break
      seq = seq * 10 + (byte - 48)
      i++
    }
    if (i === from || payload[i] !== 0x7a) return i
    const marker = this.markers.get(seq)
    if (!marker || marker.seen[client.index]) return i + 1
    marker.seen[client.index] = 1
    if (marker.count++ === 0) marker.firstAt = at
    marker.lastAt = at
    this.delivery[marker.phase].add(at - marker.sentAt)
    if (marker.count === this.readyCount) marker.completeAt = at
    return i + 1
  }

  newMarker(seq: number, phase: Phase): Marker {
    const marker: Marker = { seq, phase, sentAt: performance.now(), ackAt: null, ok: null, seen: new Uint8Array(this.clients.length), count: 0, firstAt: 0, lastAt: 0, completeAt: null }
    this.markers.set(seq, marker)
    return marker
  }

  // Bytes every client has read so far (handshakes, frames, pings).
  bytesIn(): number {
    let bytes = 0
    for (const client of this.clients) bytes += client.socket?.bytesIn ?? 0
    return bytes
  }

  // Every acknowledged marker of the phase has reached every ready client still connected.
  drained(phase: Phase): boolean {
    for (const marker of this.markers.values()) {
      if (marker.phase === phase && marker.ok && marker.count < this.openReady) return false
    }
    return true
  }

  closeAll(): void {
    this.stopping = true
    for (const client of this.clients) client.socket?.destroy()
  }
}

// ---------------------------------------------------------------------------------------------
// Posting

interface PostStats {
  attempts: number
  posted: number
  errors: number
  errorReasons: Record<string, number>
  latency: number[]
  // The server's own time for each post before it answered and broadcast (Server-Timing total),
  // and each of its stages.
  serverMs: number[]
  stagesMs: Map<string, number[]>
}

function newPostStats(): PostStats {
  return { attempts: 0, posted: 0, errors: 0, errorReasons: {}, latency: [], serverMs: [], stagesMs: new Map() }
}

let sequence = 0

async function post(generator: Generator, phase: Phase, stats: PostStats): Promise<void> {
  const seq = ++sequence
  const text = `fanout bmk${seq}z`
  const body = new URLSearchParams({ 'message[body]': text, 'message[client_message_id]': randomBytes(12).toString('hex') }).toString()
  const marker = generator.newMarker(seq, phase)
  stats.attempts++
  let reason: string | null
  let durations: [string, number][] = []
  try {
    const answer = await httpRequest(generator.target.baseUrl, 'POST', `/rooms/${generator.target.room}/messages`, {
      cookie: generator.target.poster,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml',
      'sec-fetch-site': 'same-origin',
      'accept-encoding': 'gzip',
      'content-length': String(Buffer.byteLength(body)),
    }, body)
    reason = invalidPost(answer, text)
    durations = serverDurationsMs(answer.headers['server-timing'])
  } catch (error) {
    reason = `transport: ${(error as Error).message}`
  }
  marker.ackAt = performance.now()
  marker.ok = reason === null
  if (reason === null) {
    stats.posted++
    stats.latency.push(marker.ackAt - marker.sentAt)
    for (const [name, ms] of durations) {
      if (name === 'total') stats.serverMs.push(ms)
      else {
        let stage = stats.stagesMs.get(name)
        if (!stage) stats.stagesMs.set(name, (stage = []))
        stage.push(ms)
      }
    }
  } else {
    stats.errors++
    stats.errorReasons[reason] = (stats.errorReasons[reason] ?? 0) + 1
  }
}

// The harness's post check (§3.2 step 2, with §2.2's media type).
function invalidPost(answer: HttpAnswer, text: string): string | null {
  if (answer.status !== 200) return `status ${answer.status}`
  const type = String(answer.headers['content-type'] ?? '').split(';')[0]!.trim()
  if (type !== 'text/vnd.turbo-stream.html') return `content type ${type}`
  const body = answer.body
  if (!body.startsWith('<turbo-stream')) return 'does not start with <turbo-stream'
  if (!body.trimEnd().endsWith('</turbo-stream>')) return 'does not end with </turbo-stream>'
  if (!body.includes('<template>') || !body.includes('</template>')) return 'no <template>'
  if (!body.includes(text)) return 'posted text missing'
  const ids = [...body.matchAll(/data-message-id="(\d+)"/g)]
  if (ids.length !== 1) return `${ids.length} data-message-id`
  if (!(Number(ids[0]![1]) > 0)) return 'data-message-id not > 0'
  return null
}

// ---------------------------------------------------------------------------------------------
// Phases


interface PhaseReport {
  // Bytes each ready client read per post in this phase (the posts' frames, plus the odd ping).
  bytes_per_client_post?: number
  posted: number
  post_attempts: number
  post_errors: number
  post_error_reasons: Record<string, number>
  complete: number
  incomplete: number
  delivered: number
  drain_secs: number
  post_latency: Summary
  // From the answers' Server-Timing: the server's time per post before its broadcast leaves.
  server_time: Summary
  server_stages: Record<string, Summary>
  per_client_delivery: Summary
  first_client: Summary
  all_clients: Summary
  server_cpu_percent: number | null
  server_system_cpu_percent: number | null
  generator_cpu_percent: number | null
  generator_system_cpu_percent: number | null
  generator_loop_lag: LoopLag
  machine_core_busy_percent: number[]
  other_processes_cpu_percent: number | null
}

function phaseReport(generator: Generator, phase: Phase, stats: PostStats, drainSecs: number, lap: Lap): PhaseReport {
  const markers = [...generator.markers.values()].filter((marker) => marker.phase === phase && marker.ok)
  const complete = markers.filter((marker) => marker.completeAt !== null)
  return {
    posted: stats.posted,
    post_attempts: stats.attempts,
    post_errors: stats.errors,
    post_error_reasons: stats.errorReasons,
    complete: complete.length,
    incomplete: markers.length - complete.length,
    delivered: markers.reduce((sum, marker) => sum + marker.count, 0),
    drain_secs: round(drainSecs, 2),
    post_latency: summarize(stats.latency),
    server_time: summarize(stats.serverMs),
    server_stages: Object.fromEntries([...stats.stagesMs].map(([name, values]) => [name, summarize(values)])),
    per_client_delivery: generator.delivery[phase].summary(),
    first_client: summarize(markers.filter((marker) => marker.count > 0).map((marker) => marker.firstAt - marker.sentAt)),
    all_clients: summarize(complete.map((marker) => marker.completeAt! - marker.sentAt)),
    server_cpu_percent: lap.server,
    server_system_cpu_percent: lap.serverSystem,
    generator_cpu_percent: lap.generator,
    generator_system_cpu_percent: lap.generatorSystem,
    generator_loop_lag: lap.lag,
    machine_core_busy_percent: lap.cores,
    other_processes_cpu_percent: lap.others,
  }
}

async function drain(generator: Generator, phase: Phase, limitSecs: number): Promise<number> {
  const started = performance.now()
  while (!generator.drained(phase) && performance.now() - started < limitSecs * 1000) await sleep(5)
  return (performance.now() - started) / 1000
}

async function pacedPhase(generator: Generator, options: Options, meters: Meters): Promise<PhaseReport> {
  meters.lap()
  const stats = newPostStats()
  const bytesBefore = generator.bytesIn()
  const start = performance.now()
  const posts: Promise<void>[] = []
  for (let i = 0; i < options.paced; i++) {
    const wait = start + i * options.intervalMs - performance.now()
    if (wait > 0) await sleep(wait)
    posts.push(post(generator, 'paced', stats)) // open loop: the next one does not wait for this answer
  }
  await Promise.all(posts)
  const drainSecs = await drain(generator, 'paced', options.pacedDrainSecs)
  const readers = generator.readyCount * stats.posted
  const bytes = readers > 0 ? Math.round((generator.bytesIn() - bytesBefore) / readers) : undefined
  return { bytes_per_client_post: bytes, ...phaseReport(generator, 'paced', stats, drainSecs, meters.lap()) }
}

interface SaturatedReport extends PhaseReport {
  // Whose core was saturated: the server's (≥ 95% of its core), the generator's, both, or neither.
  bottleneck?: string
  posters: number
  secs: number
  posts_per_sec: number
  span_secs: number
  delivered_msgs_per_sec: number
  deliveries_per_sec: number
  all_deliveries_per_sec: number
  frames_per_sec: number
}

async function saturatedPhase(generator: Generator, options: Options, meters: Meters): Promise<SaturatedReport> {
  meters.lap()
  const stats = newPostStats()
  const framesBefore = generator.framesIn
  const start = performance.now()
  const end = start + options.tputSecs * 1000
  const poster = async () => {
    while (performance.now() < end) await post(generator, 'saturated', stats)
  }
  await Promise.all(Array.from({ length: options.posters }, poster))
  const postingSecs = (performance.now() - start) / 1000
  const drainSecs = await drain(generator, 'saturated', options.tputDrainSecs)
  const report = phaseReport(generator, 'saturated', stats, drainSecs, meters.lap())
  const markers = [...generator.markers.values()].filter((marker) => marker.phase === 'saturated')
  const lastComplete = Math.max(start, ...markers.map((marker) => marker.completeAt ?? 0))
  const lastAny = Math.max(start, ...markers.map((marker) => marker.lastAt))
  const span = Math.max(postingSecs, (lastComplete - start) / 1000)
  const anySpan = Math.max(postingSecs, (lastAny - start) / 1000)
  return {
    ...report,
    posters: options.posters,
    secs: round(postingSecs, 2),
    posts_per_sec: round(stats.posted / postingSecs, 1),
    span_secs: round(span, 2),
    delivered_msgs_per_sec: round(report.complete / span, 1),
    // The headline: complete messages × ready clients / span (what "deliveries/s" means in §5.3).
    deliveries_per_sec: Math.round((report.complete * generator.readyCount) / span),
    // Every marker a client counted, complete or not.
    all_deliveries_per_sec: Math.round(report.delivered / anySpan),
    frames_per_sec: Math.round((generator.framesIn - framesBefore) / anySpan),
  }
}

interface Lap {
  server: number | null
  generator: number | null
  // The part of each spent in the kernel (socket writes and reads, loopback TCP).
  serverSystem: number | null
  generatorSystem: number | null
  lag: LoopLag
  // Every core's busy percent, and what processes other than these two used (percent of one core).
  cores: number[]
  others: number | null
}

interface Meters {
  lap(): Lap
}

function makeMeters(serverPid: number | null): Meters {
  const server = serverPid === null ? null : new CpuMeter(() => processCpuSeconds(serverPid))
  const self = new CpuMeter(selfCpuSeconds)
  const serverSystem = serverPid === null ? null : new CpuMeter(() => processCpuTimes(serverPid)?.system ?? null)
  const selfSystem = new CpuMeter(selfSystemSeconds)
  const loop = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS })
  loop.enable()
  const machine = new CoreMeter()
  return {
    lap: () => {
      const lap = { server: server?.lap() ?? null, generator: self.lap(), serverSystem: serverSystem?.lap() ?? null, generatorSystem: selfSystem.lap(), lag: lagOf(loop), cores: machine.lap() }
      const total = lap.cores.reduce((sum, value) => sum + value, 0)
      const others = lap.server === null || lap.generator === null ? null : round(Math.max(0, total - lap.server - lap.generator), 1)
      return { ...lap, others }
    },
  }
}

// ---------------------------------------------------------------------------------------------
// Main

// Samples the cores for 2 s at a time until every one is under 10% busy, for at most `waitSecs`;
// returns the last sample.
async function machineQuiet(waitSecs: number): Promise<number[]> {
  const deadline = performance.now() + waitSecs * 1000
  for (;;) {
    const meter = new CoreMeter()
    await sleep(2000)
    const cores = meter.lap()
    const quiet = cores.every((value) => value < 10)
    if (quiet || performance.now() >= deadline) return cores
    console.log(`bench:cable: waiting for a quiet machine (cores ${cores.join('% / ')}% busy)…`)
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

async function resolvePeople(target: Target, roomStream: string): Promise<void> {
  const roomMessages = streamIdentifier('RoomMessagesChannel', roomStream)
  const shared = target.people.find((person) => person.identifiers)?.identifiers ?? null
  const missing = target.people.filter((person) => !person.identifiers)
  if (shared && target.people[0]!.identifiers) {
    // Harness semantics: the first line's identifiers stand in for lines that have none.
    for (const person of missing) person.identifiers = shared
    return
  }
  let next = 0
  const worker = async () => {
    while (next < missing.length) {
      const person = missing[next++]!
      const streams = await scrape(target.baseUrl, person.cookie, ['/users/me/sidebar'])
      person.identifiers = [...base(target.room), roomMessages, ...streams.map((s) => streamIdentifier(s.channel, s.signed))]
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
}

function readSessionsFile(file: string): Person[] {
  const people = readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [cookie, ...identifiers] = line.split('\t')
      return { cookie: cookie!, identifiers: identifiers.length > 0 ? identifiers : null }
    })
  if (people.length === 0) fail(`${file} has no sessions`)
  return people
}

interface Report {
  benchmark: 'cable'
  mode: 'fanout' | 'idle'
  stamp: string
  target: string
  options: Omit<Options, 'out'>
  machine: { cpus: number; node: string; pinned: { server: string | null; generator: string | null } }
  clients: number
  ready: number
  failed: number
  failure_reasons: Record<string, number>
  disconnected: number
  disconnect_reasons: Record<string, number>
  connect_secs: number
  subscriptions_per_client: number
  subscriptions_per_client_range: [number, number]
  session_rows: number | null
  distinct_session_cookies: number
  unread_frames: number
  server: {
    pid: number | null
    memory_before_connect: Memory | null
    memory_idle_after_connect: Memory | null
    memory_end: Memory | null
    cpu_percent_connect: number | null
    cpu_percent_idle: number | null
    cpu_percent_idle_hold?: number | null
    command: string | null
    log: string | null
    log_messages: Record<string, number>
    stopped: string | null
    profile: ProfileSummary[] | null
  }
  generator: {
    cpu_percent_connect: number | null
    loop_lag_connect: LoopLag
    memory_end: Memory | null
  }
  // Whether the machine was quiet: every core's busy percent before the run and while connecting,
  // and what processes other than the server and the generator used (percent of one core).
  machine_load: { before_core_busy_percent: number[]; connect_core_busy_percent: number[]; connect_other_processes_cpu_percent: number | null }
  idle?: { hold_secs: number; memory_start: Memory | null; memory_end: Memory | null; server_cpu_percent: number | null; kb_per_socket: number | null; still_open: number }
  latency?: PhaseReport
  throughput?: SaturatedReport
  floor?: FloorReport
  verdict: Record<string, { target: string; measured: number | null; met: boolean | null }>
  notes: string[]
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  const options = parseOptions(argv)
  if (options.pin && !process.env[PINNED_ENV] && pinningAvailable()) {
    return reexecPinned(argv, options.genCpuProf ? join(options.out, `cable-generator-prof-${stampNow()}`) : null)
  }
  const pinned = options.pin && process.env[PINNED_ENV] === '1'
  const stamp = stampNow()
  mkdirSync(options.out, { recursive: true })
  const notes: string[] = []
  if (options.pin && !pinningAvailable()) notes.push('not pinned: fewer than 2 CPUs or no taskset')

  let server: ServerChild | null = null
  let storage: string | null = null
  let generator: Generator | null = null
  let finished = false
  const cleanup = async (why: string) => {
    if (finished) return
    finished = true
    generator?.closeAll()
    if (server) {
      const how = await stopServer(server, 20_000)
      if (why !== 'done') console.error(`bench:cable: ${why}; server ${how}`)
    }
    if (storage && !options.keep) rmSync(storage, { recursive: true, force: true })
    else if (storage) console.log(`bench:cable: kept ${storage} (sessions.tsv, bench-target.json, secret_key_base)`)
  }
  process.on('exit', () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL')
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void cleanup(`interrupted (${signal})`).finally(() => process.exit(130)))
  }

  // Everything is bounded: connect ≤ max(120 s, N/200 s), paced ≤ posts + 20 s drain, saturated ≤ run + 60 s drain.
  const connectTimeoutMs = Math.max(120_000, (options.clients / 200) * 1000)
  const budgetMs = 180_000 + connectTimeoutMs + 2 * POST_TIMEOUT_MS +
    (options.idle !== null ? options.holdSecs * 1000 : options.paced * options.intervalMs + options.pacedDrainSecs * 1000 + (options.tputSecs + options.tputDrainSecs) * 1000) +
    (options.floor && options.idle === null ? floorBudgetMs({ posts: options.paced, intervalMs: options.intervalMs, connectTimeoutMs, drainSecs: options.pacedDrainSecs }) : 0)
  const watchdog = setTimeout(() => {
    console.error(`bench:cable: watchdog: still running after ${Math.round(budgetMs / 1000)} s, giving up`)
    void cleanup('watchdog').finally(() => process.exit(3))
  }, budgetMs)

  try {
    const before = await machineQuiet(options.waitQuiet)
    if (before.some((value) => value > 15)) {
      notes.push(`the machine was busy before the run (cores ${before.join('% / ')}%): other processes compete with the server and the generator`)
    }
    // -- target
    let target: Target
    let signing: RailsSigning | null = null
    if (options.base === null) {
      storage = mkdtempSync(join(tmpdir(), 'campfire-bench-cable-'))
      const secret = randomBytes(64).toString('hex')
      const setupStart = performance.now()
      const prepared = prepareStorage(storage, secret, options.clients)
      signing = prepared.signing
      const port = await freePort()
      server = startServer(options.serverDir, storage, secret, port, join(options.out, `cable-${stamp}-server.log`), options.cpuProf ? join(options.out, `cable-${stamp}-prof`) : null, options.tsx, options.cpuProfUs)
      const baseUrl = `http://127.0.0.1:${port}`
      await waitForUp(baseUrl, server, 60_000)
      const signed = (name: string) => signing!.signStreamName(name)
      const roomStream = signed(`${globalIdParam(prepared.roomType, prepared.room)}:messages`)
      const people: Person[] = prepared.users.map((user) => ({
        cookie: user.cookie,
        identifiers: [
          ...base(prepared.room),
          streamIdentifier('RoomMessagesChannel', roomStream),
          streamIdentifier('Turbo::StreamsChannel', signed('rooms')),
          streamIdentifier('Turbo::StreamsChannel', signed(`${globalIdParam('User', user.id)}:rooms`)),
        ],
      }))
      // With --keep the folder is a ready target for --base: the secret (read by the server when
      // SECRET_KEY_BASE is unset), the sessions file and the poster's cookie and room.
      writeFileSync(join(storage, 'secret_key_base'), secret + '\n', { mode: 0o600 })
      writeFileSync(join(storage, 'sessions.tsv'), people.map((person) => [person.cookie, ...person.identifiers!].join('\t')).join('\n') + '\n')
      writeFileSync(join(storage, 'bench-target.json'), JSON.stringify({ room: prepared.room, cookie: prepared.posterCookie }, null, 2) + '\n')
      target = { baseUrl, host: '127.0.0.1', port, room: prepared.room, poster: prepared.posterCookie, people, sessionRows: prepared.sessionRows, expected: null }
      console.log(`bench:cable: seeded ${options.clients} members of room ${prepared.room} and started the server (pid ${server.pid}) on ${baseUrl} in ${round((performance.now() - setupStart) / 1000, 1)} s`)
    } else {
      const url = new URL(options.base)
      const people = readSessionsFile(options.sessions!)
      target = { baseUrl: url.origin, host: url.hostname, port: Number(url.port), room: options.room!, poster: options.cookie ?? people[0]!.cookie, people, sessionRows: 0, expected: null }
    }

    // -- the streams a room page subscribes to, scraped as the harness does
    const scraped = await scrape(target.baseUrl, target.poster, [`/rooms/${target.room}`, '/users/me/sidebar'])
    const roomStream = scraped.find((s) => s.channel === 'RoomMessagesChannel')?.signed
    if (!roomStream) throw new Error(`GET /rooms/${target.room} has no RoomMessagesChannel stream source (scraped: ${JSON.stringify(scraped)})`)
    if (options.base === null) {
      // The identifiers we signed must be the ones the pages hand out: check the first person's.
      const first = target.people[0]!
      const theirs = await scrape(target.baseUrl, first.cookie, [`/rooms/${target.room}`, '/users/me/sidebar'])
      const expected = first.identifiers!.slice(3).sort()
      const actual = theirs.map((s) => streamIdentifier(s.channel, s.signed)).sort()
      if (JSON.stringify(expected) !== JSON.stringify(actual)) throw new Error(`signed identifiers differ from the scraped ones:\n  ours   ${expected.join('\n         ')}\n  scraped ${actual.join('\n          ')}`)
    } else {
      await resolvePeople(target, roomStream)
    }
    const perClient = target.people.map((person) => person.identifiers!.length)

    // -- connect
    const serverPid = server?.pid ?? null
    const memoryBeforeConnect = serverPid ? processMemory(serverPid) : null
    const meters = makeMeters(serverPid)
    generator = new Generator(target, Array.from({ length: options.clients }, (_, i) => target.people[i % target.people.length]!))
    console.log(`bench:cable: connecting ${options.clients} clients (${HANDSHAKES_IN_FLIGHT} handshakes in flight, ${perClient[0]} subscriptions each)…`)
    const connectSecs = await generator.connectAll(connectTimeoutMs)
    const connectLap = meters.lap()
    console.log(`bench:cable: ${generator.readyCount}/${options.clients} ready in ${round(connectSecs, 2)} s`)
    await sleep(1000)
    const idleLap = meters.lap()
    const memoryIdle = serverPid ? processMemory(serverPid) : null

    const report: Report = {
      benchmark: 'cable',
      mode: options.idle !== null ? 'idle' : 'fanout',
      stamp,
      target: options.base ?? target.baseUrl + ' (started by this script)',
      options: { ...options, out: undefined } as unknown as Omit<Options, 'out'>,
      machine: { cpus: cpus().length, node: process.version, pinned: { server: server && pinningAvailable() ? SERVER_CORE : null, generator: pinned ? GENERATOR_CORE : null } },
      clients: options.clients,
      ready: generator.readyCount,
      failed: options.clients - generator.readyCount,
      failure_reasons: generator.failureReasons,
      disconnected: 0,
      disconnect_reasons: {},
      connect_secs: round(connectSecs, 3),
      subscriptions_per_client: perClient[0]!,
      subscriptions_per_client_range: [Math.min(...perClient), Math.max(...perClient)],
      session_rows: options.base === null ? target.sessionRows : null,
      distinct_session_cookies: new Set(target.people.map((person) => person.cookie)).size,
      unread_frames: 0,
      server: {
        pid: serverPid, memory_before_connect: memoryBeforeConnect, memory_idle_after_connect: memoryIdle, memory_end: null,
        cpu_percent_connect: connectLap.server, cpu_percent_idle: idleLap.server, command: server?.command ?? null, log: server?.logPath ?? null, log_messages: {}, stopped: null, profile: null,
      },
      generator: { cpu_percent_connect: connectLap.generator, loop_lag_connect: connectLap.lag, memory_end: null },
      machine_load: { before_core_busy_percent: before, connect_core_busy_percent: connectLap.cores, connect_other_processes_cpu_percent: connectLap.others },
      verdict: {},
      notes,
    }

    if (options.idle !== null) {
      const memoryStart = serverPid ? processMemory(serverPid) : null
      meters.lap()
      await sleep(options.holdSecs * 1000)
      const holdLap = meters.lap()
      const memoryEnd = serverPid ? processMemory(serverPid) : null
      const kb = memoryEnd && memoryBeforeConnect ? round(((memoryEnd.rss_mb - memoryBeforeConnect.rss_mb) * 1024) / Math.max(1, generator.readyCount), 1) : null
      report.idle = { hold_secs: options.holdSecs, memory_start: memoryStart, memory_end: memoryEnd, server_cpu_percent: holdLap.server, kb_per_socket: kb, still_open: generator.openReady }
    } else if (generator.readyCount > 0) {
      console.log(`bench:cable: paced phase: ${options.paced} posts, one every ${options.intervalMs} ms…`)
      report.latency = await pacedPhase(generator, options, meters)
      console.log(`bench:cable: saturated phase: ${options.posters} posters for ${options.tputSecs} s…`)
      report.throughput = await saturatedPhase(generator, options, meters)
    } else {
      notes.push('no client became ready: the post phases were skipped')
    }

    report.unread_frames = generator.unreadFrames
    report.disconnected = generator.clients.filter((client) => client.disconnected).length
    report.disconnect_reasons = generator.closeReasons
    report.server.memory_end = serverPid ? processMemory(serverPid) : null
    report.generator.memory_end = processMemory(process.pid)
    generator.closeAll()
    if (server) {
      report.server.stopped = await stopServer(server, 20_000)
      report.server.log_messages = server.warnings()
      if (server.profileDir && existsSync(server.profileDir)) report.server.profile = summarizeProfileDir(server.profileDir, options.serverDir)
    }
    const bytesPerPost = report.latency?.bytes_per_client_post
    if (options.floor && server && bytesPerPost && generator.readyCount > 0) {
      console.log(`bench:cable: floor phase: ${options.paced} posts to a bare broadcaster with ${generator.readyCount} clients, ${bytesPerPost} bytes each…`)
      try {
        report.floor = await measureFloor({
          clients: generator.readyCount, bytesPerPost, posts: options.paced, intervalMs: options.intervalMs,
          core: pinningAvailable() ? SERVER_CORE : null, connectTimeoutMs, drainSecs: options.pacedDrainSecs,
        })
        const floor = report.floor
        if (floor.ready < floor.clients || floor.complete < floor.posts) {
          notes.push(`the floor phase had ${floor.ready} of ${floor.clients} clients and ${floor.complete} of ${floor.posts} posts complete: its figures are not comparable`)
        }
      } catch (error) {
        notes.push(`the floor phase failed: ${(error as Error).message}`)
      }
    }
    verdicts(report, options)
    const file = join(options.out, `cable-${stamp}.json`)
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    printReport(report, file)
    await cleanup('done')
    clearTimeout(watchdog)
    agent.destroy()
    process.exitCode = report.ready === report.clients && report.disconnected === 0 ? 0 : 1
  } catch (error) {
    console.error(`bench:cable: ${(error as Error).stack ?? error}`)
    await cleanup('failed')
    clearTimeout(watchdog)
    agent.destroy()
    process.exitCode = 1
  }
}

function verdicts(report: Report, options: Options): void {
  const v = report.verdict
  const pass = (measured: number | null, ok: (x: number) => boolean) => (measured === null ? null : ok(measured))
  if (report.throughput) {
    const t = report.throughput
    v.deliveries_per_sec = { target: '≥ 100,000 (Rust 513,332 at 1,000 clients)', measured: t.deliveries_per_sec, met: pass(t.deliveries_per_sec, (x) => x >= 100_000) }
    v.complete_saturated = { target: 'complete == posted', measured: t.complete, met: t.complete === t.posted && t.post_errors === 0 }
  }
  if (report.latency) {
    const p50 = report.latency.all_clients.p50_ms
    const floor = report.floor?.all_clients.p50_ms ?? null
    const onThisMachine = floor === null ? '' : `; the bare-broadcaster floor here, same run: ${floor} ms`
    v.post_to_all_p50_ms = { target: `≤ 15 ms at 1,000 clients (Rust 6.4 ms${onThisMachine})`, measured: p50, met: options.clients === 1000 || p50 === null ? pass(p50, (x) => x <= 15) : null }
    v.complete_paced = { target: 'complete == posted', measured: report.latency.complete, met: report.latency.complete === report.latency.posted && report.latency.post_errors === 0 }
  }
  if (report.idle) {
    const rss = report.idle.memory_end?.rss_mb ?? null
    v.idle_rss_mb = { target: '≤ 200 MB at 10,000 idle sockets', measured: rss, met: options.clients >= 10_000 ? pass(rss, (x) => x <= 200) : null }
  }
  v.ready = { target: 'ready == clients, failed == 0', measured: report.ready, met: report.ready === report.clients }
  const heavy = report.throughput
  if (heavy && heavy.server_cpu_percent !== null && heavy.generator_cpu_percent !== null) {
    const server = heavy.server_cpu_percent >= 95
    const self = heavy.generator_cpu_percent >= 95
    heavy.bottleneck = server && !self ? 'server' : self && !server ? 'generator' : server && self ? 'both' : 'neither (posting or the database wait)'
    if (self) report.notes.push(`the generator used ${heavy.generator_cpu_percent}% of its core in the saturated phase: it may be limiting the figures`)
  }
  for (const [name, phase] of [['connect', { other_processes_cpu_percent: report.machine_load.connect_other_processes_cpu_percent }], ['paced', report.latency], ['saturated', report.throughput]] as const) {
    const others = phase?.other_processes_cpu_percent ?? null
    if (others !== null && others > 10) report.notes.push(`other processes used ${others}% of a core during the ${name} phase: the machine was not quiet, so these figures are pessimistic`)
  }
  if (heavy && heavy.generator_loop_lag.p99_ms > 50) report.notes.push(`generator event-loop lag p99 ${heavy.generator_loop_lag.p99_ms} ms: delivery times include generator queueing`)
}

function printReport(report: Report, file: string): void {
  const rows: [string, string][] = []
  const n = (x: number | null | undefined, digits = 1) => (x === null || x === undefined ? '–' : x.toLocaleString('en-US', { maximumFractionDigits: digits }))
  const mem = (m: Memory | null) => (m ? `${n(m.rss_mb)} MB (peak ${n(m.hwm_mb)})` : '–')
  const stages = (all: Record<string, Summary>) => Object.entries(all).map(([name, s]) => `${name} ${n(s.p50_ms, 2)}`).join(' · ') + ' ms'
  const pp = (s: Summary) => `${n(s.p50_ms, 2)} / ${n(s.p99_ms, 2)} ms (max ${n(s.max_ms, 1)}, n ${n(s.n, 0)})`
  rows.push(['clients / ready / failed', `${report.clients} / ${report.ready} / ${report.failed}${Object.keys(report.failure_reasons).length ? ' ' + JSON.stringify(report.failure_reasons) : ''}`])
  rows.push(['disconnected by server', `${report.disconnected}${report.disconnected ? ' ' + JSON.stringify(report.disconnect_reasons) : ''}`])
  rows.push(['subscriptions per client', String(report.subscriptions_per_client)])
  rows.push(['connect + subscribe', `${n(report.connect_secs, 2)} s`])
  rows.push(['server RSS before connect', mem(report.server.memory_before_connect)])
  rows.push(['server RSS idle after connect', mem(report.server.memory_idle_after_connect)])
  rows.push(['server CPU connect / idle', `${n(report.server.cpu_percent_connect)}% / ${n(report.server.cpu_percent_idle)}%`])
  rows.push(['generator CPU connect', `${n(report.generator.cpu_percent_connect)}%`])
  rows.push(['cores busy before run / connect', `${report.machine_load.before_core_busy_percent.join('% / ')}% | ${report.machine_load.connect_core_busy_percent.join('% / ')}% (others ${n(report.machine_load.connect_other_processes_cpu_percent)}%)`])
  if (report.idle) {
    const idle = report.idle
    rows.push([`idle hold ${idle.hold_secs} s: RSS start → end`, `${mem(idle.memory_start)} → ${mem(idle.memory_end)}`])
    rows.push(['idle: per socket (vs before connect)', `${n(idle.kb_per_socket)} KB`])
    rows.push(['idle: server CPU, sockets still open', `${n(idle.server_cpu_percent)}%, ${idle.still_open}`])
  }
  if (report.latency) {
    const l = report.latency
    rows.push(['paced: posted / complete', `${l.posted} / ${l.complete} (attempts ${l.post_attempts}, errors ${l.post_errors}${l.post_errors ? ' ' + JSON.stringify(l.post_error_reasons) : ''})`])
    rows.push(['paced: post latency p50 / p99', pp(l.post_latency)])
    rows.push(['paced: server time per post p50 / p99', pp(l.server_time)])
    rows.push(['paced: its stages, p50', stages(l.server_stages)])
    rows.push(['paced: per-client delivery p50 / p99', pp(l.per_client_delivery)])
    rows.push(['paced: post → first client p50 / p99', pp(l.first_client)])
    rows.push(['paced: post → all clients p50 / p99', pp(l.all_clients)])
    rows.push(['paced: drain', `${n(l.drain_secs, 2)} s`])
    rows.push(['paced: bytes read per client per post', n(l.bytes_per_client_post, 0)])
    rows.push(['paced: server CPU / generator CPU (kernel part)', `${n(l.server_cpu_percent)}% (${n(l.server_system_cpu_percent)}%) / ${n(l.generator_cpu_percent)}% (${n(l.generator_system_cpu_percent)}%)`])
    rows.push(['paced: cores busy / other processes', `${l.machine_core_busy_percent.join('% / ')}% / ${n(l.other_processes_cpu_percent)}%`])
    rows.push(['paced: generator loop lag p50/p99/max', `${n(l.generator_loop_lag.p50_ms, 2)} / ${n(l.generator_loop_lag.p99_ms, 2)} / ${n(l.generator_loop_lag.max_ms, 2)} ms`])
  }
  if (report.throughput) {
    const t = report.throughput
    rows.push([`saturated: ${t.posters} posters × ${t.secs} s`, `posted ${t.posted} (${n(t.posts_per_sec)}/s), attempts ${t.post_attempts}, errors ${t.post_errors}${t.post_errors ? ' ' + JSON.stringify(t.post_error_reasons) : ''}`])
    rows.push(['saturated: complete / posted', `${t.complete} / ${t.posted}`])
    rows.push(['saturated: span (first post → last complete)', `${n(t.span_secs, 2)} s (drain ${n(t.drain_secs, 2)} s)`])
    rows.push(['saturated: DELIVERIES/S (complete × ready / span)', n(t.deliveries_per_sec, 0)])
    rows.push(['saturated: messages to all / s', n(t.delivered_msgs_per_sec)])
    rows.push(['saturated: frames read / s', n(t.frames_per_sec, 0)])
    rows.push(['saturated: post latency p50 / p99', pp(t.post_latency)])
    rows.push(['saturated: server time per post p50 / p99', pp(t.server_time)])
    rows.push(['saturated: per-client delivery p50 / p99', pp(t.per_client_delivery)])
    rows.push(['saturated: post → all clients p50 / p99', pp(t.all_clients)])
    rows.push(['saturated: server CPU / generator CPU (kernel part)', `${n(t.server_cpu_percent)}% (${n(t.server_system_cpu_percent)}%) / ${n(t.generator_cpu_percent)}% (${n(t.generator_system_cpu_percent)}%)`])
    rows.push(['saturated: bottleneck', t.bottleneck ?? '–'])
    rows.push(['saturated: cores busy / other processes', `${t.machine_core_busy_percent.join('% / ')}% / ${n(t.other_processes_cpu_percent)}%`])
    rows.push(['saturated: generator loop lag p50/p99/max', `${n(t.generator_loop_lag.p50_ms, 2)} / ${n(t.generator_loop_lag.p99_ms, 2)} / ${n(t.generator_loop_lag.max_ms, 2)} ms`])
  }
  if (report.floor) {
    const f = report.floor
    const times = (x: number | null | undefined, floor: number | null | undefined) => (x && floor ? `${n(x / floor, 2)}×` : '–')
    rows.push(['floor: bare broadcaster, clients / bytes each', `${f.ready} / ${n(f.bytes_per_post, 0)} bytes per post (complete ${f.complete} / ${f.posts})`])
    rows.push(['floor: its write loop p50 / p99', pp(f.write_loop)])
    rows.push(['floor: post → first client p50 / p99', pp(f.first_client)])
    rows.push(['floor: post → all clients p50 / p99', pp(f.all_clients)])
    rows.push(['paced post → all p50 / p99 vs floor', `${times(report.latency?.all_clients.p50_ms, f.all_clients.p50_ms)} / ${times(report.latency?.all_clients.p99_ms, f.all_clients.p99_ms)}`])
  }
  rows.push(['unread notices received', n(report.unread_frames, 0)])
  rows.push(['server RSS at end', mem(report.server.memory_end)])
  rows.push(['generator RSS at end', mem(report.generator.memory_end)])
  const width = Math.max(...rows.map(([label]) => label.length))
  console.log('')
  console.log(`Cable fan-out (${report.mode}) — ${report.target}; server core ${report.machine.pinned.server ?? '-'}, generator core ${report.machine.pinned.generator ?? '-'}`)
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`)
  console.log('')
  console.log('  Targets (issue 4):')
  for (const [name, { target, measured, met }] of Object.entries(report.verdict)) {
    console.log(`    ${met === null ? '  -  ' : met ? ' MET ' : 'MISSED'} ${name}: ${n(measured, 2)} (target ${target})`)
  }
  for (const note of report.notes) console.log(`  note: ${note}`)
  if (report.server.profile) {
    for (const profile of report.server.profile.filter((p, i) => i === 0 || p.busy_ms > p.sampled_ms * 0.05)) {
      console.log('')
      console.log(`  Server CPU profile ${profile.file} (${n(profile.sampled_ms / 1000, 1)} s sampled, ${profile.idle_percent}% idle or waiting); top self time, % of busy:`)
      for (const frame of profile.top_self.slice(0, 15)) console.log(`    ${String(frame.self_percent).padStart(5)}%  (total ${String(frame.total_percent).padStart(5)}%)  ${frame.frame}`)
    }
  }
  if (Object.keys(report.server.log_messages).length) console.log(`  server log (warn+): ${JSON.stringify(report.server.log_messages)} — ${report.server.log}`)
  console.log(`  JSON: ${file}`)
}

await main()
