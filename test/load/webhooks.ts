// Does a post wait for webhooks? `npm run bench:webhooks`. The seeded dataset gets two open
// rooms of --bots bots each: in "Quiet" no bot has a webhook, in "Busy" every bot's webhook
// points at a receiver (in this process) that --receiver decides: `hang` takes each request and
// never answers, `closed` is a port nobody listens on. Person 1 posts --posts messages, one at a
// time, each mentioning every bot of the room (the same body size in both rooms), first in
// Quiet, then in Busy (--bots webhooks per post, for the server's bounded queue), then in Quiet
// again while Busy's deliveries are still hanging. Reported per phase: the post's answer time
// (at the generator) and the server's own total (Server-Timing), p50/p95/p99/max; the server's
// CPU per post, background deliveries included; the webhook requests the receiver got; and the
// deliveries the server's bounded queue dropped (from its shutdown log line).
//
//   npm run bench:webhooks
//   npm run bench:webhooks -- --bots 100 --posts 300 --receiver closed
//
// The server runs as npm start runs it, pinned to core 0, the generator on core 1 (--no-pin
// turns that off; --tsx runs the server's sources). Saves tmp/bench/webhooks-<stamp>.json.
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { RailsSigning } from '../../server/lib/rails/signing.ts'
import { dbTime } from '../../server/lib/time.ts'
import { mentionAttachmentHtml } from '../../server/models/rich-text/index.ts'
import { Store } from '../../server/models/store.ts'
import { seedDatabase } from './seed.ts'
import { ROOT, sessionCookie, sessionToken } from './support/fixture.ts'
import { HttpClient, isFailure } from './support/http.ts'
import { processCpuSeconds, round } from './support/measure.ts'
import { choices, flag, number, path, readOptions } from './support/options.ts'
import { checkPost } from './support/page-checks.ts'
import { serverDurationsMs } from './support/server-timing.ts'
import { freePort, reexecPinned, stampNow, startServer, stopServer, type ServerChild } from './support/server.ts'
import { percentiles } from './support/stats.ts'

const SCRIPT = fileURLToPath(import.meta.url)
const PINNED_ENV = 'CAMPFIRE_BENCH_WEBHOOKS_PINNED'

const OPTIONS = {
  bots: number('N', 'bots in each room, every one mentioned by every post', 100, { integer: true, min: 1 }),
  posts: number('N', 'posts per phase, one at a time', 200, { integer: true, min: 1 }),
  warmup: number('N', 'posts in Quiet before measuring (not reported)', 50, { integer: true, min: 0 }),
  receiver: choices('KIND', 'what answers the webhooks', ['hang', 'closed'] as const, ['hang']),
  'server-dir': path('DIR', "start another checkout's server", '.', 'this checkout'),
  out: path('DIR', 'where the report goes', 'tmp/bench'),
  'no-pin': flag('do not pin the server and the generator to their cores'),
  tsx: flag("run the server's sources under tsx instead of compiling them as npm start does"),
}

const SUMMARY = `A post's answer time with --bots webhook bots in the room whose receiver hangs (or
is a closed port), against the same posts in a room whose bots have no webhooks. Saves
tmp/bench/webhooks-<stamp>.json.`

interface Prepared {
  storage: string
  cookie: string
  quiet: { id: number; body: string }
  busy: { id: number; body: string }
}

// The seeded dataset, a session for person 1, and the two rooms with their bots.
function prepare(bots: number, webhookUrl: string): Prepared {
  const storage = mkdtempSync(join(tmpdir(), 'campfire-bench-webhooks-'))
  const secret = randomBytes(64).toString('hex')
  const signing = new RailsSigning(secret)
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: join(ROOT, 'migrations') })
  try {
    const labels = seedDatabase(store, { secretKeyBase: secret, cost: 4 })
    const david = labels.users.david
    const token = sessionToken(david)
    const rooms = store.writeNow((m) => {
      const now = dbTime()
      m.db.prepare("INSERT INTO sessions (user_id, token, ip_address, user_agent, last_active_at, created_at, updated_at) VALUES (?, ?, '127.0.0.1', 'campfire-ts bench:webhooks', ?, ?, ?)").run(david, token, now, now, now)
      const insertBot = m.db.prepare('INSERT INTO users (name, role, status, bot_token, created_at, updated_at) VALUES (?, 2, 0, ?, ?, ?)')
      const room = (name: string, url: string | null) => {
        const id = m.openRooms.create(name, david)
        const mentions: string[] = []
        for (let i = 1; i <= bots; i++) {
          const bot = Number(insertBot.run(`${name} Bot ${i}`, randomBytes(6).toString('hex'), now, now).lastInsertRowid)
          m.memberships.grant(id, bot)
          if (url) m.webhooks.save(bot, `${url}/${bot}`)
          mentions.push(mentionAttachmentHtml(signing.signedGlobalId('User', bot)))
        }
        return { id, body: `<p>${mentions.join(' ')} status?</p>` }
      }
      return { quiet: room('Quiet', null), busy: room('Busy', webhookUrl) }
    })
    writeFileSync(join(storage, 'secret_key_base'), secret + '\n', { mode: 0o600 })
    return { storage, cookie: sessionCookie(signing, token), ...rooms }
  } finally {
    store.close()
  }
}

// The receiver: counts requests and, for `hang`, holds every one open.
async function startReceiver(kind: 'hang' | 'closed'): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  if (kind === 'closed') return { url: `http://127.0.0.1:${await freePort()}/bot`, received: () => 0, close: async () => {} }
  let received = 0
  const server = http.createServer(() => void received++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/bot`,
    received: () => received,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  }
}

async function phase(client: HttpClient, cookie: string, room: { id: number; body: string }, posts: number, errors: string[]) {
  const answers: number[] = []
  const server: number[] = []
  for (let i = 0; i < posts; i++) {
    const marker = `bench ${randomBytes(6).toString('hex')}`
    const answer = await client.request({
      method: 'POST', path: `/rooms/${room.id}/messages`,
      body: new URLSearchParams({ 'message[body]': `${room.body}<p>${marker}</p>` }).toString(),
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/vnd.turbo-stream.html', 'sec-fetch-site': 'same-origin' },
    })
    if (isFailure(answer)) {
      errors.push(answer.error)
      continue
    }
    const { failure } = checkPost(answer.status, answer.headers['content-type'], answer.body.toString('utf8'), marker)
    if (failure) errors.push(failure)
    answers.push(answer.ms)
    const total = serverDurationsMs(answer.headers['server-timing']).find(([name]) => name === 'total')
    if (total) server.push(total[1])
  }
  return { answer_ms: percentiles(answers), server_total_ms: percentiles(server) }
}

async function main(): Promise<void> {
  const options = readOptions({ name: 'bench:webhooks', summary: SUMMARY, options: OPTIONS }, process.argv.slice(2))
  if (reexecPinned(SCRIPT, ROOT, PINNED_ENV, !options.noPin)) return
  const kind = options.receiver[0]!
  const stamp = stampNow()
  mkdirSync(options.out, { recursive: true })
  const receiver = await startReceiver(kind)
  const prepared = prepare(options.bots, receiver.url)
  const logPath = join(options.out, `webhooks-${stamp}-server.log`)
  let server: ServerChild | null = null
  try {
    server = await startServer(options.serverDir, prepared.storage, logPath, {}, options.tsx)
    const client = new HttpClient(server.baseUrl, 2)
    const errors: string[] = []
    await phase(client, prepared.cookie, prepared.quiet, options.warmup, errors)
    console.log(`bench:webhooks: ${options.bots} bots per room, ${options.posts} posts per phase, receiver ${kind}`)
    const phases: Record<string, unknown> = {}
    for (const [name, room] of [['quiet', prepared.quiet], ['busy', prepared.busy], ['quiet_after_busy', prepared.quiet]] as const) {
      const cpuBefore = processCpuSeconds(server.pid)
      const result = await phase(client, prepared.cookie, room, options.posts, errors)
      const cpuAfter = processCpuSeconds(server.pid)
      // The server's CPU per post, background deliveries included (clock-tick resolution).
      const cpuPerPost = cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) * 1000) / options.posts)
      phases[name] = { ...result, server_cpu_ms_per_post: cpuPerPost, webhook_requests_received: receiver.received() }
      console.log(`  ${name.padEnd(16)} answer p50 ${result.answer_ms.p50_ms} / p95 ${result.answer_ms.p95_ms} / p99 ${result.answer_ms.p99_ms} / max ${result.answer_ms.max_ms} ms; server total p50 ${result.server_total_ms.p50_ms} / p99 ${result.server_total_ms.p99_ms} ms; server CPU ${cpuPerPost ?? '–'} ms per post; webhook requests so far ${receiver.received()}`)
    }
    client.close()
    await stopServer(server)
    server = null
    const log = readFileSync(logPath, 'utf8')
    const dropped = Number(/"droppedSinceStart":(\d+)/.exec(log)?.[1] ?? 0)
    const report = { benchmark: 'webhooks', stamp, bots: options.bots, posts: options.posts, receiver: kind, phases, deliveries_dropped: dropped, errors: errors.slice(0, 20), error_count: errors.length }
    const file = join(options.out, `webhooks-${stamp}.json`)
    writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    console.log(`  deliveries dropped by the server's bounded queue: ${dropped}; post errors: ${errors.length}\n  JSON: ${file}`)
    process.exitCode = errors.length === 0 ? 0 : 1
  } finally {
    if (server) await stopServer(server)
    await receiver.close()
    rmSync(prepared.storage, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
