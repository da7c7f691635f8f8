// Runs `npm run bench:users` once per cache setting, one after the other on the same fixture,
// and prints one side-by-side table: hit rates per layer (from Server-Timing: memo, page, shell,
// fragments, records; n/a for a layer that reported none), room page latency, the server's
// event-loop delay, and the highest served step. Any extra arguments go to every bench:users run.
//
//   npm run bench:caches -- --steps 250,500,1000 --step-secs 20 --warmup-secs 10 --keep-going
//   CACHE_SETTINGS=defaults,baseline npm run bench:caches -- ...
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { USERS_OPTIONS } from './people.ts'
import { readOptions, usageError } from './support/options.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export const SETTINGS: Record<string, Record<string, string>> = {
  defaults: {},
  'page=commit': { CAMPFIRE_PAGE_CACHE_INVALIDATION: 'commit' },
  'page=off': { CAMPFIRE_PAGE_CACHE: 'off' },
  'shell=off': { CAMPFIRE_SHELL_CACHE: 'off' },
  'memo=off': { CAMPFIRE_RESPONSE_MEMO: 'off' },
  'fragments=viewer': { CAMPFIRE_FRAGMENT_KEYS: 'viewer' },
  'fragments=off': { CAMPFIRE_FRAGMENT_KEYS: 'off' },
  'keys=content': { CAMPFIRE_FRAGMENT_KEY_SOURCE: 'content' },
  baseline: { CAMPFIRE_PAGE_CACHE_INVALIDATION: 'commit', CAMPFIRE_FRAGMENT_KEYS: 'viewer', CAMPFIRE_FRAGMENT_KEY_SOURCE: 'content' },
  'all off': { CAMPFIRE_RESPONSE_MEMO: 'off', CAMPFIRE_PAGE_CACHE: 'off', CAMPFIRE_SHELL_CACHE: 'off', CAMPFIRE_FRAGMENT_KEYS: 'off' },
}

interface Step {
  people: number
  served: boolean
  navigations: Record<string, { n: number; p50_ms: number | null; p99_ms: number | null }>
  server_timing: Record<string, { hits: number; misses: number; hit_rate_percent: number | null } | string>
  server: { cpu_percent: number }
  server_cpu_ms_per_navigation?: number
  page_hit_rate_by_kind?: Record<string, number | null>
  shell_hit_rate_by_kind?: Record<string, number | null>
  machine?: { other_processes_cpu_percent?: number }
  server_loop_delay?: { p99_ms: number; max_ms: number; stalls_over_10ms: number } | null
}

function rate(step: Step, metric: string): string {
  const m = step.server_timing[metric]
  return typeof m === 'object' && m.hit_rate_percent !== null ? `${m.hit_rate_percent}%` : 'n/a'
}

// bench:users' options, but --out: each setting's run writes to tmp/bench/cache-<setting>.
const { out: _out, ...OPTIONS } = USERS_OPTIONS

const args = process.argv.slice(2).filter((a) => a !== '--')
readOptions({
  name: 'bench:caches',
  summary: `Runs npm run bench:users once per cache setting on the same fixture, each into
tmp/bench/cache-<setting>/, and prints one side-by-side table. Every option goes to every run.`,
  options: OPTIONS,
  notes: [
    'Environment:',
    `  CACHE_SETTINGS=A,B,…  the settings, in order (default all: ${Object.keys(SETTINGS).join(', ')})`,
    '  RUN_TIMEOUT_MIN=N     stop a run that has reported but does not exit after N minutes (default 20)',
  ].join('\n'),
}, args)
const names = (process.env.CACHE_SETTINGS ?? Object.keys(SETTINGS).join(',')).split(',')
for (const name of names) if (!(name in SETTINGS)) usageError('bench:caches', `CACHE_SETTINGS has no setting '${name}' (it takes ${Object.keys(SETTINGS).join(', ')})`)
const rows: string[] = []
for (const name of names) {
  const out = join(ROOT, 'tmp', 'bench', `cache-${name.replace(/\W+/g, '-')}`)
  mkdirSync(out, { recursive: true })
  console.log(`\n=== ${name}: ${JSON.stringify(SETTINGS[name])}`)
  // A bench:users run that has reported but does not exit is stopped after RUN_TIMEOUT_MIN.
  const timeout = Number(process.env.RUN_TIMEOUT_MIN ?? 20) * 60_000
  spawnSync('npm', ['run', 'bench:users', '--', ...args, '--out', out], { cwd: ROOT, stdio: 'inherit', timeout, killSignal: 'SIGKILL', env: { ...process.env, ...SETTINGS[name] } })
  const file = readdirSync(out).filter((f) => /^users-.*\.json$/.test(f)).sort().pop()
  if (!file) continue
  const report = JSON.parse(readFileSync(join(out, file), 'utf8')) as { steps: Step[]; highest_served_step: number | null }
  for (const step of report.steps) {
    const nav = (kind: string) => `${step.navigations[kind]?.p50_ms ?? '–'} / ${step.navigations[kind]?.p99_ms ?? '–'}`
    const kinds = ['room', 'sidebar', 'messages', 'search'].map((kind) => step.page_hit_rate_by_kind?.[kind] ?? '–').join(' / ')
    const shellKinds = ['room', 'sidebar', 'messages', 'search'].map((kind) => step.shell_hit_rate_by_kind?.[kind] ?? '–').join(' / ')
    const loop = step.server_loop_delay ? `${step.server_loop_delay.p99_ms} / ${step.server_loop_delay.max_ms} (${step.server_loop_delay.stalls_over_10ms})` : 'n/a'
    rows.push(`| ${name} | ${step.people} | ${rate(step, 'memo')} | ${rate(step, 'page')} (${kinds}) | ${rate(step, 'shell')} (${shellKinds}) | ${rate(step, 'fragments')} | ${rate(step, 'records')} | ${nav('open')} | ${nav('return')} | ${nav('all')} | ${step.server.cpu_percent}% (${step.server_cpu_ms_per_navigation ?? '–'} ms/nav) | ${loop} | ${step.machine?.other_processes_cpu_percent ?? '–'}% | ${step.served ? 'served' : 'not served'} | ${report.highest_served_step ?? 'none'} |`)
  }
}
console.log('\n| setting | people | memo hits | page hits (room / sidebar / messages / search) | shell hits (room / sidebar / messages / search) | fragment hits | record hits | open p50 / p99 ms | return (room page) p50 / p99 ms | all p50 / p99 ms | server CPU (per navigation) | server loop p99 / max ms (stalls > 10 ms) | other procs CPU | step | highest served |')
console.log('|---|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|---:|---|---:|')
for (const row of rows) console.log(row)
