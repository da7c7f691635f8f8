// The users profile (performance.md §1, harness.md §6): `npm run bench:users`. Load is people,
// not requests. Each simulated person
//   - holds an Action Cable socket with a real page's subscriptions: UnreadRoomsChannel,
//     HeartbeatChannel, the sidebar's Turbo::StreamsChannel streams, and for the room on screen
//     PresenceChannel and its RoomMessagesChannel stream (the signed names are scraped from the
//     pages the person fetched, as a browser gets them), refreshing presence every 50 s;
//   - navigates about every --nav-secs (10 s, uniformly 0.5–1.5×): opens a room 55% of the time
//     (GET /rooms/<id> then the sidebar frame), scrolls back 20% (GET messages?before=<oldest
//     shown>), searches 10% (GET /searches?q=<word>), returns to a room they had open 15%
//     (GET /rooms/<id>); on each navigation the room subscriptions are switched as a page does;
//   - posts about every --post-secs (300 s, exponential) into one of their rooms, weighted by
//     membership, a `bench write <hex> bmk<seq>z` message.
// People join in steps (--steps 250,500,1000,2000,3000), each measured for --step-secs (60) after
// --warmup-secs (15). Every response is checked (support/page-checks.ts); every post must reach
// every person viewing that room; at the end every acknowledged write is checked in the database.
// A step is served when navigation p99 ≤ 100 ms, nothing failed, and ≥ 99% of deliveries took
// ≤ 500 ms (from the post being sent). The ramp stops after the first step that is not served,
// unless --keep-going.
//
//   npm run bench:users                                   seeds tmp/bench/users if missing, starts our server on core 0
//   npm run bench:users -- --steps 100,250 --step-secs 20 --warmup-secs 10
//   npm run bench:users -- --base http://127.0.0.1:3000 --fixture DIR [--db FILE] [--server-pid PID]
//
// On a server it starts, the event-loop delay probe (support/loop-probe.mjs, preloaded with
// NODE_OPTIONS) reports the server's loop delay per step: p50, p99 and max, and the stalls over
// 10 ms of a 1 ms timer (--no-loop-probe leaves it out; not with --base).
//
//   npm run bench:users -- --steps 1500 --cpu-prof       also profiles the server (node --cpu-prof) and names its
//                                                        top frames and their callers, over the whole run
//
// Other options: --fixture DIR (tmp/bench/users), --drain-secs 10, --post-secs 300, --nav-secs 10,
// --keep-going, --in-place (run on the fixture itself, not a copy), --no-gzip, --no-pin, --tsx (run the
// server's sources under tsx instead of compiling it as `npm start` does),
// --server-dir DIR (another checkout's server), --out DIR (tmp/bench), --cpu-prof-us 1000 (the
// profile's sampling interval in µs), --no-loop-probe, --memory-after-gc (each step's memory again after a
// full collection), --gen-cpu-prof (profile the generator itself
// into tmp/bench/users-generator-prof-<stamp> and name its top frames).
// Saves tmp/bench/users-<stamp>.json and .md with SVG plots beside them.
import BetterSqlite3 from 'better-sqlite3'
import { randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildFixture, usersSpec } from './fixtures.ts'
import { describeProfiles, describeStalls, generatorProfile } from './support/cpu-profile.ts'
import { describeLoopDelay, type LoopDelay } from './support/loop-delay.ts'
import { budgetLines, cpuBudget, type CpuBudget } from './support/cpu-budget.ts'
import { fixturePaths, readPeople, ROOT, VOCABULARY } from './support/fixture.ts'
import { HttpClient, isFailure, type Answer, type Failure as HttpFailure } from './support/http.ts'
import { processMemory, round, type Memory } from './support/measure.ts'
import { checkPage, checkPost, NewestAcknowledged, type Expectation, type Knowledge } from './support/page-checks.ts'
import { RawWebSocket } from './support/raw-websocket.ts'
import { writeUsersReport } from './support/report.ts'
import { Delivery, DELIVERY_TARGET_MS } from './support/deliveries.ts'
import { copyStorage, cpuProfileFlags, describeProcesses, makeMeters, processOptionsOf, PROBE_WORKERS_OPTION, PROCESS_OPTIONS, reexecPinned, sharesGeneratorCore, sleep, stampNow, startServer, stopServer, type Lap, type ServerChild, type ServerExtras } from './support/server.ts'
import { flag, number, numbers, path, readOptions, text, usageError } from './support/options.ts'
import { ServerTiming } from './support/server-timing.ts'
import { Failures, percentiles, type Percentiles } from './support/stats.ts'

const SCRIPT = fileURLToPath(import.meta.url)
const PINNED_ENV = 'CAMPFIRE_BENCH_USERS_PINNED'
const HANDSHAKES_IN_FLIGHT = 50
const NAV_P99_TARGET_MS = 100
const REFRESH_MS = 50_000
const CONNECT_LIMIT_MS = 60_000

// ---------------------------------------------------------------------------------------------
// Options

export interface Options {
  steps: number[]
  stepSecs: number
  warmupSecs: number
  drainSecs: number
  navSecs: number
  postSecs: number
  fixture: string
  base: string | null
  db: string | null
  serverPid: number | null
  serverDir: string
  keepGoing: boolean
  inPlace: boolean
  gzip: boolean
  pin: boolean
  processes: ServerExtras
  tsx: boolean
  cpuProf: boolean
  cpuProfUs: number
  loopProbe: boolean
  cpuLedger: boolean
  genCpuProf: boolean
  memoryAfterGc: boolean
  out: string
}

// bench:users' options; bench:caches takes the same (but --out) and passes them on.
export const USERS_OPTIONS = {
  steps: numbers('N,N,…', 'how many people each step has', [250, 500, 1000, 2000, 3000]),
  'step-secs': number('SECS', 'how long each step is measured', 60),
  'warmup-secs': number('SECS', 'how long each step runs before it is measured', 15),
  'drain-secs': number('SECS', "how long to wait for a step's last deliveries", 10),
  'nav-secs': number('SECS', 'mean time between one person\'s navigations', 10),
  'post-secs': number('SECS', 'mean time between one person\'s posts', 300),
  fixture: path('DIR', 'the fixture folder (seeded first when missing, unless --base)', 'tmp/bench/users'),
  base: text('URL', 'a server that is already up (http://HOST:PORT) instead of starting ours'),
  db: path('FILE', "with --base: that server's database, for the checks and the write audit"),
  'server-pid': number('PID', "with --base: that server's process, for its CPU and memory", null, { integer: true }),
  'server-dir': path('DIR', "start another checkout's server", '.', 'this checkout'),
  out: path('DIR', 'where the report goes', 'tmp/bench'),
  'keep-going': flag('run every step, not only up to the first one that is not served'),
  'in-place': flag('run on the fixture itself, not a copy'),
  'no-gzip': flag('ask for uncompressed pages'),
  'no-pin': flag('do not pin the server and the generator to their cores'),
  tsx: flag("run the server's sources under tsx instead of compiling them as npm start does"),
  'cpu-prof': flag('also profile the server (node --cpu-prof, the whole run) and name its top frames and their callers'),
  'cpu-prof-us': number('US', "the profile's sampling interval in µs", 1000),
  'no-loop-probe': flag("do not preload the event-loop delay probe into the server (no loop delay per step)"),
  'no-cpu-ledger': flag("do not turn on the server's CPU ledger (CAMPFIRE_CPU_LEDGER=1), which gives the CPU budget per navigation by part"),
  'gen-cpu-prof': flag('profile the generator itself into tmp/bench/users-generator-prof-<stamp> and name its top frames'),
  'memory-after-gc': flag("start the server with --expose-gc, and at each step's end give its memory again after a full collection (what is live, apart from garbage); a pause of the server's loop per step"),
  ...PROCESS_OPTIONS,
  ...PROBE_WORKERS_OPTION,
}

const USERS_SUMMARY = `The users profile: simulated people (an Action Cable socket each, navigations, posts) join in
steps; every response and delivery is checked, every acknowledged write audited. Saves
tmp/bench/users-<stamp>.json and .md. See docs/benchmarks.md, "The users profile".`

function parseOptions(argv: string[]): Options {
  const v = readOptions({ name: 'bench:users', summary: USERS_SUMMARY, options: USERS_OPTIONS }, argv)
  if (v.base !== null && !/^http:\/\/[^/]+:\d+\/?$/.test(v.base)) usageError('bench:users', '--base must look like http://HOST:PORT')
  if (v.base !== null && v.cpuProf) usageError('bench:users', '--cpu-prof only works on the server this script starts')
  if (v.memoryAfterGc && (v.base !== null || v.noLoopProbe)) usageError('bench:users', '--memory-after-gc needs the loop probe in a server this script starts (not with --base or --no-loop-probe)')
  return {
    steps: v.steps, stepSecs: v.stepSecs, warmupSecs: v.warmupSecs, drainSecs: v.drainSecs, navSecs: v.navSecs, postSecs: v.postSecs,
    fixture: v.fixture, base: v.base, db: v.db, serverPid: v.serverPid, serverDir: v.serverDir,
    keepGoing: v.keepGoing, inPlace: v.inPlace, gzip: !v.noGzip, pin: !v.noPin && !sharesGeneratorCore(v.serverCores), processes: processOptionsOf(v), tsx: v.tsx, out: v.out,
    cpuProf: v.cpuProf, cpuProfUs: v.cpuProfUs, loopProbe: !v.noLoopProbe, cpuLedger: !v.noCpuLedger && !v.noLoopProbe, genCpuProf: v.genCpuProf,
    memoryAfterGc: v.memoryAfterGc,
  }
}

function fail(message: string): never {
  console.error(`bench:users: ${message}`)
  process.exit(2)
}

// ---------------------------------------------------------------------------------------------
// What the generator knows: rooms and their members, which room each message is in, and the
// newest acknowledged post of each room.

class World implements Knowledge {
  readonly roomOf = new Map<number, number>()
  readonly memberships = new Map<number, Set<number>>()
  readonly roomSize = new Map<number, number>()
  readonly newestAck = new NewestAcknowledged()
  readonly acknowledged: { id: number; room: number; token: string }[] = []
  initialMaxId = 0

  constructor(db: BetterSqlite3.Database) {
    for (const row of db.prepare<[], { room_id: number; user_id: number }>('SELECT room_id, user_id FROM memberships').iterate()) {
      let rooms = this.memberships.get(row.user_id)
      if (!rooms) this.memberships.set(row.user_id, (rooms = new Set()))
      rooms.add(row.room_id)
      this.roomSize.set(row.room_id, (this.roomSize.get(row.room_id) ?? 0) + 1)
    }
    for (const row of db.prepare<[], [number, number]>('SELECT id, room_id FROM messages').raw().iterate()) this.roomOf.set(row[0], row[1])
    this.initialMaxId = (db.prepare('SELECT COALESCE(MAX(id), 0) FROM messages').pluck().get() as number) ?? 0
  }

  roomOfMessage(id: number): number | undefined {
    return this.roomOf.get(id)
  }

  roomsOf(userId: number): ReadonlySet<number> {
    return this.memberships.get(userId) ?? new Set()
  }
}

// ---------------------------------------------------------------------------------------------
// Per-step statistics

type NavKind = 'open' | 'scroll' | 'search' | 'return'
const NAV_KINDS: NavKind[] = ['open', 'scroll', 'search', 'return']

class StepStats {
  readonly nav: Record<NavKind, number[]> = { open: [], scroll: [], search: [], return: [] }
  readonly failures = new Failures()
  readonly timing = new ServerTiming()
  // The same, per kind of page (room, sidebar, messages, search).
  readonly timingByKind = new Map<string, ServerTiming>()
  readonly postLatency: number[] = []
  readonly delivery: number[] = []
  readonly markers: Marker[] = []
  posts = 0
  postErrors = 0
  requests = 0
  // Room pages without the newest acknowledged post because newer posts had pushed it off.
  pushedOff = 0
  retriesAtStart = 0
  unknownIds: { id: number; room: number | null; userId: number }[] = []
  unreadFrames = 0
  // How long each socket took from its TCP connect to the server's answer to the upgrade, and
  // how many failed to open (reconnects during a step included).
  readonly socketOpenMs: number[] = []
  socketsNotOpened = 0
  startedAt = performance.now()
  endedAt = 0

  constructor(readonly people: number, readonly label: string) {}
}

interface Marker {
  delivery: Delivery
  token: string
  ok: boolean | null
  stats: StepStats
}

// ---------------------------------------------------------------------------------------------
// People

const BMK = Buffer.from('bmk')
const CONFIRM = Buffer.from('confirm_subscription')
const REJECT = Buffer.from('reject_subscription')
const WELCOME = Buffer.from('"type":"welcome"')
const DISCONNECT = Buffer.from('"type":"disconnect"')
const ROOM_ID = Buffer.from('"roomId":')

const identifier = (value: Record<string, unknown>) => JSON.stringify(value)
const UNREAD = identifier({ channel: 'UnreadRoomsChannel' })
const HEARTBEAT = identifier({ channel: 'HeartbeatChannel' })

class Person {
  socket: RawWebSocket | null = null
  welcomed = false
  started = false
  stopped = false
  readonly confirmed = new Set<string>()
  sidebarStreams: string[] | null = null
  current: number | null = null
  presence: string | null = null
  messages: string | null = null
  viewing: number | null = null
  oldest: number | null = null
  readonly history: number[] = []
  private timers: NodeJS.Timeout[] = []
  private readonly rooms: number[]
  private readonly weights: Float64Array

  constructor(
    readonly index: number,
    readonly id: number,
    readonly cookie: string,
    private readonly run: Run,
  ) {
    this.rooms = [...run.world.roomsOf(id)]
    const sizes = this.rooms.map((room) => run.world.roomSize.get(room) ?? 1)
    const sum = sizes.reduce((a, b) => a + b, 0)
    let acc = 0
    this.weights = Float64Array.from(sizes, (size) => (acc += size / sum))
  }

  pickRoom(except: number | null = null): number | null {
    if (this.rooms.length === 0) return null
    for (let tries = 0; tries < 5; tries++) {
      const x = Math.random()
      const room = this.rooms[this.weights.findIndex((w) => w >= x)] ?? this.rooms[this.rooms.length - 1]!
      if (room !== except || this.rooms.length === 1) return room
    }
    return this.rooms.find((room) => room !== except) ?? null
  }

  connect(onSettled: (openMs: number | null) => void): void {
    const { host, port } = this.run.http
    let settled = false
    const started = performance.now()
    const settle = (opened: boolean) => {
      if (!settled) {
        settled = true
        const ms = opened ? performance.now() - started : null
        if (ms === null) this.run.stats.socketsNotOpened++
        else this.run.stats.socketOpenMs.push(ms)
        onSettled(ms)
      }
    }
    this.socket = new RawWebSocket(
      { host, port, path: '/cable', protocols: ['actioncable-v1-json', 'actioncable-unsupported'], handshakeTimeoutMs: 30_000, headers: { Origin: `http://${host}:${port}`, Cookie: this.cookie } },
      {
        onOpen: () => settle(true),
        onText: (payload, at) => this.receive(payload, at),
        onClose: (reason, wasOpen) => {
          settle(false)
          this.closed(reason, wasOpen)
        },
      },
    )
  }

  stop(): void {
    this.stopped = true
    for (const timer of this.timers) clearTimeout(timer)
    this.socket?.destroy()
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== timer)
      if (!this.stopped) fn()
    }, ms)
    this.timers.push(timer)
  }

  private closed(reason: string, wasOpen: boolean): void {
    this.leaveRoom()
    this.welcomed = false
    this.confirmed.clear()
    if (this.stopped) return
    this.run.stats.failures.add(wasOpen ? `socket closed by the server: ${reason}` : `socket not opened: ${reason}`)
    // Action Cable's client reconnects after a few seconds; so does a person.
    this.later(2000 + Math.random() * 2000, () => this.connect(() => {}))
  }

  // Before the welcome nothing is sent: the welcome subscribes whatever the page shows by then.
  private send(command: 'subscribe' | 'unsubscribe', id: string): void {
    if (this.welcomed) this.socket?.sendText(JSON.stringify({ command, identifier: id }))
  }

  private receive(payload: Buffer, at: number): void {
    let index = payload.indexOf(BMK)
    if (index >= 0) {
      while (index >= 0) {
        index = this.run.delivered(this, payload, index + 3, at)
        index = payload.indexOf(BMK, index)
      }
      return
    }
    if (payload.length > 4096) return
    if (payload.indexOf(CONFIRM) >= 0) this.confirm(payload)
    else if (payload.indexOf(REJECT) >= 0) this.run.stats.failures.add(`subscription rejected: ${payload.toString('utf8').slice(0, 200)}`)
    else if (payload.indexOf(ROOM_ID) >= 0) this.run.stats.unreadFrames++
    else if (!this.welcomed && payload.indexOf(WELCOME) >= 0) this.welcome()
    else if (payload.indexOf(DISCONNECT) >= 0) this.run.stats.failures.add(`server sent disconnect: ${payload.toString('utf8').slice(0, 200)}`)
  }

  private welcome(): void {
    this.welcomed = true
    for (const id of [UNREAD, HEARTBEAT, ...(this.sidebarStreams ?? [])]) this.send('subscribe', id)
    if (this.presence) this.send('subscribe', this.presence)
    if (this.messages) this.send('subscribe', this.messages)
    if (!this.started) {
      this.started = true
      // People arrive spread over one navigation interval, not all in the same instant.
      this.later(Math.random() * this.run.options.navSecs * 1000, () => void this.navigate('open'))
      this.later(Math.random() * this.run.options.postSecs * 1000, () => this.postLoop())
      this.later(Math.random() * REFRESH_MS, () => this.refreshLoop())
    }
  }

  private confirm(payload: Buffer): void {
    let id: string
    try {
      id = (JSON.parse(payload.toString('utf8')) as { identifier: string }).identifier
    } catch {
      return
    }
    this.confirmed.add(id)
    if (id === this.messages && this.current !== null && this.viewing !== this.current) {
      this.viewing = this.current
      this.run.viewerJoined(this, this.current)
    }
  }

  private refreshLoop(): void {
    if (this.presence && this.welcomed) this.socket?.sendText(JSON.stringify({ command: 'message', identifier: this.presence, data: JSON.stringify({ action: 'refresh' }) }))
    this.later(REFRESH_MS, () => this.refreshLoop())
  }

  private postLoop(): void {
    const room = this.pickRoom()
    if (room !== null) void this.run.post(this, room)
    // Exponential intervals with the given mean: posts arrive as a Poisson process.
    this.later(-Math.log(1 - Math.random()) * this.run.options.postSecs * 1000, () => this.postLoop())
  }

  private leaveRoom(): void {
    if (this.viewing !== null) this.run.viewerLeft(this, this.viewing)
    this.viewing = null
  }

  // Unsubscribes the old room's presence and messages, subscribes the new ones (or none: search).
  private switchTo(room: number | null, messagesStream: string | null): void {
    this.leaveRoom()
    if (this.presence) this.send('unsubscribe', this.presence)
    if (this.messages) this.send('unsubscribe', this.messages)
    if (this.presence) this.confirmed.delete(this.presence)
    if (this.messages) this.confirmed.delete(this.messages)
    this.current = room
    this.presence = room === null ? null : identifier({ channel: 'PresenceChannel', room_id: room })
    this.messages = room === null || messagesStream === null ? null : identifier({ channel: 'RoomMessagesChannel', signed_stream_name: messagesStream })
    if (this.presence) this.send('subscribe', this.presence)
    if (this.messages) this.send('subscribe', this.messages)
  }

  async navigate(kind: NavKind): Promise<void> {
    try {
      await this.navigateOnce(kind)
    } catch (error) {
      this.run.stats.failures.add(`generator error: ${(error as Error).message}`)
    }
    const next = this.run.options.navSecs * 1000 * (0.5 + Math.random())
    this.later(next, () => void this.navigate(this.run.nextKind()))
  }

  private async navigateOnce(kind: NavKind): Promise<void> {
    const stats = this.run.stats
    const started = performance.now()
    let ok: boolean
    if (kind === 'scroll' && this.current !== null && this.oldest !== null) ok = await this.scroll(stats)
    else if (kind === 'search') ok = await this.search(stats)
    else if (kind === 'return' && this.history.some((room) => room !== this.current)) {
      const choices = this.history.filter((room) => room !== this.current)
      ok = await this.openRoom(stats, choices[Math.floor(Math.random() * choices.length)]!, false)
    } else {
      kind = kind === 'scroll' || kind === 'return' ? 'open' : kind
      ok = await this.openRoom(stats, this.pickRoom(this.current), true)
    }
    if (ok) stats.nav[kind].push(performance.now() - started)
  }

  private async openRoom(stats: StepStats, room: number | null, withSidebar: boolean): Promise<boolean> {
    if (room === null) return false
    const expectation: Expectation = { kind: 'room', userId: this.id, roomId: room, newestAcknowledged: this.run.world.newestAck.get(room) }
    const page = await this.run.get(stats, `/rooms/${room}`, this, expectation)
    if (!page) return false
    const stream = page.facts.streams.find((s) => s.channel === 'RoomMessagesChannel')?.signed ?? null
    this.oldest = page.facts.messageIds[0] ?? null
    this.history.push(room)
    if (this.history.length > 8) this.history.shift()
    let ok = true
    if (withSidebar) {
      const sidebar = await this.run.get(stats, '/users/me/sidebar', this, { kind: 'sidebar', userId: this.id })
      ok = sidebar !== null
      if (sidebar && this.sidebarStreams === null) {
        this.sidebarStreams = sidebar.facts.streams.filter((s) => s.channel === 'Turbo::StreamsChannel').map((s) => identifier({ channel: s.channel, signed_stream_name: s.signed }))
        for (const id of this.sidebarStreams) this.send('subscribe', id)
      }
    }
    this.switchTo(room, stream)
    return ok && page.ok
  }

  private async scroll(stats: StepStats): Promise<boolean> {
    const room = this.current!
    const page = await this.run.get(stats, `/rooms/${room}/messages?before=${this.oldest}`, this, { kind: 'messages', userId: this.id, roomId: room })
    if (!page) return false
    // At the start of the history the next scroll starts from the newest again.
    this.oldest = page.facts.messageIds[0] ?? null
    return page.ok
  }

  private async search(stats: StepStats): Promise<boolean> {
    const word = VOCABULARY[Math.floor(Math.random() * VOCABULARY.length)]!
    const page = await this.run.get(stats, `/searches?q=${encodeURIComponent(word)}`, this, { kind: 'search', userId: this.id })
    this.switchTo(null, null)
    return page !== null && page.ok
  }
}

// ---------------------------------------------------------------------------------------------
// The run

class Run {
  stats: StepStats
  readonly people: Person[] = []
  readonly markers = new Map<number, Marker>()
  readonly viewers = new Map<number, Set<Person>>()
  private readonly recent = new Map<number, Marker[]>()
  private sequence = 0
  inFlight = 0
  // Posts whose answer failed: the server may or may not have written them.
  unacknowledgedPosts = 0

  constructor(
    readonly options: Options,
    readonly world: World,
    readonly http: HttpClient,
    private readonly cookies: { id: number; cookie: string }[],
  ) {
    this.stats = new StepStats(0, 'connect')
  }

  nextKind(): NavKind {
    const x = Math.random()
    return x < 0.55 ? 'open' : x < 0.75 ? 'scroll' : x < 0.85 ? 'search' : 'return'
  }

  // Adds people up to `count`, at most HANDSHAKES_IN_FLIGHT handshakes at once.
  // Resolves when every new person's socket opened or failed, or after CONNECT_LIMIT_MS (the
  // rest keep connecting during the warmup); returns the seconds it took.
  async grow(count: number): Promise<{ secs: number; opened: number[]; notOpened: number; pending: number }> {
    const started = performance.now()
    const opened: number[] = []
    let notOpened = 0
    const from = this.people.length
    const to = Math.min(count, this.cookies.length)
    if (to < count) console.warn(`bench:users: the fixture has only ${this.cookies.length} people with memberships; using ${to}`)
    let next = from
    let inFlight = 0
    await new Promise<void>((done) => {
      setTimeout(done, CONNECT_LIMIT_MS).unref()
      const pump = () => {
        while (inFlight < HANDSHAKES_IN_FLIGHT && next < to) {
          const { id, cookie } = this.cookies[next]!
          const person = new Person(next++, id, cookie, this)
          this.people.push(person)
          inFlight++
          person.connect((ms) => {
            if (ms === null) notOpened++
            else opened.push(ms)
            inFlight--
            if (next >= to && inFlight === 0) done()
            else pump()
          })
        }
        if (from === to) done()
      }
      pump()
    })
    return { secs: (performance.now() - started) / 1000, opened: [...opened], notOpened, pending: to - from - opened.length - notOpened }
  }

  viewerJoined(person: Person, room: number): void {
    let set = this.viewers.get(room)
    if (!set) this.viewers.set(room, (set = new Set()))
    set.add(person)
  }

  viewerLeft(person: Person, room: number): void {
    this.viewers.get(room)?.delete(person)
    const now = performance.now()
    for (const marker of this.recent.get(room) ?? []) marker.delivery.left(person.index, now)
  }

  async get(stats: StepStats, path: string, person: Person, expect: Expectation): Promise<{ ok: boolean; facts: ReturnType<typeof checkPage>['facts'] } | null> {
    stats.requests++
    this.inFlight++
    const answer = await this.http.request({ path, headers: { cookie: person.cookie, 'accept-encoding': this.options.gzip ? 'gzip' : 'identity' } }).finally(() => this.inFlight--)
    if (isFailure(answer)) {
      stats.failures.add(`transport error: GET ${path.split('?')[0]}: ${answer.error}`)
      return null
    }
    stats.timing.add(answer.headers['server-timing'])
    let byKind = stats.timingByKind.get(expect.kind)
    if (!byKind) stats.timingByKind.set(expect.kind, (byKind = new ServerTiming()))
    byKind.add(answer.headers['server-timing'])
    // Upstream answers an empty history page with 204 No Content.
    if (answer.status === 204 && expect.kind === 'messages') return { ok: true, facts: checkPage(Buffer.alloc(0), expect, this.world).facts }
    if (answer.status !== 200) {
      stats.failures.add(`HTTP ${answer.status}: GET ${path}`)
      return null
    }
    const verdict = checkPage(answer.body, expect, this.world)
    for (const failure of verdict.failures) {
      const [reason, ...detail] = failure.split(': ')
      stats.failures.add(`${reason}: ${detail.length ? detail.join(': ') + ' ' : ''}(GET ${path}, person ${person.id})`)
    }
    if (verdict.pushedOff) stats.pushedOff++
    for (const id of verdict.unknown) stats.unknownIds.push({ id, room: expect.kind === 'search' ? null : expect.roomId ?? null, userId: person.id })
    return { ok: verdict.failures.length === 0, facts: verdict.facts }
  }

  async post(person: Person, room: number): Promise<void> {
    const stats = this.stats
    const seq = ++this.sequence
    const token = `bench write ${Date.now().toString(16)}${seq.toString(16)}${randomBytes(3).toString('hex')}`
    const text = `${token} bmk${seq}z`
    const viewers = [...(this.viewers.get(room) ?? [])].map((viewer) => viewer.index)
    const marker: Marker = { delivery: new Delivery(seq, room, performance.now(), viewers, this.people.length + 1024), token, ok: null, stats }
    this.markers.set(seq, marker)
    const list = this.recent.get(room) ?? []
    list.push(marker)
    while (list.length > 0 && marker.delivery.sentAt - list[0]!.delivery.sentAt > 60_000) list.shift()
    this.recent.set(room, list)
    const body = new URLSearchParams({ 'message[body]': text, 'message[client_message_id]': randomBytes(16).toString('hex') }).toString()
    this.inFlight++
    const answer: Answer | HttpFailure = await this.http.request({
      method: 'POST', path: `/rooms/${room}/messages`, body,
      headers: {
        cookie: person.cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml',
        'sec-fetch-site': 'same-origin', 'accept-encoding': this.options.gzip ? 'gzip' : 'identity',
      },
    }).finally(() => this.inFlight--)
    stats.posts++
    if (isFailure(answer)) {
      marker.ok = false
      stats.postErrors++
      this.unacknowledgedPosts++
      stats.failures.add(`post failed: ${answer.error}`)
      return
    }
    const { failure, id } = checkPost(answer.status, answer.headers['content-type'], answer.body.toString('utf8'), text)
    if (failure !== null || id === null) {
      marker.ok = false
      stats.postErrors++
      this.unacknowledgedPosts++
      stats.failures.add(`post rejected: ${failure} (room ${room}, person ${person.id})`)
      return
    }
    marker.ok = true
    stats.postLatency.push(answer.ms)
    this.world.roomOf.set(id, room)
    this.world.newestAck.acknowledge(room, id)
    this.world.acknowledged.push({ id, room, token })
    stats.markers.push(marker)
  }

  // Reads the digits after "bmk" and counts the marker once for this person. Returns where to search on.
  delivered(person: Person, payload: Buffer, from: number, at: number): number {
    let seq = 0
    let i = from
    while (i < payload.length && i - from < 12 && payload[i]! >= 48 && payload[i]! <= 57) seq = seq * 10 + (payload[i++]! - 48)
    if (i === from || payload[i] !== 0x7a) return i
    const marker = this.markers.get(seq)
    if (!marker) return i + 1
    const latency = marker.delivery.received(person.index, at)
    if (latency !== null) marker.stats.delivery.push(latency)
    return i + 1
  }

  stop(): void {
    for (const person of this.people) person.stop()
  }
}

// ---------------------------------------------------------------------------------------------
// Step reports

export interface StepReport {
  people: number
  connect_secs?: number
  // The step's new sockets: opened (handshake times from TCP connect to the upgrade's answer,
  // with at most 50 handshakes in flight), failed, and still opening when the step's connect
  // phase gave up waiting (60 s); and every socket opened during the measured step (reconnects).
  socket_open?: { opened: number; not_opened: number; still_opening: number; open_ms: Percentiles }
  sockets_during_step: { opened: number; not_opened: number; open_ms: Percentiles }
  // The server's CPU per navigation by part (its CPU ledger), null without it.
  cpu_budget: CpuBudget | null
  secs: number
  navigations: Record<NavKind | 'all', Percentiles>
  navigations_per_sec: number
  requests: number
  failures: number
  failure_reasons: Record<string, number>
  failure_examples: Record<string, string[]>
  posts: number
  post_errors: number
  // Room pages that lacked the newest acknowledged post because newer posts had pushed it off
  // (every message on them newer): not failures.
  acknowledged_pushed_off: number
  post_latency: Percentiles
  delivery: Percentiles & { expected: number; delivered: number; within_500ms: number; within_500ms_percent: number | null; missed: number; excused: number }
  unread_notices: number
  keepalive_retries: number
  server_timing: ReturnType<ServerTiming['summary']>
  page_hit_rate_by_kind: Record<string, number | null>
  // The viewer-shell cache's (Server-Timing `shell`), null for a kind it did not report on.
  shell_hit_rate_by_kind: Record<string, number | null>
  server: { cpu_percent: number | null; memory: Memory | null }
  generator: { cpu_percent: number | null; loop_lag: Lap['generator_loop_lag']; memory: Memory | null }
  machine: { core_busy_percent: number[]; other_processes_cpu_percent: number | null }
  // Contention-robust ratios: the server's CPU time per navigation (page requests, posts and
  // socket work included), and how many people one whole core would serve at that rate.
  server_cpu_ms_per_navigation: number | null
  people_per_server_core: number | null
  // The server's event loop over the step (null with --base or --no-loop-probe).
  server_loop_delay: LoopDelay | null
  served: boolean
  verdict: string[]
}

// One Server-Timing metric's hit rate per kind of page (room, sidebar, messages, search).
function hitRateByKind(stats: StepStats, metric: string): Record<string, number | null> {
  return Object.fromEntries([...stats.timingByKind].map(([kind, timing]) => {
    const m = timing.summary()[metric]
    return [kind, typeof m === 'object' ? m.hit_rate_percent : null]
  }))
}

function stepReport(stats: StepStats, lap: Lap, retries: number, serverPid: number | null, loopDelay: LoopDelay | null): StepReport {
  const secs = (stats.endedAt - stats.startedAt) / 1000
  const all = NAV_KINDS.flatMap((kind) => stats.nav[kind])
  let expected = 0
  let missed = 0
  let excused = 0
  for (const { delivery } of stats.markers) {
    const tally = delivery.tally()
    expected += tally.expected
    missed += tally.missed
    excused += tally.excused
    if (tally.undelivered > 0) stats.failures.add(`post not delivered to people viewing the room: post ${delivery.seq} (room ${delivery.room}) missed by ${tally.undelivered}`)
  }
  const within = stats.delivery.filter((ms) => ms <= DELIVERY_TARGET_MS).length
  const withinPercent = expected === 0 ? null : round((within / expected) * 100, 2)
  const navigations = Object.fromEntries([...NAV_KINDS.map((k) => [k, percentiles(stats.nav[k])]), ['all', percentiles(all)]]) as StepReport['navigations']
  const verdict: string[] = []
  const p99 = navigations.all.p99_ms
  if (p99 === null) verdict.push('no navigation completed')
  else if (p99 > NAV_P99_TARGET_MS) verdict.push(`navigation p99 ${p99} ms > ${NAV_P99_TARGET_MS} ms`)
  if (stats.failures.total > 0) verdict.push(`${stats.failures.total} failures`)
  if (withinPercent !== null && withinPercent < 99) verdict.push(`${withinPercent}% of deliveries within ${DELIVERY_TARGET_MS} ms < 99%`)
  return {
    people: stats.people,
    secs: round(secs, 1),
    navigations,
    navigations_per_sec: round(all.length / Math.max(secs, 0.001), 1),
    requests: stats.requests,
    failures: stats.failures.total,
    failure_reasons: stats.failures.counts,
    failure_examples: stats.failures.examples,
    posts: stats.posts,
    post_errors: stats.postErrors,
    acknowledged_pushed_off: stats.pushedOff,
    post_latency: percentiles(stats.postLatency),
    delivery: { ...percentiles(stats.delivery), expected, delivered: stats.delivery.length, within_500ms: within, within_500ms_percent: withinPercent, missed, excused },
    unread_notices: stats.unreadFrames,
    keepalive_retries: retries,
    server_timing: stats.timing.summary(),
    page_hit_rate_by_kind: hitRateByKind(stats, 'page'),
    shell_hit_rate_by_kind: hitRateByKind(stats, 'shell'),
    server: { cpu_percent: lap.server_cpu_percent, memory: serverPid ? processMemory(serverPid) : null },
    generator: { cpu_percent: lap.generator_cpu_percent, loop_lag: lap.generator_loop_lag, memory: processMemory(process.pid) },
    machine: { core_busy_percent: lap.core_busy_percent, other_processes_cpu_percent: lap.other_processes_cpu_percent },
    server_cpu_ms_per_navigation: lap.server_cpu_percent === null || all.length === 0 ? null : round((lap.server_cpu_percent / 100) * secs * 1000 / all.length, 2),
    people_per_server_core: lap.server_cpu_percent ? Math.round((stats.people * 100) / lap.server_cpu_percent) : null,
    server_loop_delay: loopDelay,
    sockets_during_step: { opened: stats.socketOpenMs.length, not_opened: stats.socketsNotOpened, open_ms: percentiles(stats.socketOpenMs) },
    cpu_budget: cpuBudget(loopDelay?.cpu_ledger, all.length),
    served: verdict.length === 0,
    verdict,
  }
}

// ---------------------------------------------------------------------------------------------
// The end: unknown ids looked up, and every acknowledged write audited (harness.md §2.3, per room).

function finalChecks(db: BetterSqlite3.Database, world: World, steps: StepStats[], unacknowledged: number, notes: string[]): string[] {
  const failures: string[] = []
  const room = db.prepare<[number], number>('SELECT room_id FROM messages WHERE id = ?').pluck()
  for (const stats of steps) {
    for (const { id, room: expected, userId } of stats.unknownIds) {
      const actual = room.get(id)
      const rooms = world.roomsOf(userId)
      const bad = actual === undefined ? `message ${id} does not exist` : expected !== null ? (actual !== expected ? `message ${id} is in room ${actual}, page was room ${expected}` : null) : (!rooms.has(actual) ? `search showed message ${id} of room ${actual} to person ${userId}` : null)
      if (bad) {
        stats.failures.add(`message from another room: ${bad}`)
        failures.push(bad)
      }
    }
  }
  const acks = world.acknowledged
  if (new Set(acks.map((a) => a.id)).size !== acks.length) failures.push('a message was acknowledged more than once')
  const valid = db.prepare(
    `WITH acknowledged AS MATERIALIZED (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.room') AS room, json_extract(value, '$.token') AS token FROM json_each(?))
     SELECT COUNT(*) FROM acknowledged a CROSS JOIN messages m
     WHERE m.id = a.id AND m.room_id = a.room
       AND EXISTS(SELECT 1 FROM action_text_rich_texts rt WHERE rt.record_type = 'Message' AND rt.name = 'body' AND rt.record_id = m.id AND instr(rt.body, a.token) > 0)
       AND EXISTS(SELECT 1 FROM message_search_index idx WHERE idx.rowid = m.id AND instr(idx.body, a.token) > 0)`,
  ).pluck().get(JSON.stringify(acks)) as number
  if (valid !== acks.length) failures.push(`${acks.length - valid} of ${acks.length} acknowledged posts lack their row, room, body or search entry`)
  const written = db.prepare("SELECT COUNT(*) FROM messages m JOIN action_text_rich_texts rt ON rt.record_type = 'Message' AND rt.name = 'body' AND rt.record_id = m.id WHERE m.id > ? AND rt.body LIKE '%bench write %'").pluck().get(world.initialMaxId) as number
  // A post whose answer failed (already counted as a failure) may have been written: no more extras than those.
  if (written < acks.length || written > acks.length + unacknowledged) failures.push(`${written} benchmark posts in the database, ${acks.length} acknowledged and ${unacknowledged} unanswered (no extra, none lost)`)
  else if (written > acks.length) notes.push(`${written - acks.length} of the ${unacknowledged} posts whose answer failed were written anyway`)
  return failures
}

// ---------------------------------------------------------------------------------------------
// Main

export interface UsersReport {
  benchmark: 'users'
  stamp: string
  target: string
  options: Omit<Options, 'out'>
  machine: { cpus: number; node: string; pinned: { server: string | null; generator: string | null } }
  fixture: { people: number; rooms: number; messages: number }
  steps: StepReport[]
  highest_served_step: number | null
  audit: { acknowledged: number; failures: string[] }
  notes: string[]
  server_profile: ReturnType<typeof describeProfiles>['summaries'] | null
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2))
  const generator = generatorProfile('bench:users', 'users', options.out, options.genCpuProf, ROOT, stampNow())
  if (reexecPinned(SCRIPT, ROOT, PINNED_ENV, options.pin, generator.dir, generator.print)) return
  const stamp = stampNow()
  mkdirSync(options.out, { recursive: true })
  const notes: string[] = []
  const paths = fixturePaths(options.fixture)
  if (!existsSync(paths.database) || !existsSync(paths.people)) {
    if (options.base !== null) fail(`no fixture at ${options.fixture} (run npm run seed:users, then serve it)`)
    console.log(`bench:users: no fixture at ${options.fixture}; seeding it (npm run seed:users)…`)
    buildFixture(options.fixture, usersSpec(), true)
  }

  let server: ServerChild | null = null
  let storage: string | null = null
  let run: Run | null = null
  const profileDir = join(options.out, `users-${stamp}-prof`)
  const cleanup = async () => {
    run?.stop()
    if (server) await stopServer(server)
    if (storage && !options.inPlace) rmSync(storage, { recursive: true, force: true })
    server = null
  }
  // The first Ctrl-C ends the ramp after the current step's report; the second stops at once.
  const interrupt = new AbortController()
  const pause = (ms: number) => new Promise<void>((done) => {
    const timer = setTimeout(done, ms)
    interrupt.signal.addEventListener('abort', () => (clearTimeout(timer), done()), { once: true })
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (!interrupt.signal.aborted) return interrupt.abort()
      void cleanup().finally(() => process.exit(130))
    })
  }

  try {
    let baseUrl = options.base?.replace(/\/$/, '') ?? ''
    let dbPath = options.db ?? paths.database
    if (options.base === null) {
      storage = options.inPlace ? options.fixture : copyStorage(options.fixture)
      dbPath = join(storage, 'db', 'production.sqlite3')
      const profile = [...(options.cpuProf ? cpuProfileFlags(profileDir, options.cpuProfUs) : []), ...(options.memoryAfterGc ? ['--expose-gc'] : [])]
      server = await startServer(options.serverDir, storage, join(options.out, `users-${stamp}-server.log`), options.cpuLedger ? { CAMPFIRE_CPU_LEDGER: '1' } : {}, options.tsx, profile, { probe: options.loopProbe, ...options.processes })
      baseUrl = server.baseUrl
      console.log(`bench:users: server ${server.pid} on ${baseUrl} (${describeProcesses(options.processes)}), storage ${storage}${options.cpuProf ? `, profiled every ${options.cpuProfUs} µs into ${profileDir}` : ''}`)
    }
    const serverPid = server?.pid ?? options.serverPid
    const db = new BetterSqlite3(dbPath, { readonly: true, fileMustExist: true })
    db.pragma('busy_timeout = 10000')
    const world = new World(db)
    const cookies = readPeople(paths.people).filter((p) => world.roomsOf(p.id).size > 0)
    // People join in a shuffled order, so every step holds a fair sample of the rooms.
    for (let i = cookies.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1))
      ;[cookies[i], cookies[j]] = [cookies[j]!, cookies[i]!]
    }
    const http = new HttpClient(baseUrl, 512)
    run = new Run(options, world, http, cookies)
    const meters = makeMeters(server?.pids ?? serverPid)
    const finished: StepStats[] = []
    const reports: StepReport[] = []
    let highest: number | null = null
    for (const people of options.steps) {
      run.stats = new StepStats(people, `warmup ${people}`)
      console.log(`bench:users: ${people} people: connecting…`)
      const growth = await run.grow(people)
      const connectSecs = growth.secs
      const opens = percentiles(growth.opened)
      console.log(`bench:users: ${people} people: ${growth.opened.length} sockets opened in ${round(connectSecs, 1)} s (open p50/p99/max ${opens.p50_ms} / ${opens.p99_ms} / ${opens.max_ms} ms, ${growth.notOpened} failed, ${growth.pending} still opening); warming up ${options.warmupSecs} s…`)
      await pause(options.warmupSecs * 1000)
      if (interrupt.signal.aborted) break
      const stats = new StepStats(run.people.length, `step ${people}`)
      const retriesBefore = http.retries
      run.stats = stats
      const probe = server?.probe ?? null
      await probe?.lap()
      meters.lap()
      await pause(options.stepSecs * 1000)
      stats.endedAt = performance.now()
      const lap = meters.lap()
      const loopDelay = (await probe?.lap()) ?? null
      run.stats = new StepStats(people, `drain ${people}`)
      await sleep(options.drainSecs * 1000)
      const report = stepReport(stats, lap, http.retries - retriesBefore, serverPid, loopDelay)
      report.connect_secs = round(connectSecs, 1)
      report.socket_open = { opened: growth.opened.length, not_opened: growth.notOpened, still_opening: growth.pending, open_ms: opens }
      finished.push(stats)
      reports.push(report)
      printStep(report)
      if (interrupt.signal.aborted) {
        notes.push(`interrupted during the ${people}-people step (its figures cover ${report.secs} s)`)
        break
      }
      if (report.served) highest = people
      else if (!options.keepGoing) {
        notes.push(`stopped after ${people} people: not served (${report.verdict.join('; ')}); --keep-going runs every step`)
        break
      }
    }
    run.stop()
    // Requests still in flight are answered (or time out) before the database is audited.
    const inFlightUntil = performance.now() + 35_000
    while (run.inFlight > 0 && performance.now() < inFlightUntil) await sleep(50)
    const auditFailures = finalChecks(db, world, finished, run.unacknowledgedPosts, notes)
    // Failures found by the final lookups change a step's verdict.
    finished.forEach((stats, i) => {
      const report = reports[i]!
      if (stats.failures.total !== report.failures) {
        report.failures = stats.failures.total
        report.failure_reasons = stats.failures.counts
        report.failure_examples = stats.failures.examples
        report.served = false
        report.verdict.push(`${stats.failures.total} failures`)
      }
    })
    highest = reports.filter((r) => r.served).reduce<number | null>((best, r) => (best === null || r.people > best ? r.people : best), null)
    const fixture = {
      people: db.prepare('SELECT COUNT(*) FROM users').pluck().get() as number,
      rooms: db.prepare('SELECT COUNT(*) FROM rooms').pluck().get() as number,
      messages: world.initialMaxId,
    }
    db.close()
    http.close()
    const generatorCoreBusy = reports.map((r) => r.generator.cpu_percent ?? 0)
    if (generatorCoreBusy.some((cpu) => cpu > 85)) notes.push('the generator used more than 85% of its core in a step: it may have limited that step')
    if (reports.some((r) => (r.machine.other_processes_cpu_percent ?? 0) > 20)) notes.push('other processes used more than 20% of a core during a step: the machine was shared, so those figures are pessimistic')
    const report: UsersReport = {
      benchmark: 'users', stamp, target: options.base ?? `${baseUrl} (started by this script)`,
      options: { ...options, out: undefined } as unknown as Omit<Options, 'out'>,
      machine: { cpus: cpus().length, node: process.version, pinned: { server: server ? '0' : null, generator: process.env[PINNED_ENV] === '1' ? '1' : null } },
      fixture, steps: reports, highest_served_step: highest,
      audit: { acknowledged: world.acknowledged.length, failures: auditFailures }, notes,
      server_profile: null,
    }
    await cleanup()
    // The server writes its profile as it exits.
    const profileLines: string[] = []
    if (options.cpuProf && existsSync(profileDir)) {
      const described = describeProfiles(profileDir, options.serverDir)
      report.server_profile = described.summaries
      profileLines.push(...described.lines)
      console.log(`\nbench:users: the server's profile (${profileDir}), the whole run (connecting, warmups and steps):`)
      for (const line of described.lines) console.log(line)
      const stalls = describeStalls(profileDir, options.serverDir)
      profileLines.push('', 'Inside the stalls:', ...stalls.lines)
      console.log(`\nbench:users: what the server did inside its stalls (the whole run):`)
      for (const line of stalls.lines) console.log(line)
    }
    const file = join(options.out, `users-${stamp}.json`)
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    const markdown = writeUsersReport(report, options.out, `users-${stamp}`)
    appendFileSync(markdown, ['## Server CPU budget per navigation (its CPU ledger)', '', ...reports.flatMap((r) => [`### ${r.people} people`, '', ...budgetLines(r.cpu_budget), ''])].join('\n') + '\n')
    if (profileLines.length > 0) appendFileSync(markdown, ['## Server CPU profile (the whole run)', '', '```', ...profileLines, '```', ''].join('\n'))
    console.log('\nbench:users: per step (server event-loop delay from the probe; stalls: 1 ms timer ticks more than 10 ms late)')
    console.log(`  ${'people'.padStart(6)}  ${'verdict'.padEnd(10)}  ${'nav p99 ms'.padStart(10)}  ${'server CPU'.padStart(10)}  ${'ms CPU/nav'.padStart(10)}  loop p50 / p99 / max ms   stalls > 10 ms (total ms, longest)`)
    for (const r of reports) {
      const d = r.server_loop_delay
      const loop = d ? `${d.p50_ms} / ${d.p99_ms} / ${d.max_ms}`.padEnd(23) + `  ${d.stalls_over_10ms} (${d.stalled_ms} ms, ${d.longest_stall_ms} ms)` : 'n/a'
      console.log(`  ${String(r.people).padStart(6)}  ${(r.served ? 'served' : 'NOT served').padEnd(10)}  ${String(r.navigations.all.p99_ms ?? '–').padStart(10)}  ${`${r.server.cpu_percent ?? '–'}%`.padStart(10)}  ${String(r.server_cpu_ms_per_navigation ?? '–').padStart(10)}  ${loop}`)
    }
    console.log(`\nbench:users: highest served step: ${highest ?? 'none'}; audit of ${world.acknowledged.length} acknowledged posts: ${auditFailures.length === 0 ? 'ok' : auditFailures.join('; ')}`)
    for (const note of notes) console.log(`  note: ${note}`)
    console.log(`  JSON: ${file}\n  report: ${markdown}`)
    process.exitCode = auditFailures.length === 0 ? 0 : 1
  } catch (error) {
    console.error(`bench:users: ${(error as Error).stack ?? error}`)
    await cleanup()
    process.exitCode = 1
  }
  // The report is written: whatever is still pending (sockets the server never answered, a
  // request that outlived its step) must not keep the generator running. Output is flushed first.
  exitSoon()
}

function exitSoon(): void {
  const code = () => (typeof process.exitCode === 'number' ? process.exitCode : 0)
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code())))
  setTimeout(() => process.exit(code()), 2000).unref()
}

function printStep(r: StepReport): void {
  const nav = (p: Percentiles) => `${p.p50_ms ?? '–'} / ${p.p95_ms ?? '–'} / ${p.p99_ms ?? '–'} ms (n ${p.n})`
  console.log(`\n  ${r.people} people, ${r.secs} s: ${r.served ? 'SERVED' : 'NOT SERVED: ' + r.verdict.join('; ')}`)
  for (const kind of [...NAV_KINDS, 'all'] as const) console.log(`    navigation ${kind.padEnd(6)} p50/p95/p99 ${nav(r.navigations[kind])}`)
  console.log(`    posts ${r.posts} (errors ${r.post_errors}), post p50/p99 ${r.post_latency.p50_ms ?? '–'} / ${r.post_latency.p99_ms ?? '–'} ms; room pages whose newest acknowledged post newer posts had pushed off ${r.acknowledged_pushed_off}`)
  console.log(`    delivery p50/p99 ${r.delivery.p50_ms ?? '–'} / ${r.delivery.p99_ms ?? '–'} ms, within 500 ms ${r.delivery.within_500ms_percent ?? '–'}% (${r.delivery.delivered}/${r.delivery.expected}, missed ${r.delivery.missed}, excused ${r.delivery.excused})`)
  console.log(`    failures ${r.failures}${r.failures ? ' ' + JSON.stringify(r.failure_reasons) : ''}; keep-alive retries ${r.keepalive_retries}`)
  console.log(`    server CPU ${r.server.cpu_percent ?? '–'}%, RSS ${r.server.memory?.rss_mb ?? '–'} MB; generator CPU ${r.generator.cpu_percent ?? '–'}%, loop lag p99 ${r.generator.loop_lag.p99_ms} ms; cores ${r.machine.core_busy_percent.join('/')}%`)
  console.log(`    server CPU per navigation ${r.server_cpu_ms_per_navigation ?? '–'} ms → one core would serve about ${r.people_per_server_core ?? '–'} people`)
  console.log(`    server event-loop delay ${describeLoopDelay(r.server_loop_delay)}${r.server_loop_delay ? `, longest ${r.server_loop_delay.longest_stall_ms} ms` : ''}`)
  const memory = r.server_loop_delay?.memory
  if (memory) console.log(`    server memory at the step's end: RSS ${memory.rss_mb} MB, V8 heap ${memory.heap_used_mb} of ${memory.heap_total_mb} MB (by space ${JSON.stringify(memory.heap_spaces_used_mb)}), external ${memory.external_mb} MB (array buffers ${memory.array_buffers_mb} MB); its own account ${JSON.stringify(memory.server)}`)
  const live = memory?.after_full_gc
  if (live) console.log(`    after a full collection: RSS ${live.rss_mb} MB, V8 heap ${live.heap_used_mb} MB, external ${live.external_mb} MB (array buffers ${live.array_buffers_mb} MB)`)
  console.log(`    Server-Timing ${JSON.stringify(r.server_timing)}`)
  const during = r.sockets_during_step
  if (r.socket_open) console.log(`    sockets: step's new ${r.socket_open.opened} opened (p50/p99/max ${r.socket_open.open_ms.p50_ms ?? '–'} / ${r.socket_open.open_ms.p99_ms ?? '–'} / ${r.socket_open.open_ms.max_ms ?? '–'} ms), ${r.socket_open.not_opened} failed, ${r.socket_open.still_opening} still opening after the connect phase; during the step ${during.opened} opened (p99 ${during.open_ms.p99_ms ?? '–'} ms), ${during.not_opened} failed`)
  console.log(`    server CPU budget per navigation (CPU ledger):`)
  for (const line of budgetLines(r.cpu_budget)) console.log(`      ${line}`)
  console.log(`    page hit rate by kind (%) ${JSON.stringify(r.page_hit_rate_by_kind)}; shell ${JSON.stringify(r.shell_hit_rate_by_kind)}`)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
