// /up and a room page under slow clients: `npm run bench:slow-clients`. One server (started as
// `npm start` runs it, pinned to core 0; this script on core 1), three phases side by side:
// `none` (nothing else connected), `crowd` (--idle keep-alive connections that were answered
// once and sit idle, plus --slowloris clients sending their headers a byte a second, each
// replaced as soon as the server closes it), and `none` again. In each phase, --rate requests a
// second (half /up, half David's HQ room page, each on a keep-alive connection, latency from
// when it was due) for --seconds. It checks every slowloris connection was answered 408 and
// closed by the headers timeout, and every idle one was still held at the end. Both processes'
// open-file limits are raised with `ulimit -n` (to 65536, or the hard limit when that is lower;
// the report says what each got). Saves tmp/bench/slow-clients-<stamp>.json.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Store } from '../../server/models/store.ts'
import { loadFixtures, rooms } from '../fixtures.ts'
import { ROOT } from './support/fixture.ts'
import { signIn } from './support/hq-posts.ts'
import { isFailure } from './support/http.ts'
import { processMemory, round } from './support/measure.ts'
import { flag, number, path, readOptions } from './support/options.ts'
import { RawHttpClient } from './support/raw-http.ts'
import { makeMeters, reexecPinned, sleep, stampNow, startServer, stopServer, type Lap } from './support/server.ts'
import { IdleCrowd, Slowloris, type SlowlorisReport } from './support/slow-crowd.ts'
import { percentiles, type Percentiles } from './support/stats.ts'

const SCRIPT = fileURLToPath(import.meta.url)

const o = readOptions({
  name: 'bench:slow-clients',
  summary: 'p99 of /up and a room page with idle keep-alive connections and slowloris clients, against none, in one run.\nSaves tmp/bench/slow-clients-<stamp>.json.',
  options: {
    idle: number('N', 'idle keep-alive connections in the crowd phase', 10_000, { integer: true, min: 0 }),
    slowloris: number('N', 'clients sending their headers a byte a second in the crowd phase', 200, { integer: true, min: 0 }),
    rate: number('N', 'measured requests a second, half /up and half the room page', 100, { min: 1 }),
    seconds: number('S', 'measured seconds per phase', 20, { min: 1 }),
    rounds: number('N', 'crowd phases, each between two quiet ones (none, crowd, none, crowd, none, …)', 1, { integer: true, min: 1 }),
    'headers-timeout': number('S', "the server's HTTP_HEADERS_TIMEOUT, which the slowloris clients must be closed by", 10, { integer: true, min: 1 }),
    'keep-alive-timeout': number('S', "the server's HTTP_KEEP_ALIVE_TIMEOUT, long enough to hold the idle crowd through its phase (the default 20 would close them mid-phase)", 120, { integer: true, min: 1 }),
    out: path('DIR', 'where the report goes', 'tmp/bench'),
    'no-pin': flag('do not pin the server and this script to their cores'),
    tsx: flag('run the server from its TypeScript sources under tsx instead of the build'),
  },
})

interface IdleRound {
  ms: number
  opened: number
  failed: number
  closed_by_server: number
}

interface Phase {
  phase: string
  up: Percentiles
  room: Percentiles
  failures: number
  failure_examples: string[]
  idle_held_at_start: number
  idle_held_at_end: number
  slowloris_open_at_end: number
  server_rss_mb: number | null
  meters: Lap
}

function openFilesLimit(pid: number | 'self'): number | null {
  try {
    const line = readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
    return line ? Number(line.split(/\s{2,}/)[1]) : null
  } catch {
    return null
  }
}

async function measure(base: string, cookie: string, phase: string, crowd: { idle: IdleCrowd | null; slowloris: Slowloris | null }, meters: ReturnType<typeof makeMeters>, serverPid: number): Promise<Phase> {
  const client = new RawHttpClient(base, 64)
  const times = { up: [] as number[], room: [] as number[] }
  const failures: string[] = []
  const heldAtStart = crowd.idle?.held ?? 0
  const specs = {
    up: { path: '/up', headers: {} },
    room: { path: `/rooms/${rooms.hq.id}`, headers: { cookie, 'accept-encoding': 'gzip', accept: 'text/html' } },
  }
  const interval = 1000 / o.rate
  const started = performance.now()
  const inFlight: Promise<void>[] = []
  meters.lap()
  for (let i = 0; performance.now() - started < o.seconds * 1000; i++) {
    const due = started + i * interval
    await sleep(Math.max(0, due - performance.now()))
    const route = i % 2 === 0 ? 'up' : 'room'
    inFlight.push(client.request({ ...specs[route], timeoutMs: 30_000 }).then((answer) => {
      const ms = performance.now() - due
      if (isFailure(answer)) failures.push(`${route}: ${answer.error}`)
      else if (answer.status !== 200) failures.push(`${route}: status ${answer.status}`)
      else times[route].push(ms)
    }))
  }
  await Promise.all(inFlight)
  const lap = meters.lap()
  client.close()
  return {
    phase, up: percentiles(times.up), room: percentiles(times.room), failures: failures.length, failure_examples: failures.slice(0, 5),
    idle_held_at_start: heldAtStart, idle_held_at_end: crowd.idle?.held ?? 0, slowloris_open_at_end: crowd.slowloris?.open ?? 0,
    server_rss_mb: processMemory(serverPid)?.rss_mb ?? null, meters: lap,
  }
}

function seed(storage: string): void {
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: join(ROOT, 'migrations') })
  try {
    store.writeNow((m) => loadFixtures(m.db))
  } finally {
    store.close()
  }
}

async function main(): Promise<void> {
  if (reexecPinned(SCRIPT, ROOT, 'CAMPFIRE_BENCH_SLOW_CLIENTS_PINNED', !o.noPin)) return
  const storage = mkdtempSync(join(tmpdir(), 'campfire-bench-slow-clients-'))
  mkdirSync(o.out, { recursive: true })
  const stamp = stampNow()
  seed(storage)
  const env = { SECRET_KEY_BASE: 'c'.repeat(128), HTTP_HEADERS_TIMEOUT: String(o.headersTimeout), HTTP_KEEP_ALIVE_TIMEOUT: String(o.keepAliveTimeout), WEB_CONCURRENCY: '1' }
  const server = await startServer(ROOT, storage, join(o.out, `slow-clients-${stamp}.log`), env, o.tsx)
  const limits = { server_open_files: openFilesLimit(server.pid), generator_open_files: openFilesLimit('self') }
  const needed = o.idle + o.slowloris + 200
  for (const [who, limit] of Object.entries(limits)) {
    if (limit !== null && limit < needed) console.warn(`bench:slow-clients: ${who} is capped at ${limit} open files, fewer than the ${needed} the crowd needs: the machine's hard limit (ulimit -Hn) caps it`)
  }
  const url = new URL(server.baseUrl)
  const host = url.hostname
  const port = Number(url.port)
  const phases: Phase[] = []
  const slowReports: SlowlorisReport[] = []
  const idleRounds: IdleRound[] = []
  try {
    const cookie = await signIn(server.baseUrl)
    const meters = makeMeters(server.pids)
    await measure(server.baseUrl, cookie, 'warm-up', { idle: null, slowloris: null }, meters, server.pid)
    phases.push(await measure(server.baseUrl, cookie, 'none', { idle: null, slowloris: null }, meters, server.pid))
    for (let round = 1; round <= o.rounds; round++) {
      const slowloris = new Slowloris(host, port, o.slowloris)
      slowloris.start()
      const idle = new IdleCrowd(host, port)
      const opening = performance.now()
      await idle.open(o.idle)
      const opened = { ms: Math.round(performance.now() - opening), opened: idle.opened, failed: idle.failed }
      console.log(`bench:slow-clients: ${idle.held} idle connections open in ${opened.ms} ms (${idle.failed} failed), ${slowloris.open} slowloris clients`)
      await sleep(2000)
      phases.push(await measure(server.baseUrl, cookie, 'crowd', { idle, slowloris }, meters, server.pid))
      slowReports.push(slowloris.report(o.headersTimeout * 1000))
      idleRounds.push({ ...opened, closed_by_server: idle.closedByServer })
      slowloris.stop()
      idle.close()
      await sleep(2000)
      phases.push(await measure(server.baseUrl, cookie, 'none', { idle: null, slowloris: null }, meters, server.pid))
    }
  } finally {
    await stopServer(server)
    rmSync(storage, { recursive: true, force: true })
  }
  report(phases, slowReports, idleRounds, limits, stamp)
}

function report(phases: Phase[], slowloris: SlowlorisReport[], idle: IdleRound[], limits: Record<string, number | null>, stamp: string): void {
  const cell = (v: number | null, width = 7) => String(v ?? '–').padStart(width)
  console.log(`\nbench:slow-clients — ${o.rate} requests/s for ${o.seconds} s per phase; crowd: ${o.idle} idle keep-alive + ${o.slowloris} slowloris; times in ms from when each request was due`)
  console.log(`open-file limits: server ${limits.server_open_files}, generator ${limits.generator_open_files}`)
  console.log('phase      /up p50     p99     max | room p50     p99     max | fails | idle held start→end | server RSS MB | server CPU % | other CPU %')
  for (const p of phases) {
    console.log(`${p.phase.padEnd(8)} ${cell(p.up.p50_ms, 8)} ${cell(p.up.p99_ms)} ${cell(p.up.max_ms)} | ${cell(p.room.p50_ms, 8)} ${cell(p.room.p99_ms)} ${cell(p.room.max_ms)} | ${cell(p.failures, 5)} | ${cell(p.idle_held_at_start, 9)} → ${cell(p.idle_held_at_end, 6)} | ${cell(p.server_rss_mb, 13)} | ${cell(p.meters.server_cpu_percent, 12)} | ${cell(p.meters.other_processes_cpu_percent, 10)}`)
  }
  // Each crowd phase's p99 against the quiet phases on either side of it (their mean).
  const ratio = (crowd: number | null, before: number | null, after: number | null) => (crowd !== null && before !== null && after !== null && before + after > 0 ? round((2 * crowd) / (before + after)) : null)
  const spread = (a: number | null, b: number | null) => (a !== null && b !== null && Math.min(a, b) > 0 ? round(Math.max(a, b) / Math.min(a, b)) : null)
  const ratios = phases.flatMap((p, i) => {
    if (p.phase !== 'crowd') return []
    const [before, after] = [phases[i - 1]!, phases[i + 1]!]
    return [{
      up_p99: ratio(p.up.p99_ms, before.up.p99_ms, after.up.p99_ms), room_p99: ratio(p.room.p99_ms, before.room.p99_ms, after.room.p99_ms), quiet_p99_spread_up: spread(before.up.p99_ms, after.up.p99_ms),
      up_p50: ratio(p.up.p50_ms, before.up.p50_ms, after.up.p50_ms), room_p50: ratio(p.room.p50_ms, before.room.p50_ms, after.room.p50_ms), quiet_p50_spread_up: spread(before.up.p50_ms, after.up.p50_ms),
    }]
  })
  for (const [i, r] of ratios.entries()) {
    console.log(`round ${i + 1}: crowd ÷ mean of the quiet phases around it: p99 /up ${r.up_p99}×, room ${r.room_p99}× (the quiet phases' /up p99s differ ${r.quiet_p99_spread_up}×: the noise); p50 /up ${r.up_p50}×, room ${r.room_p50}× (quiet p50s differ ${r.quiet_p50_spread_up}×)`)
  }
  const slowOk = slowloris.every((s) => s.closed > 0 && s.answered_408 === s.closed && s.closed_in_time === s.closed)
  for (const s of slowloris) {
    console.log(`slowloris: ${s.closed} connections closed by the server in the crowd phase, ${s.answered_408} answered 408, ${s.closed_without_answer} closed without an answer, ${s.answered_otherwise} answered otherwise ${JSON.stringify(s.otherwise_examples)}; held p50 ${s.held.p50_ms} ms, max ${s.held.max_ms} ms (headers timeout ${o.headersTimeout} s)`)
  }
  const crowds = phases.filter((p) => p.phase === 'crowd')
  const idleOk = idle.every((r) => r.failed === 0) && crowds.every((p) => p.idle_held_at_end === o.idle)
  for (const r of idle) console.log(`idle: ${r.opened} opened in ${r.ms} ms, ${r.failed} failed, ${r.closed_by_server} closed by the server in the crowd phase`)
  console.log(`checks: slowloris answered 408 and closed by the headers timeout: ${slowOk ? 'ok' : 'NOT ok'}; idle connections all held: ${idleOk ? 'ok' : 'NOT ok'}`)
  const file = join(o.out, `slow-clients-${stamp}.json`)
  writeFileSync(file, JSON.stringify({ idle_clients: o.idle, slowloris_clients: o.slowloris, rate: o.rate, seconds: o.seconds, rounds: o.rounds, headers_timeout_s: o.headersTimeout, keep_alive_timeout_s: o.keepAliveTimeout, pinned: process.env.CAMPFIRE_BENCH_SLOW_CLIENTS_PINNED === '1', limits, idle_crowd: idle, slowloris, slowloris_ok: slowOk, idle_ok: idleOk, ratios, phases }, null, 2) + '\n')
  console.log(`saved ${file}`)
  if (!slowOk || !idleOk) process.exitCode = 1
}

await main()
