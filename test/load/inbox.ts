// How fast is a person's mentions inbox when they have been mentioned many times?
// `npm run bench:inbox`. Copies a fixture (seed:large's by default), gives its first person
// --mentions messages that mention them (by other members, in rooms they are in, spread over the
// last 90 days), starts the compiled server pinned to core 0 (its boot indexes the mentions, as
// after an upgrade), and runs --clients closed-loop clients on core 1 against the inbox's first
// page, then against an older page (?before= the middle mention), each for --duration seconds
// after a warmup. Reports req/s, p50 and p99, the server's CPU per request and its cache answers
// (Server-Timing); saves tmp/bench/inbox-<stamp>.json. Compare checkouts with --server-dir, on a
// quiet machine.
//
//   npm run seed:large && npm run bench:inbox
//   npm run bench:inbox -- --mentions 10000 --clients 16 --duration 8 --server-dir ../other-checkout
import BetterSqlite3 from 'better-sqlite3'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RailsSigning } from '../../server/lib/rails/signing.ts'
import { dbTime } from '../../server/lib/time.ts'
import { mentionAttachmentHtml } from '../../server/models/rich-text/attachments.ts'
import { fixturePaths, fixtureSecret, readPeople, ROOT } from './support/fixture.ts'
import { isFailure } from './support/http.ts'
import { round } from './support/measure.ts'
import { flag, number, path, readOptions, usageError } from './support/options.ts'
import { RawHttpClient } from './support/raw-http.ts'
import { copyStorage, makeMeters, reexecPinned, sleep, stampNow, startServer, stopServer } from './support/server.ts'
import { ServerTiming } from './support/server-timing.ts'
import { percentiles } from './support/stats.ts'

const OPTIONS = {
  fixture: path('DIR', 'the fixture folder (npm run seed:large writes it)', 'tmp/bench/large'),
  mentions: number('N', 'messages mentioning the first person, added to a copy of the fixture', 10_000, { min: 1, integer: true }),
  clients: number('N', 'closed-loop clients', 16, { min: 1, integer: true }),
  duration: number('SECS', 'how long each page is measured', 8, { min: 1 }),
  warmup: number('SECS', 'the warmup before each page', 2, { min: 0 }),
  'server-dir': path('DIR', "start another checkout's compiled server (its dist/)", '.', 'this checkout'),
  out: path('DIR', 'where the report goes', 'tmp/bench'),
  'no-pin': flag('do not pin the server and the generator to their cores'),
  'no-save': flag('print the report only'),
}

const SUMMARY = `The mentions inbox of a person mentioned --mentions times, on a copy of a fixture: req/s, p50,
p99 and the server's CPU per request for its first page and an older one. Run npm run build (and
npm run seed:large) first. Saves tmp/bench/inbox-<stamp>.json.`

const o = readOptions({ name: 'bench:inbox', summary: SUMMARY, options: OPTIONS })
const paths = fixturePaths(o.fixture)
if (![paths.database, paths.secret, paths.people].every(existsSync)) usageError('bench:inbox', `${o.fixture} is not a fixture folder (a database, its secret and people.tsv): run npm run seed:large first`)
if (!existsSync(join(o.serverDir, 'dist', 'main.js'))) usageError('bench:inbox', `${o.serverDir} has no compiled server: run npm run build there first`)
if (!reexecPinned(fileURLToPath(import.meta.url), ROOT, 'CAMPFIRE_BENCH_INBOX_PINNED', !o.noPin)) await main()

// Messages by other members of the person's rooms (those whose bell lets mentions through), each
// mentioning them once, oldest first, ids after the fixture's.
function addMentions(databasePath: string, signing: RailsSigning, personId: number, count: number): number {
  const db = new BetterSqlite3(databasePath)
  try {
    const rooms = db.prepare<[number], number>("SELECT room_id FROM memberships WHERE user_id = ? AND involvement NOT IN ('nothing', 'invisible') ORDER BY room_id").pluck().all(personId)
    const authors = rooms.map((room) => db.prepare<[number, number], number>('SELECT user_id FROM memberships WHERE room_id = ? AND user_id != ? ORDER BY user_id LIMIT 50').pluck().all(room, personId))
    if (rooms.length === 0 || authors.some((list) => list.length === 0)) throw new Error(`person ${personId} has no room with other members to be mentioned in`)
    const mention = mentionAttachmentHtml(signing.signedGlobalId('User', personId))
    const message = db.prepare('INSERT INTO messages (room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
    const body = db.prepare("INSERT INTO action_text_rich_texts (name, body, record_type, record_id, created_at, updated_at) VALUES ('body', ?, 'Message', ?, ?, ?)")
    const start = Date.now() - 90 * 86_400_000
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const at = dbTime((start + Math.floor((i * 90 * 86_400_000) / count)) * 1000)
        const room = i % rooms.length
        const id = Number(message.run(rooms[room]!, authors[room]![i % authors[room]!.length]!, randomUUID(), at, at).lastInsertRowid)
        body.run(`<p>Have a look at this, ${mention} (${i})</p>`, id, at, at)
      }
    })()
    return db.prepare<[], number>('SELECT max(id) FROM messages').pluck().get()! - Math.floor(count / 2)
  } finally {
    db.close()
  }
}

interface PageRow {
  page: string
  requests: number
  failures: number
  req_per_s: number
  p50_ms: number
  p99_ms: number
  server_cpu_ms_per_request: number | null
  cache: ReturnType<ServerTiming['summary']>
}

async function measure(client: RawHttpClient, url: string, cookie: string, seconds: number, clients: number, timing: ServerTiming | null): Promise<{ latencies: number[]; failures: number; elapsed: number }> {
  const latencies: number[] = []
  let failures = 0
  const until = performance.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < until) {
      const sent = performance.now()
      const answer = await client.request({ path: url, headers: { cookie, 'accept-encoding': 'gzip' } })
      if (isFailure(answer) || answer.status !== 200) failures++
      else {
        latencies.push(performance.now() - sent)
        timing?.add(answer.headers['server-timing'] as string | undefined)
      }
    }
  }))
  return { latencies, failures, elapsed: (performance.now() - started) / 1000 }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const storage = copyStorage(o.fixture)
  const signing = new RailsSigning(fixtureSecret(paths))
  const person = readPeople(paths.people)[0]!
  const middle = addMentions(join(storage, 'db', 'production.sqlite3'), signing, person.id, o.mentions)
  mkdirSync(o.out, { recursive: true })
  const stamp = stampNow()
  const bootStarted = performance.now()
  const server = await startServer(o.serverDir, storage, join(o.out, `inbox-${stamp}-server.log`), {}, false)
  const bootMs = performance.now() - bootStarted
  const rows: PageRow[] = []
  try {
    const client = new RawHttpClient(server.baseUrl, o.clients)
    const first = await client.request({ path: '/users/me/mentions', headers: { cookie: person.cookie } })
    if (isFailure(first) || first.status !== 200) throw new Error(`the inbox answered ${isFailure(first) ? first.error : first.status}`)
    const entries = (first.body.toString().match(/id="inbox_entry_\d+"/g) ?? []).length
    if (entries < 40) throw new Error(`the inbox's first page holds ${entries} entries, not 40: were the mentions indexed?`)
    for (const [page, url] of [['first page', '/users/me/mentions'], ['older page', `/users/me/mentions?before=${middle}`]] as const) {
      await measure(client, url, person.cookie, o.warmup, 4, null)
      await sleep(200)
      const meters = makeMeters(server.pid)
      meters.lap()
      const timing = new ServerTiming()
      const run = await measure(client, url, person.cookie, o.duration, o.clients, timing)
      const lap = meters.lap()
      const requests = run.latencies.length
      const stats = percentiles(run.latencies)
      const cpuMs = lap.server_cpu_percent === null || requests === 0 ? null : round((lap.server_cpu_percent / 100) * run.elapsed * 1000 / requests, 3)
      rows.push({ page, requests, failures: run.failures, req_per_s: round(requests / run.elapsed, 0), p50_ms: stats.p50_ms ?? 0, p99_ms: stats.p99_ms ?? 0, server_cpu_ms_per_request: cpuMs, cache: timing.summary() })
    }
  } finally {
    await stopServer(server)
    rmSync(storage, { recursive: true, force: true })
  }
  const report = { stamp, server_dir: o.serverDir, mentions: o.mentions, clients: o.clients, duration_s: o.duration, boot_ms: round(bootMs, 0), load_average_before: round(loadBefore, 2), load_average_after: round(loadavg()[0]!, 2), pinned: process.env.CAMPFIRE_BENCH_INBOX_PINNED === '1', pages: rows }
  console.log(`inbox of a person mentioned ${o.mentions} times, ${o.clients} clients, ${o.serverDir} (load average ${report.load_average_before} before, ${report.load_average_after} after; boot to /up ${report.boot_ms} ms)`)
  for (const row of rows) console.log(`  ${row.page.padEnd(11)} ${String(row.req_per_s).padStart(6)} req/s  p50 ${row.p50_ms} ms  p99 ${row.p99_ms} ms  server CPU ${row.server_cpu_ms_per_request ?? 'n/a'} ms/request  failures ${row.failures}  ${JSON.stringify(row.cache)}`)
  if (!o.noSave) {
    const file = join(o.out, `inbox-${stamp}.json`)
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    console.log(`saved ${file}`)
  }
}
