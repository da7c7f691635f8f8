// Running a benchmark the way bench:cable does: the generator re-executes itself pinned to core 1,
// the server under test is a child process pinned to core 0, and every phase is timed with CPU
// meters on both, the generator's event-loop lag, and every core's busy time (the machine may
// be shared, and the report says so).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, type WriteStream } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'
import type { Readable, Writable } from 'node:stream'
import { LoopProbe, PROBE_FD, probeEnv } from './loop-delay.ts'
import { CoreMeter, CpuMeter, processesCpuSeconds, round, selfCpuSeconds } from './measure.ts'
import { flag, number, text } from './options.ts'
import { freePort } from '../../support/ports.ts'
import { RedisServer } from '../../support/redis-server.ts'

export const SERVER_CORE = '0'
export const GENERATOR_CORE = '1'
export const RAISE_FILES = 'ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null'

export function pinningAvailable(): boolean {
  return cpus().length >= 2 && (existsSync('/usr/bin/taskset') || existsSync('/bin/taskset'))
}

// Re-runs `script` with the same arguments on the generator's core; true when it did (the caller
// then returns and lets the child run). Read the options first: `pin` is false for --no-pin, and
// --help or a bad option has ended the script before it gets here.
// With `generatorProfileDir` the generator runs under node --cpu-prof into that folder (re-run
// even with --no-pin), and `afterwards` is called once it has exited, before this process exits.
export function reexecPinned(script: string, root: string, envFlag: string, pin: boolean, generatorProfileDir: string | null = null, afterwards?: () => void): boolean {
  if (process.env[envFlag]) return false
  const pinned = pin && pinningAvailable()
  if (!pinned && generatorProfileDir === null) return false
  const profile = generatorProfileDir ? cpuProfileFlags(generatorProfileDir, 1000) : []
  const run = pinned ? `exec taskset -c ${GENERATOR_CORE} "$0" "$@"` : 'exec "$0" "$@"'
  const child = spawn('sh', ['-c', `${RAISE_FILES}; ${run}`, process.execPath, ...profile, '--import', 'tsx', script, ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    // "1" when pinned: the reports say so.
    env: { ...process.env, [envFlag]: pinned ? '1' : 'unpinned' },
  })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    try {
      afterwards?.()
    } catch (error) {
      console.error(`generator profile: ${(error as Error).message}`)
    }
    process.exit(code ?? (signal ? 1 : 0))
  })
  return true
}

export { freePort }

// A private copy of a fixture's storage folder (the database and its secret), so a run's posts
// never change the fixture itself.
export function copyStorage(storage: string): string {
  const copy = mkdtempSync(join(tmpdir(), `campfire-bench-${basename(storage)}-`))
  mkdirSync(join(copy, 'db'))
  for (const name of ['db/production.sqlite3', 'secret_key_base']) {
    if (existsSync(join(storage, name))) cpSync(join(storage, name), join(copy, name))
  }
  return copy
}

export interface ServerChild {
  child: ChildProcess
  pid: number
  // The server with the redis-server started beside it (extras.workers, extras.redis): what
  // the server's CPU and memory are read from.
  pids: number[]
  redis: RedisServer | null
  baseUrl: string
  log: WriteStream
  logPath: string
  logTail: () => string
  // With extras.probe: the event-loop delay probe preloaded into it (loop-delay.ts).
  probe: LoopProbe | null
}

export interface ServerExtras {
  // Preload the event-loop delay probe (support/loop-probe.mjs) and keep a pipe to it.
  probe?: boolean
  // And have it measure the cluster's workers, not only the process started.
  probeWorkers?: boolean
  // Worker processes (WEB_CONCURRENCY); more than one starts a redis-server beside the server
  // (REDIS_URL), as does `redis` with one.
  workers?: number
  redis?: boolean
  // Reach it over loopback TCP rather than its Unix socket (a checkout older than unix:// URLs).
  redisTcp?: boolean
  // The cores the server and its redis-server are pinned to (taskset's list), SERVER_CORE unless given.
  cores?: string
}

// The options every benchmark that starts our server offers for its processes.
export const PROCESS_OPTIONS = {
  workers: number('N', 'worker processes for the server (WEB_CONCURRENCY); more than 1 starts a redis-server beside it (REDIS_URL)', 1, { integer: true, min: 1 }),
  redis: flag('give the server a redis-server (REDIS_URL) even with one worker, to measure the Redis hop'),
  'redis-tcp': flag('reach the redis-server over loopback TCP instead of its Unix socket (REDIS_URL=redis://… instead of unix:///…)'),
  'server-cores': text('LIST', "the cores the server and its redis-server are pinned to, as taskset takes them (0,1 shares the generator's core, which is then not pinned)", SERVER_CORE),
}

// For the benchmarks with the loop probe (bench:users, bench:routes).
export const PROBE_WORKERS_OPTION = {
  'probe-workers': flag("with --workers: the loop probe measures every worker's event loop, not the idle primary's (its 1 ms timers then cost the workers CPU: about 1.4-2.4 ms more per navigation with 2, measured)"),
}

// True when the server's cores include the generator's, which then runs unpinned.
export function sharesGeneratorCore(cores: string): boolean {
  return cores.split(',').some((part) => {
    const [from, to = from] = part.split('-').map(Number)
    return Number(GENERATOR_CORE) >= from! && Number(GENERATOR_CORE) <= to!
  })
}

export function processOptionsOf(options: { workers: number; redis: boolean; redisTcp: boolean; serverCores: string; probeWorkers?: boolean }): Pick<ServerExtras, 'workers' | 'redis' | 'redisTcp' | 'cores' | 'probeWorkers'> {
  return { workers: options.workers, redis: options.redis, redisTcp: options.redisTcp, cores: options.serverCores, probeWorkers: options.probeWorkers ?? false }
}

// What the report says of where the server ran.
export function describeProcesses(extras: ServerExtras): string {
  const workers = extras.workers ?? 1
  const redis = workers > 1 || extras.redis === true
  return `${workers === 1 ? 'one process' : `${workers} workers`}${redis ? ` + redis-server (${extras.redisTcp ? 'TCP' : 'Unix socket'})` : ''} on core${(extras.cores ?? SERVER_CORE).includes(',') || (extras.cores ?? '').includes('-') ? 's' : ''} ${extras.cores ?? SERVER_CORE}`
}

// node's flags for a CPU profile of the process into `dir`, one sample every `us` µs.
export function cpuProfileFlags(dir: string, us: number): string[] {
  mkdirSync(dir, { recursive: true })
  return ['--cpu-prof', `--cpu-prof-interval=${Math.max(50, Math.round(us))}`, `--cpu-prof-dir=${dir}`]
}

// How the server under test runs: as `npm start` does (compiled into dist/ by the checkout's own
// build script, then node with the flags its start script gives) when the checkout has one, else
// its sources under tsx (with those flags, but for source maps, which tsx provides itself).
export function serverCommand(serverDir: string, tsx: boolean): string[] {
  const build = join(serverDir, 'server', 'build', 'server.ts')
  let flags = startFlags(serverDir)
  if (flags === null) {
    flags = ['--enable-source-maps']
    console.warn(`bench: could not read node flags from ${join(serverDir, 'package.json')}'s start script (expected "node --flag=value … dist/main.js"); starting the server with ${flags.join(' ')}`)
  }
  if (tsx || !existsSync(build)) return [...flags.filter((flag) => flag !== '--enable-source-maps'), '--import', 'tsx', 'server/main.ts']
  execFileSync(process.execPath, ['--import', 'tsx', build], { cwd: serverDir, stdio: 'ignore' })
  return [...flags, 'dist/main.js']
}

// The node flags of the checkout's `npm start` (`… && node <flags> dist/main.js`, each flag a
// `--name` or `--name=value`), or null when the script is missing or shaped otherwise.
export function startFlags(serverDir: string): string[] | null {
  let start = ''
  try {
    start = String((JSON.parse(readFileSync(join(serverDir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts?.start ?? '')
  } catch {
    return null
  }
  // `npm run build && node … dist/main.js`, or a launcher's `… -- node … dist/main.js`.
  const match = /(?:^|&&\s*|\s--\s+)node((?:\s+--[\w-]+(?:=\S+)?)*)\s+dist\/main\.js(?:\s|$)/.exec(start)
  return match ? match[1]!.trim().split(/\s+/).filter(Boolean) : null
}

// Starts the server of `serverDir` on its own core, on a free loopback port. `nodeFlags` go
// before the checkout's own (`--cpu-prof …`).
export async function startServer(serverDir: string, storage: string, logPath: string, env: Record<string, string>, tsx: boolean, nodeFlags: string[] = [], extras: ServerExtras = {}): Promise<ServerChild> {
  const port = await freePort()
  const cores = extras.cores ?? SERVER_CORE
  const pin = pinningAvailable() ? `taskset -c ${cores} ` : ''
  const workers = extras.workers ?? 1
  // Debian's redis-server on a Unix socket (and a free loopback port), without persistence,
  // pinned with the server.
  const redis = workers > 1 || extras.redis === true ? await RedisServer.start(undefined, pin ? ['taskset', '-c', cores] : []) : null
  const processes: Record<string, string> = redis ? { WEB_CONCURRENCY: String(workers), REDIS_URL: extras.redisTcp ? redis.url : redis.socketUrl } : {}
  const child = spawn('sh', ['-c', `${RAISE_FILES}; exec ${pin}"$0" "$@"`, process.execPath, ...nodeFlags, ...serverCommand(serverDir, tsx)], {
    cwd: serverDir,
    // fd 3: the loop probe's pipe.
    stdio: extras.probe ? ['ignore', 'pipe', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      CAMPFIRE_STORAGE_PATH: storage,
      RAILS_ENV: 'production',
      LOG_LEVEL: 'warn',
      DISABLE_SSL: 'true',
      HTTP_PORT: String(port),
      HTTP_BIND: '127.0.0.1',
      ...(extras.probe ? probeEnv(process.env.NODE_OPTIONS, extras.probeWorkers === true) : {}),
      ...processes,
      ...env,
    },
  })
  const log = createWriteStream(logPath)
  let tail = ''
  const onData = (chunk: Buffer) => {
    log.write(chunk)
    tail = (tail + chunk.toString()).slice(-8000)
  }
  child.stdout!.on('data', onData)
  child.stderr!.on('data', onData)
  const channel = extras.probe ? (child.stdio[PROBE_FD] as (Readable & Writable) | null) : null
  const pids = redis ? [child.pid!, redis.pid!] : [child.pid!]
  const server = { child, pid: child.pid!, pids, redis, baseUrl: `http://127.0.0.1:${port}`, log, logPath, logTail: () => tail, probe: channel ? new LoopProbe(channel) : null }
  try {
    await waitForUp(server.baseUrl, server, 120_000)
  } catch (error) {
    await redis?.dispose('SIGKILL')
    throw error
  }
  return server
}

// Any started server process: these benchmarks' own, or bench:cable's.
type ChildWithLog = Pick<ServerChild, 'child' | 'log' | 'logTail'>

export async function waitForUp(baseUrl: string, server: Pick<ChildWithLog, 'child' | 'logTail'>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) throw new Error(`server exited (${server.child.exitCode ?? server.child.signalCode}):\n${server.logTail()}`)
    try {
      const response = await fetch(`${baseUrl}/up`, { signal: AbortSignal.timeout(2000) })
      if (response.status === 200) return
    } catch {
      // not listening yet
    }
    await sleep(100)
  }
  throw new Error(`server did not answer /up within ${timeoutMs} ms:\n${server.logTail()}`)
}

export async function stopServer(server: Pick<ChildWithLog, 'child' | 'log'> & { redis?: RedisServer | null }, graceMs = 20_000): Promise<string> {
  try {
    return await stopChild(server, graceMs)
  } finally {
    await server.redis?.dispose('SIGKILL')
  }
}

async function stopChild(server: Pick<ChildWithLog, 'child' | 'log'>, graceMs: number): Promise<string> {
  const { child } = server
  if (child.exitCode !== null || child.signalCode !== null) return `already exited (${child.exitCode ?? child.signalCode})`
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit ${code}`)))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  const how = await exited
  clearTimeout(timer)
  await new Promise<void>((resolve) => server.log.end(resolve))
  return how
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

export function stampNow(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
}

export interface LoopLag {
  p50_ms: number
  p99_ms: number
  max_ms: number
  mean_ms: number
}

export const LAG_RESOLUTION_MS = 5

// The histogram holds the time between ticks of a LAG_RESOLUTION_MS timer; the lag is the excess.
export function lagOf(histogram: IntervalHistogram): LoopLag {
  const ms = (ns: number) => round(Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS))
  const result = { p50_ms: ms(histogram.percentile(50)), p99_ms: ms(histogram.percentile(99)), max_ms: ms(histogram.max), mean_ms: ms(histogram.mean) }
  histogram.reset()
  return result
}

export interface Lap {
  server_cpu_percent: number | null
  // The redis-server's part of server_cpu_percent (null without one).
  redis_cpu_percent: number | null
  generator_cpu_percent: number | null
  generator_loop_lag: LoopLag
  core_busy_percent: number[]
  // What processes other than these two used, in percent of one core.
  other_processes_cpu_percent: number | null
}

export interface Meters {
  lap(): Lap
}

// `server`: the server's process (or its processes, a redis-server beside it), each read with
// everything below it. `redisPid`: that redis-server, whose part is also given on its own.
export function makeMeters(server: number | readonly number[] | null, redisPid: number | null = null): Meters {
  const pids = server === null ? null : typeof server === 'number' ? [server] : server
  const serverMeter = pids === null ? null : new CpuMeter(() => processesCpuSeconds(pids))
  const redisMeter = redisPid === null ? null : new CpuMeter(() => processesCpuSeconds([redisPid]))
  const self = new CpuMeter(selfCpuSeconds)
  const loop = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS })
  loop.enable()
  const machine = new CoreMeter()
  return {
    lap: () => {
      const serverCpu = serverMeter?.lap() ?? null
      const redisCpu = redisMeter?.lap() ?? null
      const generator = self.lap()
      const cores = machine.lap()
      const total = cores.reduce((sum, value) => sum + value, 0)
      const others = serverCpu === null || generator === null ? null : round(Math.max(0, total - serverCpu - generator), 1)
      return { server_cpu_percent: serverCpu, redis_cpu_percent: redisCpu, generator_cpu_percent: generator, generator_loop_lag: lagOf(loop), core_busy_percent: cores, other_processes_cpu_percent: others }
    },
  }
}
