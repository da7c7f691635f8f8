// Readable reports: a markdown summary beside each run's JSON, with SVG plots a reader can look
// at instead of reading (latency percentiles against people; throughput per route).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Percentiles } from './stats.ts'

interface Series {
  name: string
  points: [number, number | null][]
}

const COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f']
const W = 640
const H = 360
const M = { left: 60, right: 150, top: 36, bottom: 44 }

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

function niceMax(value: number): number {
  if (value <= 0) return 1
  const power = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power
  return 10 * power
}

// A line chart; `threshold` draws a dashed horizontal line (a target).
export function lineChart(title: string, xLabel: string, yLabel: string, series: Series[], threshold?: { value: number; label: string }): string {
  const xs = series.flatMap((s) => s.points.map(([x]) => x))
  const ys = series.flatMap((s) => s.points.map(([, y]) => y).filter((y): y is number => y !== null))
  const xMax = niceMax(Math.max(1, ...xs))
  const yMax = niceMax(Math.max(threshold?.value ?? 0, ...ys, 1) * 1.05)
  const px = (x: number) => M.left + (x / xMax) * (W - M.left - M.right)
  const py = (y: number) => H - M.bottom - (Math.min(y, yMax) / yMax) * (H - M.top - M.bottom)
  const parts: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`]
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`, `<text x="${W / 2 - M.right / 2}" y="20" text-anchor="middle" font-size="14">${esc(title)}</text>`)
  for (let i = 0; i <= 5; i++) {
    const y = (yMax * i) / 5
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/>`, `<text x="${M.left - 6}" y="${py(y) + 4}" text-anchor="end">${+y.toFixed(2)}</text>`)
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) parts.push(`<text x="${px(x)}" y="${H - M.bottom + 16}" text-anchor="middle">${x}</text>`)
  parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`, `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#333"/>`)
  parts.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 8}" text-anchor="middle">${esc(xLabel)}</text>`, `<text transform="translate(14 ${(H - M.bottom + M.top) / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`)
  if (threshold) {
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${py(threshold.value)}" y2="${py(threshold.value)}" stroke="#d62728" stroke-dasharray="6 4"/>`)
    parts.push(`<text x="${W - M.right - 4}" y="${py(threshold.value) - 4}" text-anchor="end" fill="#d62728">${esc(threshold.label)}</text>`)
  }
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]
    const points = s.points.filter(([, y]) => y !== null) as [number, number][]
    if (points.length > 1) parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${points.map(([x, y]) => `${px(x)},${py(y)}`).join(' ')}"/>`)
    for (const [x, y] of points) parts.push(`<circle cx="${px(x)}" cy="${py(y)}" r="3" fill="${colour}"><title>${esc(s.name)}: ${y} at ${x}</title></circle>`)
    parts.push(`<rect x="${W - M.right + 12}" y="${M.top + i * 18}" width="12" height="12" fill="${colour}"/>`, `<text x="${W - M.right + 30}" y="${M.top + i * 18 + 10}">${esc(s.name)}</text>`)
  })
  parts.push('</svg>')
  return parts.join('\n') + '\n'
}

// Horizontal bars, one per label, value printed at the end of each.
export function barChart(title: string, unit: string, bars: { label: string; value: number }[]): string {
  const rowH = 26
  const height = M.top + bars.length * rowH + 20
  const labelW = 150
  const max = niceMax(Math.max(1, ...bars.map((b) => b.value)))
  const scale = (v: number) => (v / max) * (W - labelW - 90)
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-family="sans-serif" font-size="12">`, `<rect width="${W}" height="${height}" fill="white"/>`]
  parts.push(`<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${esc(title)}</text>`)
  bars.forEach((bar, i) => {
    const y = M.top + i * rowH
    parts.push(`<text x="${labelW - 8}" y="${y + 15}" text-anchor="end">${esc(bar.label)}</text>`)
    parts.push(`<rect x="${labelW}" y="${y}" width="${Math.max(1, scale(bar.value))}" height="${rowH - 8}" fill="${COLOURS[i % COLOURS.length]}"/>`)
    parts.push(`<text x="${labelW + scale(bar.value) + 6}" y="${y + 14}">${bar.value.toLocaleString('en-US', { maximumFractionDigits: 1 })} ${esc(unit)}</text>`)
  })
  parts.push('</svg>')
  return parts.join('\n') + '\n'
}

const cell = (v: number | string | null | undefined) => (v === null || v === undefined ? '–' : typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: 2 }) : v)

// --- the users profile ------------------------------------------------------------------------

interface UsersStep {
  people: number
  navigations: Record<string, Percentiles>
  navigations_per_sec: number
  failures: number
  failure_reasons: Record<string, number>
  posts: number
  delivery: Percentiles & { within_500ms_percent: number | null; expected: number; delivered: number }
  server_timing: Record<string, unknown>
  server: { cpu_percent: number | null; memory: { rss_mb: number } | null }
  generator: { cpu_percent: number | null; loop_lag: { p99_ms: number } }
  server_cpu_ms_per_navigation: number | null
  people_per_server_core: number | null
  server_loop_delay?: { p50_ms: number; p99_ms: number; max_ms: number; stalls_over_10ms: number; stalled_ms: number } | null
  served: boolean
  verdict: string[]
}

// "p50 / p99 / max (stalls > 10 ms, their total)" of a step's or a route's server loop delay.
function loopCell(d: { p50_ms: number; p99_ms: number; max_ms: number; stalls_over_10ms: number; stalled_ms?: number } | null | undefined): string {
  return d ? `${cell(d.p50_ms)} / ${cell(d.p99_ms)} / ${cell(d.max_ms)} (${d.stalls_over_10ms}${d.stalled_ms === undefined ? '' : `, ${cell(d.stalled_ms)} ms`})` : 'n/a'
}

interface UsersRun {
  stamp: string
  target: string
  steps: UsersStep[]
  highest_served_step: number | null
  audit: { acknowledged: number; failures: string[] }
  notes: string[]
  options: { stepSecs: number; warmupSecs: number }
}

export function writeUsersReport(run: UsersRun, dir: string, name: string): string {
  const files = {
    latency: `${name}-navigation.svg`,
    kinds: `${name}-navigation-p99-by-kind.svg`,
    delivery: `${name}-delivery.svg`,
  }
  const at = (pick: (s: UsersStep) => number | null) => run.steps.map((s) => [s.people, pick(s)] as [number, number | null])
  writeFileSync(join(dir, files.latency), lineChart('Navigation latency (all kinds)', 'people', 'ms', [
    { name: 'p50', points: at((s) => s.navigations.all!.p50_ms) },
    { name: 'p95', points: at((s) => s.navigations.all!.p95_ms) },
    { name: 'p99', points: at((s) => s.navigations.all!.p99_ms) },
  ], { value: 100, label: 'p99 target 100 ms' }))
  writeFileSync(join(dir, files.kinds), lineChart('Navigation p99 by kind', 'people', 'ms', ['open', 'scroll', 'search', 'return'].map((kind) => ({ name: kind, points: at((s) => s.navigations[kind]?.p99_ms ?? null) })), { value: 100, label: '100 ms' }))
  writeFileSync(join(dir, files.delivery), lineChart('Delivery: post sent → viewer received', 'people', 'ms', [
    { name: 'p50', points: at((s) => s.delivery.p50_ms) },
    { name: 'p99', points: at((s) => s.delivery.p99_ms) },
  ], { value: 500, label: '500 ms' }))
  const lines = [
    `# Users profile — ${run.stamp}`,
    '',
    `Target: ${run.target}. Steps of ${run.options.stepSecs} s after ${run.options.warmupSecs} s warmup each.`,
    '',
    `**Highest served step: ${run.highest_served_step ?? 'none'}** (served = navigation p99 ≤ 100 ms, no failures, ≥ 99% of deliveries ≤ 500 ms).`,
    `Write audit: ${run.audit.acknowledged} acknowledged posts, ${run.audit.failures.length === 0 ? 'all present with body and search entry' : run.audit.failures.join('; ')}.`,
    '',
    `![navigation latency](${files.latency}) ![p99 by kind](${files.kinds}) ![delivery](${files.delivery})`,
    '',
    '| people | nav/s | nav p50 / p95 / p99 ms | open p99 | scroll p99 | search p99 | return p99 | failures | posts | delivery p50 / p99 ms | ≤ 500 ms | server CPU | server CPU ms / nav | people / server core | server RSS | server loop delay p50 / p99 / max ms (stalls > 10 ms, total) | generator CPU | gen. lag p99 | verdict |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...run.steps.map((s) => {
      const a = s.navigations.all!
      return `| ${s.people} | ${cell(s.navigations_per_sec)} | ${cell(a.p50_ms)} / ${cell(a.p95_ms)} / ${cell(a.p99_ms)} | ${cell(s.navigations.open?.p99_ms)} | ${cell(s.navigations.scroll?.p99_ms)} | ${cell(s.navigations.search?.p99_ms)} | ${cell(s.navigations.return?.p99_ms)} | ${s.failures} | ${s.posts} | ${cell(s.delivery.p50_ms)} / ${cell(s.delivery.p99_ms)} | ${cell(s.delivery.within_500ms_percent)}% | ${cell(s.server.cpu_percent)}% | ${cell(s.server_cpu_ms_per_navigation)} | ${cell(s.people_per_server_core)} | ${cell(s.server.memory?.rss_mb)} MB | ${loopCell(s.server_loop_delay)} | ${cell(s.generator.cpu_percent)}% | ${cell(s.generator.loop_lag.p99_ms)} ms | ${s.served ? 'served' : 'not served: ' + s.verdict.join('; ')} |`
    }),
    '',
    '## Failures by reason',
    '',
    ...run.steps.map((s) => `- ${s.people} people: ${s.failures === 0 ? 'none' : Object.entries(s.failure_reasons).map(([r, n]) => `${r} × ${n}`).join(', ')}`),
    '',
    '## Cache hit rates (Server-Timing)',
    '',
    ...run.steps.map((s) => `- ${s.people} people: ${JSON.stringify(s.server_timing)}`),
    '',
    ...(run.notes.length ? ['## Notes', '', ...run.notes.map((n) => `- ${n}`), ''] : []),
  ]
  const file = join(dir, `${name}.md`)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

// --- the routes profile -----------------------------------------------------------------------

export interface RouteRow {
  route: string
  clients: number
  rps: number
  server_cpu_percent: number | null
  rps_per_server_core: number | null
  generator_cpu_percent: number | null
  latency: Percentiles
  ok: number
  errors: number
  invalid: number
  reasons: Record<string, number>
  validation?: { parsed: number; matched_validated: number }
  generator_cpu_us_per_request?: number | null
  server_loop_delay?: { p50_ms: number; p99_ms: number; max_ms: number; stalls_over_10ms: number; stalled_ms: number } | null
}

export function writeRoutesReport(title: string, rows: RouteRow[], extra: string[], dir: string, name: string): string {
  const svg = `${name}-throughput.svg`
  const latencySvg = `${name}-latency.svg`
  writeFileSync(join(dir, svg), barChart(`${title}: requests/s per route`, 'req/s', rows.map((r) => ({ label: `${r.route} ×${r.clients}`, value: r.rps }))))
  writeFileSync(join(dir, latencySvg), barChart(`${title}: p99 latency per route`, 'ms', rows.map((r) => ({ label: `${r.route} ×${r.clients}`, value: r.latency.p99_ms ?? 0 }))))
  const lines = [
    `# ${title}`,
    '',
    `![throughput](${svg}) ![latency](${latencySvg})`,
    '',
    '| route | clients | req/s | server CPU | ≈ req/s per server core | generator CPU (µs / request) | p50 ms | p95 ms | p99 ms | max ms | ok | errors | invalid | parsed / matched | server loop delay p50 / p99 / max ms (stalls > 10 ms, total) | reasons |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => {
      return `| ${r.route} | ${r.clients} | ${cell(r.rps)} | ${cell(r.server_cpu_percent)}% | ${cell(r.rps_per_server_core)} | ${cell(r.generator_cpu_percent)}% (${cell(r.generator_cpu_us_per_request)}) | ${cell(r.latency.p50_ms)} | ${cell(r.latency.p95_ms)} | ${cell(r.latency.p99_ms)} | ${cell(r.latency.max_ms)} | ${r.ok} | ${r.errors} | ${r.invalid} | ${r.validation ? `${r.validation.parsed} / ${r.validation.matched_validated}` : '–'} | ${loopCell(r.server_loop_delay)} | ${Object.entries(r.reasons).map(([k, v]) => `${k} × ${v}`).join(', ') || '–'} |`
    }),
    '',
    ...extra,
  ]
  const file = join(dir, `${name}.md`)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

// --- the unread fan-out ------------------------------------------------------------------------

type FloorTimes = Pick<Percentiles, 'min_ms' | 'p50_ms' | 'p99_ms' | 'max_ms'>

interface FanoutRun {
  stamp: string
  target: string
  members: number
  subscribed: number
  posts: number
  complete: number
  connect_secs: number
  post_ack_ms: Percentiles
  sent_to_last_socket_ms: Percentiles
  ack_to_last_socket_ms: Percentiles
  first_to_last_socket_ms: Percentiles
  server_cpu_ms_per_post: Percentiles
  generator_cpu_ms_per_post: Percentiles
  per_post: { seq: number; received: number; ack_to_last_ms: number | null; sent_to_last_ms: number | null }[]
  server_cpu_percent: number | null
  generator_cpu_percent: number | null
  core_busy_percent: number[]
  notice_bytes: number
  floor: { ready: number; bytes_per_post: number; posts: number; complete: number; all_clients: FloorTimes; write_loop: FloorTimes } | null
  vs_floor: { p50: number | null; p99: number | null } | null
  notes: string[]
}

export function writeFanoutReport(run: FanoutRun, dir: string, name: string): string {
  const svg = `${name}-per-post.svg`
  writeFileSync(join(dir, svg), barChart('Post acknowledged → unread notice at the last socket', 'ms', run.per_post.map((p) => ({ label: `post ${p.seq} (${p.received})`, value: p.ack_to_last_ms ?? 0 }))))
  const pp = (p: FloorTimes) => `min ${cell(p.min_ms)} / p50 ${cell(p.p50_ms)} / max ${cell(p.max_ms)} ms`
  const lines = [
    `# Unread fan-out — ${run.stamp}`,
    '',
    `Target: ${run.target}. ${run.subscribed.toLocaleString('en-US')} of ${run.members.toLocaleString('en-US')} members subscribed to UnreadRoomsChannel in ${run.connect_secs} s; ${run.complete} of ${run.posts} posts reached every socket.`,
    '',
    `![per post](${svg})`,
    '',
    '| measure | value |',
    '|---|---|',
    `| post acknowledged | ${pp(run.post_ack_ms)} |`,
    `| post sent → last socket | ${pp(run.sent_to_last_socket_ms)} |`,
    `| post acknowledged → last socket | ${pp(run.ack_to_last_socket_ms)} |`,
    `| first socket → last socket | ${pp(run.first_to_last_socket_ms)} |`,
    `| server CPU per post (sent → last notice) | ${pp(run.server_cpu_ms_per_post)} |`,
    `| generator CPU per post (reading the notices) | ${pp(run.generator_cpu_ms_per_post)} |`,
    `| server CPU / generator CPU | ${cell(run.server_cpu_percent)}% / ${cell(run.generator_cpu_percent)}% |`,
    `| cores busy | ${run.core_busy_percent.join('% / ')}% |`,
    ...(run.floor && run.vs_floor
      ? [
          `| floor: bare broadcaster, sockets / bytes each | ${run.floor.ready.toLocaleString('en-US')} / ${run.floor.bytes_per_post} (complete ${run.floor.complete} / ${run.floor.posts}) |`,
          `| floor: told to send → last socket | ${pp(run.floor.all_clients)} (p99 ${cell(run.floor.all_clients.p99_ms)}) |`,
          `| floor: its write loop | ${pp(run.floor.write_loop)} |`,
          `| acknowledged → last socket vs floor, p50 / p99 | ${cell(run.ack_to_last_socket_ms.p50_ms)} vs ${cell(run.floor.all_clients.p50_ms)} ms (${cell(run.vs_floor.p50)}×) / ${cell(run.ack_to_last_socket_ms.p99_ms)} vs ${cell(run.floor.all_clients.p99_ms)} ms (${cell(run.vs_floor.p99)}×) |`,
        ]
      : []),
    '',
    'Measured at the sockets: the time includes the generator reading every notice on its own core.',
    ...(run.floor ? ['The floor is the same number of sockets sent a frame of the same size by a bare broadcaster on the server\'s core, timed from the moment it is told to send (the analogue of the acknowledgement).'] : []),
    ...run.notes.map((note) => `Note: ${note}.`),
  ]
  const file = join(dir, `${name}.md`)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}
