// A post's answer time while Web Push goes out: `npm run bench:push`. The room HQ gets
// --subscribers people (1,000), each away, involved in everything and subscribed at a push
// service this script runs on loopback (HTTPS, its own certificate, which the server is told to
// trust); one person posts --posts messages (100), one every --interval-ms (200), and each
// answer's time is taken. It runs once per --modes: `none` (the same people, no subscriptions),
// `hang` (the push service takes every request and never answers) and `accept` (it answers 201
// at once, so every push is encrypted and sent). The server (test/support/push-server.ts:
// the app as main.ts builds it, but allowed to reach that push service) runs pinned to core 0,
// this script and the push service (test/load/support/push-endpoint.ts, a process of its own)
// to core 1. Each answer's time is reported as the poster saw it and as the server's own
// (Server-Timing total), with the server's CPU and its push counts. Saves tmp/bench/push-<stamp>.json.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import BetterSqlite3 from 'better-sqlite3'
import { Store } from '../../server/models/store.ts'
import { loadFixtures, rooms, users } from '../fixtures.ts'
import { post, signIn } from './support/hq-posts.ts'
import { browserSubscription, vapidKeys } from '../support/push-service.ts'
import { ROOT } from './support/fixture.ts'
import { CpuMeter, processCpuSeconds, round } from './support/measure.ts'
import { choices, flag, number, path, readOptions } from './support/options.ts'
import { freePort, GENERATOR_CORE, pinningAvailable, RAISE_FILES, reexecPinned, SERVER_CORE, sleep, stampNow, waitForUp } from './support/server.ts'
import { percentiles } from './support/stats.ts'

const SCRIPT = fileURLToPath(import.meta.url)
const MODES = ['none', 'hang', 'accept'] as const
type Mode = (typeof MODES)[number]

const o = readOptions({
  name: 'bench:push',
  summary: 'A post’s answer time with many away push subscribers whose push service hangs, answers,\nor who have none. Saves tmp/bench/push-<stamp>.json.',
  options: {
    subscribers: number('N', 'away people in the room, each with a push subscription', 1000, { integer: true, min: 1 }),
    posts: number('N', 'messages posted per mode (after 10 to warm up)', 100, { integer: true, min: 1 }),
    'interval-ms': number('MS', 'from one post to the next', 200),
    modes: choices('M,M', 'what the push service does', MODES),
    out: path('DIR', 'where the report goes', 'tmp/bench'),
    'no-pin': flag('do not pin the server and this script to their cores'),
  },
})

interface Run {
  mode: Mode
  // As the poster sees it, and the server's own time for it (Server-Timing total).
  answer: ReturnType<typeof percentiles>
  server_total: ReturnType<typeof percentiles>
  server_cpu_percent: number | null
  pushes_received: number
  tls_connections: number
  server_push_stats: Record<string, number> | null
}

async function main(): Promise<void> {
  if (reexecPinned(SCRIPT, ROOT, 'CAMPFIRE_BENCH_PUSH_PINNED', !o.noPin)) return
  const certDir = mkdtempSync(join(tmpdir(), 'campfire-bench-push-cert-'))
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-keyout', join(certDir, 'key.pem'),
    '-out', join(certDir, 'cert.pem'), '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' })
  const runs: Run[] = []
  try {
    for (const mode of o.modes) runs.push(await measure(mode, certDir))
  } finally {
    rmSync(certDir, { recursive: true, force: true })
  }
  console.log(`\nbench:push — ${o.subscribers} subscribers, ${o.posts} posts every ${o.intervalMs} ms; times in ms (the poster's, then the server's own)`)
  console.log('mode      p50     p95     p99     max    mean | server p50  p99 | server CPU | pushes received, TLS connections | server push counts')
  const cell = (v: number | null, width = 7) => String(v).padStart(width)
  for (const run of runs) {
    const a = run.answer
    const stats = run.server_push_stats ? Object.entries(run.server_push_stats).map(([k, v]) => `${k} ${v}`).join(', ') : '-'
    console.log(`${run.mode.padEnd(6)} ${[a.p50_ms, a.p95_ms, a.p99_ms, a.max_ms, a.mean_ms].map((v) => cell(v)).join(' ')} | ${cell(run.server_total.p50_ms, 10)} ${cell(run.server_total.p99_ms, 4)} | ${cell(run.server_cpu_percent, 9)}% | ${cell(run.pushes_received, 15)}, ${cell(run.tls_connections, 15)} | ${stats}`)
  }
  mkdirSync(o.out, { recursive: true })
  const file = join(o.out, `push-${stampNow()}.json`)
  writeFileSync(file, JSON.stringify({ subscribers: o.subscribers, posts: o.posts, interval_ms: o.intervalMs, runs }, null, 2) + '\n')
  console.log(`saved ${file}`)
}

async function measure(mode: Mode, certDir: string): Promise<Run> {
  const pin = (core: string) => (!o.noPin && pinningAvailable() ? `taskset -c ${core} ` : '')
  const endpoint = spawn('sh', ['-c', `exec ${pin(GENERATOR_CORE)}"$0" "$@"`, process.execPath, '--import', 'tsx', 'test/load/support/push-endpoint.ts'], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, PUSH_MODE: mode, PUSH_KEY: join(certDir, 'key.pem'), PUSH_CERT: join(certDir, 'cert.pem') },
  })
  const endpointLines = lines(endpoint)
  const storage = mkdtempSync(join(tmpdir(), `campfire-bench-push-${mode}-`))
  const vapid = vapidKeys()
  const port = await freePort()
  let server: ChildProcess | null = null
  try {
    const { port: servicePort } = JSON.parse(await endpointLines.next()) as { port: number }
    seed(storage, mode === 'none' ? null : `https://127.0.0.1:${servicePort}`)
    server = spawn('sh', ['-c', `${RAISE_FILES}; exec ${pin(SERVER_CORE)}"$0" "$@"`, process.execPath, '--import', 'tsx', 'test/support/push-server.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env, CAMPFIRE_STORAGE_PATH: storage, RAILS_ENV: 'production', LOG_LEVEL: 'warn', DISABLE_SSL: 'true', HTTP_PORT: String(port), HTTP_BIND: '127.0.0.1',
        SECRET_KEY_BASE: 'c'.repeat(128), VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey, PUSH_SERVICE_CA_FILE: join(certDir, 'cert.pem'),
      },
    })
    let output = ''
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const base = `http://127.0.0.1:${port}`
    await waitForUp(base, { child: server, logTail: () => output.slice(-4000) }, 120_000)
    const cookie = await signIn(base)
    for (let i = 0; i < 10; i++) await post(base, cookie, `warm-up ${i}`)
    const meter = new CpuMeter(() => processCpuSeconds(server!.pid!))
    const times: number[] = []
    const serverTimes: number[] = []
    for (let i = 0; i < o.posts; i++) {
      const started = performance.now()
      serverTimes.push(await post(base, cookie, `${mode} ${i}: the deploy is done, have a look`))
      times.push(performance.now() - started)
      await sleep(Math.max(0, o.intervalMs - (performance.now() - started)))
    }
    const cpu = meter.lap()
    const stopped = new Promise<void>((resolve) => server!.once('exit', () => resolve()))
    server.kill('SIGTERM')
    await stopped
    const stats = /"pushStats":(\{[^}]*\})/.exec(output)?.[1]
    endpoint.kill('SIGTERM')
    const service = JSON.parse(await endpointLines.next()) as { received: number; connections: number }
    console.log(`bench:push: ${mode} done`)
    return {
      mode, answer: percentiles(times), server_total: percentiles(serverTimes), server_cpu_percent: cpu === null ? null : round(cpu, 1),
      pushes_received: service.received, tls_connections: service.connections, server_push_stats: stats ? JSON.parse(stats) : null,
    }
  } finally {
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL')
    if (endpoint.exitCode === null && endpoint.signalCode === null) endpoint.kill('SIGKILL')
    rmSync(storage, { recursive: true, force: true })
  }
}

// A child's stdout, one line at a time.
function lines(child: ChildProcess): { next(): Promise<string> } {
  const ready: string[] = []
  const waiting: ((line: string) => void)[] = []
  let buffer = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end)
      buffer = buffer.slice(end + 1)
      const waiter = waiting.shift()
      if (waiter) waiter(line)
      else ready.push(line)
    }
  })
  return { next: () => (ready.length > 0 ? Promise.resolve(ready.shift()!) : new Promise((resolve) => waiting.push(resolve))) }
}

// The fixture cast, plus the away people of HQ: involved in everything, never connected, each
// subscribed at the push service (when there is one).
function seed(storage: string, origin: string | null): void {
  mkdirSync(join(storage, 'db'), { recursive: true })
  const database = join(storage, 'db', 'production.sqlite3')
  new Store({ path: database, migrationsDir: join(ROOT, 'migrations') }).close()
  const db = new BetterSqlite3(database)
  loadFixtures(db)
  const now = '2026-03-01 12:00:00.000000'
  const person = db.prepare("INSERT INTO users (name, email_address, role, status, created_at, updated_at) VALUES (?, ?, 0, 0, ?, ?)")
  const member = db.prepare("INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at) VALUES (?, ?, 'everything', 0, ?, ?)")
  const subscribe = db.prepare('INSERT INTO push_subscriptions (user_id, endpoint, p256dh_key, auth_key, user_agent, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
  const keys = browserSubscription('')
  db.transaction(() => {
    for (let i = 1; i <= o.subscribers; i++) {
      const id = Number(person.run(`Away ${i}`, `away${i}@example.com`, now, now).lastInsertRowid)
      member.run(rooms.hq.id, id, now, now)
      if (origin) subscribe.run(id, `${origin}/push/${i}`, keys.p256dh_key, keys.auth_key, 'bench:push', now, now)
    }
  })()
  db.close()
}

await main()
