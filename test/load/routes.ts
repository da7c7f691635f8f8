// The harness's read-and-post profile (harness.md §2, profile read-and-post-v1): `npm run bench:routes`.
// Per route — room_show, messages_page, sidebar, search, post_message — a warmup, then --clients
// (16) closed-loop clients for --duration seconds on keep-alive connections with gzip. Contracts
// are prepared once from a response and independent SQL on the database, and every warmup and
// timed response is validated against them (test/support/harness-validator.ts, the harness's own
// rules). Every acknowledged post is audited in the database afterwards (§2.3). It reports req/s
// (valid responses only) and latency percentiles per route. With --mixed-write-rate R, one writer
// posts into HQ at most R times a second during each read route (the "mixed" profile).
// The generator must stay cheaper than the server: its requests go over plain keep-alive sockets
// with a small HTTP reader of its own (support/raw-http.ts; --node-http uses Node's http client
// instead), and a response whose status, headers that the check reads and body bytes equal one of
// the last 8 that passed under the same contract gets that verdict without being decoded again
// (harness-validator.ts's ValidResponses, as the harness's own cache). Every response is still
// checked; the report counts how many were parsed in full and how many matched a validated one,
// and gives the generator's CPU per request. On a server it starts, the event-loop delay probe
// (support/loop-probe.mjs) reports the server's loop delay per route.
//
//   npm run bench:routes                                 the harness-shaped dev seed, our server on core 0
//   npm run bench:routes -- --fixture tmp/bench/large --clients 1 --duration 5
//   npm run bench:routes -- --mixed-write-rate 10
//   npm run bench:routes -- --base http://127.0.0.1:3000 --db FILE --labels labels.json (--cookie C | --password P)
//
//   npm run bench:routes -- --routes room_show --cpu-prof    also profiles the server and names its top frames and their callers
//
// Other options: --warmup 2 (seconds, 4 clients), --routes a,b,c, --no-gzip, --tsx (server sources
// under tsx, not compiled as `npm start` does), --in-place (run on
// the fixture itself, not a copy), --no-pin, --server-dir DIR, --out DIR (tmp/bench),
// --cpu-prof-us 1000 (the server profile's sampling interval in µs), --gen-cpu-prof (profile the
// generator itself into tmp/bench/routes-generator-prof-<stamp> and name its top frames),
// --node-http (Node's http client for the load), --no-loop-probe (no probe in the server),
// --replay (the generator alone: the read routes answered by a bare server on core 0 replaying the
// bytes our server gave, so the figures are the generator's own ceiling; no posts), --replay-with
// http|fastify (the same bytes from Node's http server, or a bare Fastify app: what those layers
// cost before any of our code), --metrics (the
// server serves Prometheus metrics while measured, and is scraped once at the end).
// A fixture folder (seed:users, seed:large) supplies labels.json, people.tsv (person 1's cookie)
// and its database; without --fixture a temporary copy of `npm run seed`'s dataset is used.
// Saves tmp/bench/routes-<stamp>.json and .md with SVG plots.
import BetterSqlite3 from 'better-sqlite3'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RailsSigning } from '../../server/lib/rails/signing.ts'
import { dbTime } from '../../server/lib/time.ts'
import { Store } from '../../server/models/store.ts'
import {
  auditWrites, checkResponse, expectedWindows, postRequest, prepareContract, preparePostContract, ValidResponses, writeMark,
  type Acknowledgement, type Contract, type RouteKind, type SeedLabels, type WireResponse,
} from '../support/harness-validator.ts'
import { flattenLabels, seedDatabase } from './seed.ts'
import { fixturePaths, readPeople, ROOT, sessionCookie, sessionToken } from './support/fixture.ts'
import { describeProfiles, generatorProfile } from './support/cpu-profile.ts'
import { HttpClient, isFailure, type Answer, type Failure, type RequestSpec } from './support/http.ts'
import { describeLoopDelay, type LoopDelay } from './support/loop-delay.ts'
import { RawHttpClient } from './support/raw-http.ts'
import { REPLAY_LAYERS, startReplay, type Recorded, type Replay, type ReplayLayer } from './support/replay.ts'
import { processMemory, round } from './support/measure.ts'
import { writeRoutesReport, type RouteRow } from './support/report.ts'
import { copyStorage, cpuProfileFlags, describeProcesses, makeMeters, processOptionsOf, PROBE_WORKERS_OPTION, PROCESS_OPTIONS, reexecPinned, sharesGeneratorCore, sleep, stampNow, startServer, stopServer, type Lap, type ServerChild, type ServerExtras } from './support/server.ts'
import { choices, flag, number, path, readOptions, text, usageError } from './support/options.ts'
import { ServerTiming } from './support/server-timing.ts'
import { Failures, percentiles } from './support/stats.ts'

const SCRIPT = fileURLToPath(import.meta.url)
const PINNED_ENV = 'CAMPFIRE_BENCH_ROUTES_PINNED'
// --metrics: the scraper's token, made for this run.
export const METRICS_TOKEN = randomBytes(24).toString('hex')
const READ_ROUTES = ['room_show', 'messages_page', 'sidebar', 'search'] as const
type Route = (typeof READ_ROUTES)[number] | 'post_message'

interface Options {
  // Prometheus metrics on in the server (METRICS_TOKEN), scraped once at the end.
  metrics?: boolean
  clients: number
  duration: number
  warmup: number
  routes: Route[]
  gzip: boolean
  mixedWriteRate: number
  fixture: string | null
  base: string | null
  db: string | null
  labels: string | null
  cookie: string | null
  password: string | null
  inPlace: boolean
  serverDir: string
  pin: boolean
  processes: ServerExtras
  tsx: boolean
  out: string
  // bench:routes' own (other scripts that start a server through prepareTarget leave them out).
  cpuProf?: boolean
  cpuProfUs?: number
  genCpuProf?: boolean
  nodeHttp?: boolean
  loopProbe?: boolean
  replay?: ReplayLayer | null
}

const profileDirOf = (options: Options, stamp: string) => (options.cpuProf ? join(options.out, `routes-${stamp}-prof`) : null)

const OPTIONS = {
  clients: number('N', 'closed-loop clients per route', 16),
  duration: number('SECS', 'how long each route is measured', 8),
  warmup: number('SECS', 'the warmup of each route (4 clients)', 2),
  routes: choices('A,B,…', 'the routes, in order', [...READ_ROUTES, 'post_message'] as Route[]),
  'mixed-write-rate': number('R', 'one writer posts into HQ at most R times a second during each read route', 0),
  fixture: path('DIR', "a fixture folder (seed:users, seed:large); without it, a temporary copy of npm run seed's dataset"),
  base: text('URL', 'a server that is already up, instead of starting ours (needs --db, and --labels or --fixture)'),
  db: path('FILE', "with --base: that server's database, for the contracts and the write audit"),
  labels: path('FILE', "with --base: the labels.json of that server's data"),
  cookie: text('C', "with --base: person 1's cookie (else from --fixture's people.tsv, else a sign-in)"),
  password: text('P', "with --base: sign in as labels' emails.david with this password (else labels' passwords.all)"),
  'server-dir': path('DIR', "start another checkout's server", '.', 'this checkout'),
  out: path('DIR', 'where the report goes', 'tmp/bench'),
  'in-place': flag('run on the fixture itself, not a copy'),
  'no-gzip': flag('ask for uncompressed responses'),
  'no-pin': flag('do not pin the server and the generator to their cores'),
  tsx: flag("run the server's sources under tsx instead of compiling them as npm start does"),
  'cpu-prof': flag('also profile the server (node --cpu-prof) and name its top frames and their callers'),
  'cpu-prof-us': number('US', "the server profile's sampling interval in µs", 1000),
  'gen-cpu-prof': flag('profile the generator itself into tmp/bench/routes-generator-prof-<stamp> and name its top frames'),
  'node-http': flag("send the load through Node's http client instead of the generator's own keep-alive sockets"),
  'no-loop-probe': flag("do not preload the event-loop delay probe into the server (no loop delay in the report)"),
  replay: flag("measure the generator alone: the read routes answered by a bare server replaying our server's bytes (no posts); the same as --replay-with raw"),
  'replay-with': text('LAYER', `the replay server's layer: raw (net sockets, the generator's ceiling), http (Node's http server) or fastify (a bare Fastify app, one route per path); implies --replay`),
  metrics: flag('serve Prometheus metrics while measuring (METRICS_TOKEN), and scrape them once at the end: run once with and once without for their cost'),
  ...PROCESS_OPTIONS,
  ...PROBE_WORKERS_OPTION,
}

const SUMMARY = `The harness's read-and-post profile: per route a warmup, then --clients closed-loop clients for
--duration seconds, every response validated against the route's contract and every acknowledged
post audited. Saves tmp/bench/routes-<stamp>.json and .md. See docs/benchmarks.md, "The routes profile".`

function parseOptions(argv: string[]): Options {
  const v = readOptions({ name: 'bench:routes', summary: SUMMARY, options: OPTIONS }, argv)
  if (v.base !== null && (v.db === null || (v.labels === null && v.fixture === null))) usageError('bench:routes', '--base needs --db FILE and --labels FILE (or --fixture DIR)')
  if (v.base !== null && v.cpuProf) usageError('bench:routes', '--cpu-prof only works on the server this script starts')
  if (v.base !== null && v.metrics) usageError('bench:routes', '--metrics only works on the server this script starts')
  if (v.replayWith !== null && !(REPLAY_LAYERS as readonly string[]).includes(v.replayWith)) usageError('bench:routes', `--replay-with takes ${REPLAY_LAYERS.join(', ')}, not '${v.replayWith}'`)
  const replay = (v.replayWith as ReplayLayer | null) ?? (v.replay ? 'raw' : null)
  return {
    clients: Math.max(1, Math.floor(v.clients)), duration: v.duration, warmup: v.warmup, routes: v.routes, gzip: !v.noGzip, mixedWriteRate: v.mixedWriteRate,
    fixture: v.fixture, base: v.base?.replace(/\/$/, '') ?? null, db: v.db, labels: v.labels, cookie: v.cookie, password: v.password,
    inPlace: v.inPlace, serverDir: v.serverDir, pin: !v.noPin && !sharesGeneratorCore(v.serverCores), processes: processOptionsOf(v), tsx: v.tsx, out: v.out,
    cpuProf: v.cpuProf, cpuProfUs: v.cpuProfUs, genCpuProf: v.genCpuProf, nodeHttp: v.nodeHttp, loopProbe: !v.noLoopProbe, replay, metrics: v.metrics,
  }
}

// ---------------------------------------------------------------------------------------------
// Target: labels, the database, a cookie for person 1 ("david")

interface Target {
  baseUrl: string
  dbPath: string
  labels: Record<string, string | number>
  cookie: string
  server: ServerChild | null
  storage: string | null
}

function seededStorage(): { storage: string; labels: Record<string, string | number>; cookie: string } {
  const storage = mkdtempSync(join(tmpdir(), 'campfire-bench-routes-'))
  const secret = randomBytes(64).toString('hex')
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: join(ROOT, 'migrations') })
  try {
    const labels = seedDatabase(store, { secretKeyBase: secret, cost: 4 })
    const token = sessionToken(labels.users.david)
    const now = dbTime()
    store.writeNow((m) => m.db.prepare("INSERT INTO sessions (user_id, token, ip_address, user_agent, last_active_at, created_at, updated_at) VALUES (?, ?, '127.0.0.1', 'campfire-ts benchmark', ?, ?, ?)").run(labels.users.david, token, now, now, now))
    writeFileSync(join(storage, 'secret_key_base'), secret + '\n', { mode: 0o600 })
    return { storage, labels: flattenLabels(labels), cookie: sessionCookie(new RailsSigning(secret), token) }
  } finally {
    store.close()
  }
}

// The harness's login (harness.md §1.5): GET /session/new, then POST /session; keeps every cookie.
async function login(http: HttpClient, email: string, password: string): Promise<string> {
  const jar = new Map<string, string>()
  const keep = (headers: Record<string, unknown>) => {
    for (const line of (headers['set-cookie'] as string[] | undefined) ?? []) {
      const [pair] = line.split(';')
      const at = pair!.indexOf('=')
      jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim())
    }
  }
  const header = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  const page = await http.request({ path: '/session/new', headers: {} })
  if (!isFailure(page)) keep(page.headers)
  const body = `email_address=${encodeURIComponent(email)}&password=${encodeURIComponent(password)}`
  const answer = await http.request({ method: 'POST', path: '/session', body, headers: { cookie: header(), 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' } })
  if (isFailure(answer) || answer.status !== 302) throw new Error(`login failed: ${isFailure(answer) ? answer.error : answer.status}`)
  keep(answer.headers)
  if (!jar.has('session_token')) throw new Error('login failed: no session_token cookie')
  return header()
}

async function prepareTarget(options: Options, stamp: string, http: (base: string) => HttpClient): Promise<Target> {
  if (options.base !== null) {
    const labels = JSON.parse(readFileSync(options.labels ?? fixturePaths(options.fixture!).labels, 'utf8')) as Record<string, string | number>
    let cookie = options.cookie
    if (cookie === null && options.fixture !== null) cookie = readPeople(fixturePaths(options.fixture).people).find((p) => p.email === labels['emails.david'])?.cookie ?? null
    if (cookie === null) cookie = await login(http(options.base), String(labels['emails.david']), options.password ?? String(labels['passwords.all'] ?? ''))
    return { baseUrl: options.base, dbPath: options.db!, labels, cookie, server: null, storage: null }
  }
  let storage: string
  let labels: Record<string, string | number>
  let cookie: string
  if (options.fixture === null) {
    ;({ storage, labels, cookie } = seededStorage())
  } else {
    const paths = fixturePaths(options.fixture)
    labels = JSON.parse(readFileSync(paths.labels, 'utf8'))
    cookie = readPeople(paths.people).find((p) => p.email === labels['emails.david'])!.cookie
    console.log(options.inPlace ? `bench:routes: running on ${options.fixture} itself` : `bench:routes: copying ${options.fixture}…`)
    storage = options.inPlace ? options.fixture : copyStorage(options.fixture)
  }
  const profileDir = profileDirOf(options, stamp)
  const profile = profileDir ? cpuProfileFlags(profileDir, options.cpuProfUs ?? 1000) : []
  const server = await startServer(options.serverDir, storage, join(options.out, `routes-${stamp}-server.log`), options.metrics ? { METRICS_TOKEN } : {}, options.tsx, profile, { probe: options.loopProbe ?? false, ...options.processes })
  console.log(`bench:routes: server ${server.pid} on ${server.baseUrl} (${describeProcesses(options.processes)})${options.cpuProf ? `, profiled every ${options.cpuProfUs} µs` : ''}`)
  return { baseUrl: server.baseUrl, dbPath: join(storage, 'db', 'production.sqlite3'), labels, cookie, server, storage: options.fixture === null || !options.inPlace ? storage : null }
}

// ---------------------------------------------------------------------------------------------
// Contracts

const PATHS: Record<Route, (l: Record<string, string | number>) => string> = {
  room_show: (l) => `/rooms/${l['rooms.watercooler']}`,
  messages_page: (l) => `/rooms/${l['rooms.watercooler']}/messages?before=${l['messages.busy_060']}`,
  sidebar: () => '/users/me/sidebar',
  search: () => '/searches?q=coffee',
  post_message: (l) => `/rooms/${l['rooms.hq']}/messages`,
}

function wireOf(answer: { status: number; headers: Record<string, unknown>; wire: Buffer }): WireResponse {
  return { status: answer.status, headers: answer.headers as WireResponse['headers'], wire: answer.wire }
}

async function prepareContracts(http: HttpClient, target: Target, db: BetterSqlite3.Database, routes: Route[]): Promise<Map<Route, Contract>> {
  const seed: SeedLabels = { watercooler: Number(target.labels['rooms.watercooler']), hq: Number(target.labels['rooms.hq']), busy060: Number(target.labels['messages.busy_060']), davidEmail: String(target.labels['emails.david']) }
  const started = performance.now()
  const expected = expectedWindows(db, seed)
  console.log(`bench:routes: expected windows from the database in ${Math.round(performance.now() - started)} ms`)
  const contracts = new Map<Route, Contract>()
  const problems: string[] = []
  for (const route of routes) {
    if (route === 'post_message') {
      const page = await http.request({ path: `/rooms/${seed.hq}`, headers: { cookie: target.cookie, 'accept-encoding': 'identity' } })
      if (isFailure(page)) throw new Error(`write room: ${page.error}`)
      const prepared = preparePostContract(wireOf(page), seed.hq)
      if (prepared.contract) contracts.set(route, prepared.contract)
      problems.push(...prepared.failures)
      continue
    }
    const answer = await http.request({ path: PATHS[route](target.labels), headers: { cookie: target.cookie, 'accept-encoding': 'gzip' }, decode: false })
    if (isFailure(answer)) throw new Error(`${route}: ${answer.error}`)
    const prepared = prepareContract(route as Exclude<RouteKind, 'post_message'>, wireOf(answer), db, expected, seed.watercooler)
    if (prepared.contract) contracts.set(route, prepared.contract)
    problems.push(...prepared.failures)
  }
  if (problems.length > 0) throw new Error(`preflight failed:\n  ${problems.join('\n  ')}`)
  return contracts
}

// ---------------------------------------------------------------------------------------------
// Load

interface Sample {
  latencies: number[]
  ok: number
  errors: number
  invalid: Failures
  errorReasons: Failures
  timing: ServerTiming
  // Responses checked in full (decoded and parsed), and ones equal to a validated response.
  parsed: number
  matched: number
}

const newSample = (): Sample => ({ latencies: [], ok: 0, errors: 0, invalid: new Failures(), errorReasons: new Failures(), timing: new ServerTiming(), parsed: 0, matched: 0 })

// As the harness: bytes equal to one of the last 8 responses validated under the same contract
// are not parsed again. A run's contracts do not change: the mixed profile's writer posts only
// into HQ, with "bench write" text, which is in no read route's expected window, search or room
// list. A write that could change an expectation needs a new Contract (which starts with nothing
// validated) or ValidResponses.forget.
const validated = new ValidResponses(8)

// Either client: support/raw-http.ts's, or Node's (support/http.ts).
export interface Requester {
  request(spec: RequestSpec): Promise<Answer | Failure>
}

// One request of the route, validated; a post's acknowledgement is recorded.
async function hit(http: Requester, route: Route, contract: Contract, target: Target, gzip: boolean, sample: Sample, acks: Acknowledgement[]): Promise<void> {
  let answer
  let token: string | undefined
  if (route === 'post_message') {
    const request = postRequest(Number(target.labels['rooms.hq']), target.cookie, gzip)
    token = request.token
    answer = await http.request({ method: 'POST', path: request.url, headers: request.headers, body: request.payload, decode: false })
  } else {
    answer = await http.request({ path: PATHS[route](target.labels), headers: { cookie: target.cookie, 'accept-encoding': gzip ? 'gzip' : 'identity' }, decode: false })
  }
  if (isFailure(answer)) {
    sample.errors++
    sample.errorReasons.add(`transport error: ${answer.error}`)
    return
  }
  sample.timing.add(answer.headers['server-timing'])
  const wire = wireOf(answer)
  if (validated.matches(contract, wire)) {
    sample.matched++
    sample.ok++
    sample.latencies.push(answer.ms)
    return
  }
  sample.parsed++
  const verdict = checkResponse(contract, wire, token)
  if (verdict.failures.length > 0) {
    for (const failure of verdict.failures) sample.invalid.add(failure)
    return
  }
  if (route === 'post_message') acks.push({ id: Number(verdict.messageId), token })
  else validated.remember(contract, wire)
  sample.ok++
  sample.latencies.push(answer.ms)
}

async function closedLoop(clients: number, secs: number, once: () => Promise<void>): Promise<number> {
  const started = performance.now()
  const end = started + secs * 1000
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < end) await once()
  }))
  return (performance.now() - started) / 1000
}

// The mixed profile's writer: at most `rate` posts a second, the next sent after the previous answer.
async function writer(rate: number, secs: number, once: () => Promise<void>): Promise<void> {
  const interval = Math.ceil(1000 / rate)
  const end = performance.now() + secs * 1000
  while (performance.now() < end) {
    const started = performance.now()
    await once()
    await sleep(Math.max(0, interval - (performance.now() - started)))
  }
}

interface RouteResult extends RouteRow {
  warmup: { ok: number; errors: number; invalid: number; reasons: Record<string, number> }
  // How the timed responses were checked: decoded and parsed in full, or equal in bytes to one that was.
  validation: { parsed: number; matched_validated: number }
  generator_cpu_us_per_request: number | null
  server_loop_delay: LoopDelay | null
  server_timing: ReturnType<ServerTiming['summary']>
  server_cpu_percent: number | null
  server_cpu_ms_per_request: number | null
  // The redis-server's part of it (null without one).
  redis_cpu_ms_per_request: number | null
  rps_per_server_core: number | null
  generator_cpu_percent: number | null
  generator_loop_lag: Lap['generator_loop_lag']
  other_processes_cpu_percent: number | null
  writer?: { ok: number; errors: number; invalid: number; reasons: Record<string, number> }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2))
  const generator = generatorProfile('bench:routes', 'routes', options.out, options.genCpuProf === true, ROOT, stampNow())
  if (reexecPinned(SCRIPT, ROOT, PINNED_ENV, options.pin, generator.dir, generator.print)) return
  const stamp = stampNow()
  mkdirSync(options.out, { recursive: true })
  let target: Target | null = null
  const clients: { close(): void }[] = []
  const client = (base: string, sockets = 4) => {
    const c = new HttpClient(base, sockets)
    clients.push(c)
    return c
  }
  // The load's client: the generator's own, unless --node-http.
  const loadClient = (base: string, sockets: number): Requester => {
    if (options.nodeHttp) return client(base, sockets)
    const c = new RawHttpClient(base, sockets)
    clients.push(c)
    return c
  }
  let replay: Replay | null = null
  const cleanup = async () => {
    for (const c of clients) c.close()
    await replay?.stop()
    replay = null
    if (target?.server) await stopServer(target.server)
    if (target?.storage) rmSync(target.storage, { recursive: true, force: true })
    target = null
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanup().finally(() => process.exit(130)))
  try {
    target = await prepareTarget(options, stamp, (base) => client(base))
    const db = new BetterSqlite3(target.dbPath, { readonly: true, fileMustExist: true })
    db.pragma('busy_timeout = 10000')
    const hq = Number(target.labels['rooms.hq'])
    const mark = writeMark(db, hq)
    const contracts = await prepareContracts(client(target.baseUrl), target, db, options.routes)
    // --replay: the load goes to a bare server answering the bytes ours just gave, and posts are left out.
    let loadBase = target.baseUrl
    let probe = target.server?.probe ?? null
    let routes = options.routes
    if (options.replay) {
      const entries: Recorded[] = []
      const recorder = client(target.baseUrl)
      for (const route of routes.filter((r) => r !== 'post_message')) {
        const answer = await recorder.request({ path: PATHS[route](target.labels), headers: { cookie: target.cookie, 'accept-encoding': options.gzip ? 'gzip' : 'identity' }, decode: false })
        if (isFailure(answer)) throw new Error(`${route}: ${answer.error}`)
        entries.push({ path: PATHS[route](target.labels), answer })
      }
      replay = await startReplay(entries, options.replay)
      loadBase = replay.baseUrl
      probe = null
      routes = routes.filter((r) => r !== 'post_message')
      if (target.server) await stopServer(target.server)
      console.log(`bench:routes: --replay-with ${options.replay}: ${routes.join(', ')} answered by a bare replay server ${replay.pid} (${options.replay}) on ${loadBase} (core 0); our server stopped, posts left out`)
    }
    const meters = makeMeters(replay ? replay.pid : (target.server?.pids ?? null), replay ? null : (target.server?.redis?.pid ?? null))
    const acks: Acknowledgement[] = []
    const results: RouteResult[] = []
    for (const route of routes) {
      const contract = contracts.get(route)!
      const http = loadClient(loadBase, options.clients + 2)
      const warm = newSample()
      await closedLoop(Math.min(4, options.clients), options.warmup, () => hit(http, route, contract, target!, options.gzip, warm, acks))
      const sample = newSample()
      const writerSample = newSample()
      const writing = options.mixedWriteRate > 0 && route !== 'post_message' && contracts.has('post_message') && !options.replay
      meters.lap()
      const postContract = contracts.get('post_message')
      const writerHttp = writing ? loadClient(target.baseUrl, 2) : null
      await probe?.lap()
      const [secs] = await Promise.all([
        closedLoop(options.clients, options.duration, () => hit(http, route, contract, target!, options.gzip, sample, acks)),
        writing ? writer(options.mixedWriteRate, options.duration, () => hit(writerHttp!, 'post_message', postContract!, target!, options.gzip, writerSample, acks)) : Promise.resolve(),
      ])
      const lap = meters.lap()
      const loopDelay = (await probe?.lap()) ?? null
      const result: RouteResult = {
        route, clients: options.clients, rps: round(sample.ok / secs, 1), latency: percentiles(sample.latencies), ok: sample.ok, errors: sample.errors, invalid: sample.invalid.total,
        reasons: { ...sample.invalid.counts, ...sample.errorReasons.counts },
        warmup: { ok: warm.ok, errors: warm.errors, invalid: warm.invalid.total, reasons: { ...warm.invalid.counts, ...warm.errorReasons.counts } },
        validation: { parsed: sample.parsed, matched_validated: sample.matched },
        // Everything the generator did in the timed phase (the writer's posts too), per valid read.
        generator_cpu_us_per_request: lap.generator_cpu_percent === null || sample.ok === 0 ? null : round((lap.generator_cpu_percent / 100) * secs * 1e6 / (sample.ok + writerSample.ok), 1),
        server_loop_delay: loopDelay,
        server_cpu_ms_per_request: lap.server_cpu_percent === null || sample.ok === 0 ? null : round((lap.server_cpu_percent / 100) * secs * 1000 / sample.ok, 3),
        redis_cpu_ms_per_request: lap.redis_cpu_percent === null || sample.ok === 0 ? null : round((lap.redis_cpu_percent / 100) * secs * 1000 / sample.ok, 3),
        rps_per_server_core: lap.server_cpu_percent ? Math.round((sample.ok / secs) * 100 / lap.server_cpu_percent) : null,
        server_timing: sample.timing.summary(), server_cpu_percent: lap.server_cpu_percent, generator_cpu_percent: lap.generator_cpu_percent,
        generator_loop_lag: lap.generator_loop_lag, other_processes_cpu_percent: lap.other_processes_cpu_percent,
        ...(writing ? { writer: { ok: writerSample.ok, errors: writerSample.errors, invalid: writerSample.invalid.total, reasons: { ...writerSample.invalid.counts, ...writerSample.errorReasons.counts } } } : {}),
      }
      results.push(result)
      const l = result.latency
      console.log(`  ${route.padEnd(14)} ${String(result.rps).padStart(9)} req/s  p50 ${l.p50_ms} / p95 ${l.p95_ms} / p99 ${l.p99_ms} ms  ok ${result.ok} errors ${result.errors} invalid ${result.invalid}${result.invalid + result.errors ? ' ' + JSON.stringify(result.reasons) : ''}  server ${lap.server_cpu_percent ?? '–'}% (${result.server_cpu_ms_per_request ?? '–'} ms CPU/request${result.redis_cpu_ms_per_request === null ? '' : ` of which redis-server ${result.redis_cpu_ms_per_request} ms`}, ≈${result.rps_per_server_core ?? '–'} req/s per core) generator ${lap.generator_cpu_percent}% (${result.generator_cpu_us_per_request ?? '–'} µs/request) cores ${lap.core_busy_percent.join('/')}%${result.writer ? `  writer ok ${result.writer.ok} invalid ${result.writer.invalid}` : ''}`)
      console.log(`  ${''.padEnd(14)} checked: ${sample.parsed} parsed in full, ${sample.matched} matched a validated response; server loop delay ${describeLoopDelay(loopDelay)}`)
    }
    console.log(`bench:routes: auditing ${acks.length} acknowledged posts…`)
    const audit = acks.length > 0 || routes.includes('post_message') ? auditWrites(db, { roomId: hq, ...mark, acknowledged: acks }) : []
    const fixtureSize = { messages: db.prepare('SELECT COUNT(*) FROM messages').pluck().get() as number, users: db.prepare('SELECT COUNT(*) FROM users').pluck().get() as number }
    db.close()
    const failed = results.some((r) => r.errors + r.invalid + r.warmup.errors + r.warmup.invalid + (r.writer ? r.writer.errors + r.writer.invalid : 0) > 0) || audit.length > 0
    const report = {
      benchmark: 'routes', profile: options.mixedWriteRate > 0 ? 'mixed-read-write-v1' : 'read-and-post-v1', validation: 'route-contract-v1', stamp,
      target: options.base ?? `${target.baseUrl} (started by this script)`, fixture: options.fixture ?? 'npm run seed dataset (harness-shaped)', fixture_size: fixtureSize,
      options: { ...options, out: undefined, cookie: options.cookie ? '(given)' : null, password: options.password ? '(given)' : null },
      machine: { cpus: cpus().length, node: process.version, pinned: { server: target.server ? '0' : null, generator: process.env[PINNED_ENV] === '1' ? '1' : null } },
      http_client: options.nodeHttp ? 'node:http' : 'raw-http (support/raw-http.ts)',
      routes: results, audit: { acknowledged: acks.length, failures: audit }, passed: !failed,
      server_memory_end: target.server ? processMemory(target.server.pid) : null,
      server_profile: null as ReturnType<typeof describeProfiles>['summaries'] | null,
      metrics: options.metrics ? await scrapeMetrics(target.baseUrl) : null,
    }
    if (report.metrics) console.log(`bench:routes: metrics were on: the scrape (${report.metrics.bytes} bytes) counted ${report.metrics.requests} requests`)
    await cleanup()
    // The server writes its profile as it exits.
    const profileDir = profileDirOf(options, stamp)
    const profileLines: string[] = []
    if (profileDir && existsSync(profileDir)) {
      const described = describeProfiles(profileDir, options.serverDir)
      report.server_profile = described.summaries
      profileLines.push(...described.lines)
      console.log(`bench:routes: the server's profile (${profileDir}), every route and warmup together:`)
      for (const line of described.lines) console.log(line)
    }
    const name = `routes-${stamp}`
    const file = join(options.out, `${name}.json`)
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    const title = `Routes profile (${report.profile}${options.replay ? `, replayed on ${options.replay === 'raw' ? 'raw sockets: the generator alone' : options.replay}` : ''}), ${options.clients} client${options.clients === 1 ? '' : 's'}, ${options.gzip ? 'gzip' : 'identity'} — ${stamp}`
    const extra = [
      `Fixture: ${report.fixture} (${fixtureSize.messages.toLocaleString('en-US')} messages, ${fixtureSize.users.toLocaleString('en-US')} users).`,
      `Write audit: ${acks.length} acknowledged posts, ${audit.length === 0 ? 'ok' : audit.join('; ')}.`,
      `Validation: every warmup and timed response checked (route-contract-v1); ${report.passed ? 'all passed' : 'FAILURES above'}. "Parsed" responses were decoded and checked in full; "matched" ones were equal in status, checked headers and body bytes to one that had passed under the same contract (the harness's cache of valid responses). HTTP client: ${report.http_client}.`,
      ...(profileLines.length ? ['', '## Server CPU profile', '', '```', ...profileLines, '```'] : []),
    ]
    const markdown = writeRoutesReport(title, results, extra, options.out, name)
    console.log(`bench:routes: ${report.passed ? 'passed' : 'FAILED'}; audit ${audit.length === 0 ? 'ok' : audit.join('; ')}\n  JSON: ${file}\n  report: ${markdown}`)
    process.exitCode = report.passed ? 0 : 1
  } catch (error) {
    console.error(`bench:routes: ${(error as Error).stack ?? error}`)
    await cleanup()
    process.exitCode = 1
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()

export { hit, newSample, prepareContracts, prepareTarget, type Options as RouteOptions, type Target }

// --metrics: one scrape of the server's /metrics, and the requests it counted (every route's _count).
export async function scrapeMetrics(baseUrl: string): Promise<{ bytes: number; requests: number }> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  const text = await response.text()
  if (response.status !== 200) throw new Error(`--metrics: GET /metrics answered ${response.status}: ${text.slice(0, 200)}`)
  let requests = 0
  for (const match of text.matchAll(/^campfire_http_request_duration_seconds_count\{[^}]*\} (\S+)$/gm)) requests += Number(match[1])
  return { bytes: Buffer.byteLength(text), requests }
}
