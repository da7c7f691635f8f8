// How long a large Slack import takes, how much memory it holds, and what it does to the server
// beside it: `npm run bench:import`. A Slack export of --messages messages (over --channels
// channels, --per-day a day, with mentions, formatting and reactions) is generated into a temp
// folder, then one read route (room_show) of a running server is measured alone, while
// `import:slack` brings the export into the same database, and alone again. The import's wall
// time, its peak resident memory (VmHWM) and its messages per second are reported, every read
// is validated as in bench:routes, and the imported messages are counted in the database.
//
//   npm run bench:import                                  (1,000,000 messages)
//   npm run bench:import -- --messages 100000 --clients 8
//
// Other options: --warmup 5, --duration 10 (seconds of each quiet phase), --server-dir DIR,
// --tsx, --no-pin, --out DIR (tmp/bench). Saves tmp/bench/import-<stamp>.json.
import BetterSqlite3 from 'better-sqlite3'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { hit, newSample, prepareContracts, prepareTarget, type RouteOptions } from './routes.ts'
import { ROOT } from './support/fixture.ts'
import { HttpClient } from './support/http.ts'
import { round } from './support/measure.ts'
import { flag, number, path, readOptions } from './support/options.ts'
import { makeMeters, reexecPinned, stampNow, stopServer } from './support/server.ts'
import { percentiles } from './support/stats.ts'

const SCRIPT = fileURLToPath(import.meta.url)
const PINNED_ENV = 'CAMPFIRE_BENCH_IMPORT_PINNED'
const ROUTE = 'room_show'

const OPTIONS = {
  messages: number('N', 'how many messages the generated export holds', 1_000_000, { min: 1, integer: true }),
  channels: number('N', 'over how many channels', 10, { min: 1, integer: true }),
  'per-day': number('N', 'messages in each daily file', 1000, { min: 1, integer: true }),
  clients: number('N', 'closed-loop clients on the read route', 8, { min: 1, integer: true }),
  warmup: number('SECS', 'the warmup before the first phase (4 clients)', 5, { min: 0 }),
  duration: number('SECS', 'how long each quiet phase lasts (the import phase lasts until the import ends)', 10, { min: 1 }),
  'server-dir': path('DIR', "start another checkout's server", '.', 'this checkout'),
  out: path('DIR', 'where the report goes', 'tmp/bench'),
  'no-pin': flag('do not pin the server and the generator to their cores'),
  tsx: flag("run the server's sources under tsx instead of compiling them as npm start does"),
}

const SUMMARY = `Generates a Slack export of --messages messages, then measures room_show alone, while
import:slack brings the export into the running server's database, and alone again. Reports the
import's time, peak memory and rate. Saves tmp/bench/import-<stamp>.json.`

const PEOPLE = ['U0JZ', 'U0ADA', 'U0KEV', 'U0RITA']

// The export, written day by day so the generator never holds more than one day's messages.
function generateExport(folder: string, messages: number, channels: number, perDay: number): number {
  writeFileSync(join(folder, 'users.json'), JSON.stringify(PEOPLE.map((id, i) => ({ id, name: id.toLowerCase(), profile: { real_name: `Imported Person ${i + 1}`, email: `${id.toLowerCase()}@import.example` } }))))
  writeFileSync(join(folder, 'channels.json'), JSON.stringify(Array.from({ length: channels }, (_, c) => ({ id: `C0BENCH${c}`, name: `imported-${c}`, creator: PEOPLE[0], members: PEOPLE }))))
  let bytes = 0
  const perChannel = Math.ceil(messages / channels)
  for (let c = 0; c < channels; c++) {
    mkdirSync(join(folder, `imported-${c}`))
    const count = Math.min(perChannel, messages - c * perChannel)
    for (let day = 0; day * perDay < count; day++) {
      const date = new Date(Date.UTC(2020, 0, 1) + day * 86_400_000).toISOString().slice(0, 10)
      const base = Date.UTC(2020, 0, 1) / 1000 + day * 86_400 + 8 * 3600
      const list = Array.from({ length: Math.min(perDay, count - day * perDay) }, (_, i) => {
        const n = day * perDay + i
        const message: Record<string, unknown> = { type: 'message', user: PEOPLE[n % PEOPLE.length], ts: `${base + Math.floor(i * 40 / 1000)}.${String((i * 40_000) % 1_000_000).padStart(6, '0')}`, text: `Message ${n} in channel ${c}: *status* is _fine_, see <https://example.com/${n}|item ${n}>` }
        if (n % 20 === 0) message.text = `<@${PEOPLE[(n + 1) % PEOPLE.length]}> can you look at ${n}?`
        if (n % 10 === 0) message.reactions = [{ name: '+1', users: [PEOPLE[(n + 2) % PEOPLE.length]], count: 1 }]
        return message
      })
      const json = JSON.stringify(list)
      bytes += json.length
      writeFileSync(join(folder, `imported-${c}`, `${date}.json`), json)
    }
  }
  return bytes
}

// Peak resident memory of a process so far (Linux), in MB.
function peakMb(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Math.round(Number(match[1]) / 1024) : null
  } catch {
    return null
  }
}

async function main(): Promise<void> {
  const v = readOptions({ name: 'bench:import', summary: SUMMARY, options: OPTIONS })
  if (reexecPinned(SCRIPT, ROOT, PINNED_ENV, !v.noPin)) return
  const stamp = stampNow()
  mkdirSync(v.out, { recursive: true })
  const exportDir = mkdtempSync(join(tmpdir(), 'campfire-bench-slack-'))
  const clients: HttpClient[] = []
  const client = (base: string, sockets = 4) => {
    const c = new HttpClient(base, sockets)
    clients.push(c)
    return c
  }
  let target
  try {
    const generated = performance.now()
    const bytes = generateExport(exportDir, v.messages, v.channels, v.perDay)
    console.log(`bench:import: generated ${v.messages} messages (${round(bytes / 1e6, 1)} MB of JSON) in ${round((performance.now() - generated) / 1000, 1)} s`)
    const routeOptions: RouteOptions = { clients: v.clients, duration: v.duration, warmup: v.warmup, routes: [ROUTE], gzip: true, mixedWriteRate: 0, pin: !v.noPin, fixture: null, base: null, db: null, labels: null, cookie: null, password: null, inPlace: false, serverDir: v.serverDir, processes: {}, tsx: v.tsx, out: v.out }
    target = await prepareTarget(routeOptions, stamp, (base) => client(base))
    const db = new BetterSqlite3(target.dbPath, { readonly: true, fileMustExist: true })
    db.pragma('busy_timeout = 10000')
    const contract = (await prepareContracts(client(target.baseUrl), target, db, [ROUTE])).get(ROUTE)!
    const http = client(target.baseUrl, v.clients + 2)
    const meters = makeMeters(target.server?.pid ?? null)
    const warm = newSample()
    const warmEnd = performance.now() + v.warmup * 1000
    await readLoop(4, () => performance.now() >= warmEnd, () => hit(http, ROUTE, contract, target!, true, warm, []))

    const phases = []
    let importRun: { code: number | null; secs: number; peak_mb: number | null; stdout: string; stderr: string } | null = null
    for (const phase of ['quiet', 'importing', 'quiet again'] as const) {
      const sample = newSample()
      meters.lap()
      const started = performance.now()
      if (phase === 'importing') {
        const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'admin', 'import-slack.ts'), '--from', exportDir], { cwd: ROOT, env: { ...process.env, CAMPFIRE_STORAGE_PATH: target.storage! }, stdio: ['ignore', 'pipe', 'pipe'] })
        let stdout = ''
        let stderr = ''
        child.stdout.on('data', (chunk) => (stdout += chunk))
        child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)))
        let peak: number | null = null
        const watch = setInterval(() => (peak = Math.max(peak ?? 0, peakMb(child.pid!) ?? 0)), 250)
        const done = new Promise<number | null>((resolve) => child.on('close', resolve))
        let finished = false
        void done.then(() => (finished = true))
        await readLoop(v.clients, () => finished, () => hit(http, ROUTE, contract, target!, true, sample, []))
        clearInterval(watch)
        importRun = { code: await done, secs: round((performance.now() - started) / 1000, 1), peak_mb: peak, stdout, stderr }
      } else {
        const end = started + v.duration * 1000
        await readLoop(v.clients, () => performance.now() >= end, () => hit(http, ROUTE, contract, target!, true, sample, []))
      }
      const secs = (performance.now() - started) / 1000
      const lap = meters.lap()
      const latency = percentiles(sample.latencies)
      const row = { phase, secs: round(secs, 1), rps: round(sample.ok / secs, 1), latency, ok: sample.ok, errors: sample.errors, invalid: sample.invalid.total, server_cpu_percent: lap.server_cpu_percent }
      phases.push(row)
      console.log(`  ${phase.padEnd(12)} ${String(row.rps).padStart(8)} req/s  p50 ${latency.p50_ms} / p95 ${latency.p95_ms} / p99 ${latency.p99_ms} / max ${latency.max_ms} ms  ok ${row.ok} invalid ${row.invalid} errors ${row.errors}  server ${lap.server_cpu_percent ?? '–'}%`)
    }
    const imported = db.prepare("SELECT count(*) FROM slack_import_records WHERE kind = 'message'").pluck().get() as number
    db.close()
    const run = importRun!
    const passed = run.code === 0 && imported === v.messages && phases.every((p) => p.errors + p.invalid === 0)
    const report = { benchmark: 'import', stamp, options: { ...v, out: undefined }, export_json_mb: round(bytes / 1e6, 1), import: { exit: run.code, secs: run.secs, peak_mb: run.peak_mb, messages_per_sec: round(imported / run.secs, 0), imported }, phases, passed }
    const file = join(v.out, `import-${stamp}.json`)
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    if (run.code !== 0) console.log(run.stderr)
    console.log(run.stdout.trimEnd())
    const [quiet, loaded, again] = phases
    console.log(`bench:import: ${passed ? 'passed' : 'FAILED'}; ${imported}/${v.messages} messages in ${run.secs} s (${report.import.messages_per_sec}/s), peak ${run.peak_mb} MB resident; ${ROUTE} p99 ${quiet!.latency.p99_ms} ms quiet, ${loaded!.latency.p99_ms} ms importing, ${again!.latency.p99_ms} ms quiet again\n  JSON: ${file}`)
    process.exitCode = passed ? 0 : 1
  } finally {
    for (const c of clients) c.close()
    if (target?.server) await stopServer(target.server)
    if (target?.storage) rmSync(target.storage, { recursive: true, force: true })
    rmSync(exportDir, { recursive: true, force: true })
  }
}

async function readLoop(clients: number, stop: () => boolean, once: () => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: clients }, async () => {
    while (!stop()) await once()
  }))
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
