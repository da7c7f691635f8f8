// How long does the compiled server take to answer? `npm run bench:cold-start`. Starts
// `node dist/main.js` --runs times on an empty storage folder and --runs times on one that
// already holds a database, and times each from the spawn to the first `/up` answering 200
// (polled every millisecond over a fresh connection). Reports p50 and max of each, and the
// machine's load average before and after: compare checkouts side by side with --server-dir,
// never figures from different days. A first start, not counted, makes the database of the
// existing folder and runs on until the server has settled, so that a checkout with a code cache
// (dist/code-cache/, lib/code-cache.ts) has written it; its own time is reported apart.
// --no-code-cache runs every start with CAMPFIRE_CODE_CACHE=off.
//
//   npm run bench:cold-start
//   npm run bench:cold-start -- --runs 10 --server-dir ../other-checkout
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { freePort } from '../support/ports.ts'
import { round } from './support/measure.ts'
import { flag, number, path, readOptions } from './support/options.ts'
import { stampNow } from './support/server.ts'
import { percentiles } from './support/stats.ts'

const OPTIONS = {
  runs: number('N', 'starts on each kind of storage folder', 10, { min: 1, integer: true }),
  'timeout-secs': number('SECS', 'how long one start may take before the run fails', 30, { min: 1 }),
  'server-dir': path('DIR', "start another checkout's compiled server (its dist/)", '.', 'this checkout'),
  out: path('DIR', 'where the report goes', 'tmp/bench'),
  'no-code-cache': flag('start with CAMPFIRE_CODE_CACHE=off (V8 compiles the server at every start)'),
  'no-save': flag('print the report only'),
}

const SUMMARY = `Times the compiled server (node dist/main.js, run npm run build first) from its spawn to
the first /up answering 200, on an empty storage folder and on one holding a database. Saves
tmp/bench/cold-start-<stamp>.json.`

const SECRET = 'c'.repeat(64) + 'd'.repeat(64)

function upAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/up', agent: false }, (res) => {
      res.resume()
      resolve(res.statusCode === 200)
    })
    req.on('error', () => resolve(false))
    req.end()
  })
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref()
  })
}

// How long the first start runs on after answering: past the server's settling (a second after
// it listens), when it writes its code cache.
const SETTLE_MS = 2_000

// One start: milliseconds from the spawn to the first 200 from /up.
async function startOnce(serverDir: string, storage: string, timeoutMs: number, options: { codeCache: boolean; lingerMs?: number }): Promise<number> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: serverDir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE: SECRET, HTTP_PORT: String(port), HTTP_BIND: '127.0.0.1', DISABLE_SSL: 'true', LOG_LEVEL: 'warn', WEB_CONCURRENCY: '1', CAMPFIRE_CODE_CACHE: options.codeCache ? 'on' : 'off' },
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-2000) })
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) before answering: ${stderr.trim()}`)
      if (await upAnswers(port)) {
        const ms = performance.now() - started
        if (options.lingerMs) await new Promise((resolve) => setTimeout(resolve, options.lingerMs))
        return ms
      }
      if (performance.now() - started > timeoutMs) throw new Error(`no 200 from /up within ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
  } finally {
    await stop(child)
  }
}

async function main(): Promise<void> {
  const o = readOptions({ name: 'bench:cold-start', summary: SUMMARY, options: OPTIONS })
  const loadBefore = loadavg()[0]!
  const work = mkdtempSync(join(tmpdir(), 'campfire-cold-start-'))
  const results: Record<string, number[]> = { empty: [], existing: [] }
  let firstMs = 0
  try {
    // The existing folder is made by a first start (not counted), then reused by every run.
    const existing = join(work, 'existing')
    mkdirSync(existing)
    const codeCache = !o.noCodeCache
    firstMs = await startOnce(o.serverDir, existing, o.timeoutSecs * 1000, { codeCache, lingerMs: SETTLE_MS })
    // Alternate the two kinds, so a change in the machine's speed touches both alike.
    for (let run = 1; run <= o.runs; run++) {
      const empty = join(work, `empty-${run}`)
      mkdirSync(empty)
      results.empty!.push(await startOnce(o.serverDir, empty, o.timeoutSecs * 1000, { codeCache }))
      rmSync(empty, { recursive: true, force: true })
      results.existing!.push(await startOnce(o.serverDir, existing, o.timeoutSecs * 1000, { codeCache }))
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  const summarize = (ms: number[]) => ({ p50_ms: percentiles(ms).p50_ms, max_ms: round(Math.max(...ms), 1), runs_ms: ms.map((v) => round(v, 1)) })
  const report = {
    server_dir: o.serverDir,
    runs: o.runs,
    load_average_before: round(loadBefore, 2),
    load_average_after: round(loadavg()[0]!, 2),
    code_cache: !o.noCodeCache,
    first_start_ms: round(firstMs, 1),
    empty: summarize(results.empty!),
    existing: summarize(results.existing!),
  }
  console.log(`cold start of ${o.serverDir}${o.noCodeCache ? ', code cache off' : ''} (load average ${report.load_average_before} before, ${report.load_average_after} after)`)
  console.log(`  first start (not counted, empty storage, with whatever code cache an earlier start left): ${report.first_start_ms} ms`)
  for (const kind of ['empty', 'existing'] as const) console.log(`  ${kind.padEnd(8)} storage: p50 ${report[kind].p50_ms} ms, max ${report[kind].max_ms} ms  [${report[kind].runs_ms.join(', ')}]`)
  if (!o.noSave) {
    mkdirSync(o.out, { recursive: true })
    const file = join(o.out, `cold-start-${stampNow()}.json`)
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    console.log(`saved ${file}`)
  }
}

main().catch((error: unknown) => {
  console.error(`bench:cold-start: ${(error as Error).message}`)
  process.exit(1)
})
