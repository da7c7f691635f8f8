// A post's answer time while missed-message emails are pending: `npm run bench:email`. HQ gets
// --people away people (1,000), each with one email pending about a message they have not read,
// and one person posts --posts messages (100), one every --interval-ms (200), each answer timed.
// It runs once per --modes: `none` (the same people, nothing pending), `waiting` (the emails are
// due in an hour: the sender's polls find nothing due) and `sending` (all due at once: the sender
// works through them, to a real SMTP server on loopback that this script runs, while the posts
// are answered). The server is server/main.ts as `npm start` runs it (CAMPFIRE_EMAIL_DELAY at its
// default), pinned to core 0, this script and its SMTP server to core 1. Saves
// tmp/bench/email-<stamp>.json.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Store } from '../../server/models/store.ts'
import { postMessage } from '../../server/models/message/posting.ts'
import { loadFixtures, rooms, users } from '../fixtures.ts'
import { post, signIn } from './support/hq-posts.ts'
import { SmtpInbox } from '../support/smtp-inbox.ts'
import { ROOT } from './support/fixture.ts'
import { CpuMeter, processCpuSeconds, round } from './support/measure.ts'
import { choices, flag, number, path, readOptions } from './support/options.ts'
import { freePort, pinningAvailable, RAISE_FILES, reexecPinned, SERVER_CORE, sleep, stampNow, waitForUp } from './support/server.ts'
import { percentiles } from './support/stats.ts'

const SCRIPT = fileURLToPath(import.meta.url)
const MODES = ['none', 'waiting', 'sending'] as const
type Mode = (typeof MODES)[number]

const o = readOptions({
  name: 'bench:email',
  summary: 'A post’s answer time with many missed-message emails pending: none, waiting, or being sent.\nSaves tmp/bench/email-<stamp>.json.',
  options: {
    people: number('N', 'away people in HQ, each with one email pending', 1000, { integer: true, min: 1 }),
    posts: number('N', 'messages posted per mode (after 10 to warm up)', 100, { integer: true, min: 1 }),
    'interval-ms': number('MS', 'from one post to the next', 200),
    modes: choices('M,M', 'what the pending emails do', MODES),
    out: path('DIR', 'where the report goes', 'tmp/bench'),
    'no-pin': flag('do not pin the server and this script to their cores'),
  },
})

interface Run {
  mode: Mode
  pending_at_start: number
  answer: ReturnType<typeof percentiles>
  server_total: ReturnType<typeof percentiles>
  server_cpu_percent: number | null
  emails_received_during_posts: number
}

async function main(): Promise<void> {
  if (reexecPinned(SCRIPT, ROOT, 'CAMPFIRE_BENCH_EMAIL_PINNED', !o.noPin)) return
  const runs: Run[] = []
  for (const mode of o.modes) runs.push(await measure(mode))
  console.log(`\nbench:email — ${o.people} away people, ${o.posts} posts every ${o.intervalMs} ms; times in ms (the poster's, then the server's own)`)
  console.log('mode        pending     p50     p95     p99     max    mean | server p50  p99 | server CPU | emails received while posting')
  const cell = (v: number | null, width = 7) => String(v).padStart(width)
  for (const run of runs) {
    const a = run.answer
    console.log(`${run.mode.padEnd(8)} ${cell(run.pending_at_start, 10)} ${[a.p50_ms, a.p95_ms, a.p99_ms, a.max_ms, a.mean_ms].map((v) => cell(v)).join(' ')} | ${cell(run.server_total.p50_ms, 10)} ${cell(run.server_total.p99_ms, 4)} | ${cell(run.server_cpu_percent, 9)}% | ${cell(run.emails_received_during_posts, 10)}`)
  }
  mkdirSync(o.out, { recursive: true })
  const file = join(o.out, `email-${stampNow()}.json`)
  writeFileSync(file, JSON.stringify({ people: o.people, posts: o.posts, interval_ms: o.intervalMs, runs }, null, 2) + '\n')
  console.log(`saved ${file}`)
}

async function measure(mode: Mode): Promise<Run> {
  const pin = (core: string) => (!o.noPin && pinningAvailable() ? `taskset -c ${core} ` : '')
  const inbox = new SmtpInbox()
  await inbox.start(0)
  const storage = mkdtempSync(join(tmpdir(), `campfire-bench-email-${mode}-`))
  const port = await freePort()
  let server: ChildProcess | null = null
  try {
    const pending = seed(storage, mode, `http://127.0.0.1:${port}`)
    server = spawn('sh', ['-c', `${RAISE_FILES}; exec ${pin(SERVER_CORE)}"$0" "$@"`, process.execPath, '--import', 'tsx', 'server/main.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env, CAMPFIRE_STORAGE_PATH: storage, RAILS_ENV: 'production', LOG_LEVEL: 'warn', DISABLE_SSL: 'true', HTTP_PORT: String(port), HTTP_BIND: '127.0.0.1',
        SECRET_KEY_BASE: 'c'.repeat(128), SMTP_URL: inbox.url, MAIL_FROM: 'Campfire <campfire@example.com>', APP_URL: 'https://campfire.example.com', WEB_CONCURRENCY: '1',
      },
    })
    let output = ''
    server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const base = `http://127.0.0.1:${port}`
    await waitForUp(base, { child: server, logTail: () => output.slice(-4000) }, 120_000)
    const cookie = await signIn(base)
    for (let i = 0; i < 10; i++) await post(base, cookie, `warm-up ${i}`)
    const receivedBefore = inbox.mails.length
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
    const received = inbox.mails.length - receivedBefore
    const stopped = new Promise<void>((resolve) => server!.once('exit', () => resolve()))
    server.kill('SIGTERM')
    await stopped
    console.log(`bench:email: ${mode} done (${inbox.mails.length} emails received in all)`)
    return { mode, pending_at_start: pending, answer: percentiles(times), server_total: percentiles(serverTimes), server_cpu_percent: cpu === null ? null : round(cpu, 1), emails_received_during_posts: received }
  } finally {
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL')
    await inbox.stop()
    rmSync(storage, { recursive: true, force: true })
  }
}

// The fixture cast, plus the away people of HQ (never connected, on `mentions`), who have not
// read a message Jason posted; unless the mode is `none`, each has an email about it pending.
function seed(storage: string, mode: Mode, origin: string): number {
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: join(ROOT, 'migrations') })
  try {
    return store.writeNow((m) => {
      loadFixtures(m.db)
      const now = '2026-03-01 12:00:00.000000'
      const person = m.db.prepare('INSERT INTO users (name, email_address, role, status, created_at, updated_at) VALUES (?, ?, 0, 0, ?, ?)')
      const member = m.db.prepare("INSERT INTO memberships (room_id, user_id, involvement, connections, created_at, updated_at) VALUES (?, ?, 'mentions', 0, ?, ?)")
      const ids: number[] = []
      for (let i = 1; i <= o.people; i++) {
        const id = Number(person.run(`Away ${i}`, `away${i}@example.com`, now, now).lastInsertRowid)
        member.run(rooms.hq.id, id, now, now)
        ids.push(id)
      }
      const message = postMessage(m, { roomId: rooms.hq.id, creatorId: users.jason.id, clientMessageId: 'bench-email', body: '<p>Everyone: the release is out</p>', plainText: 'Everyone: the release is out' })
      if (mode === 'none') return 0
      const due = mode === 'waiting' ? Date.now() + 3_600_000 : 0
      const pending = m.db.prepare('INSERT INTO campfire_email_notifications (user_id, message_id, room_id, origin, created_at, due_at) VALUES (?, ?, ?, ?, ?, ?)')
      for (const id of ids) pending.run(id, message.id, rooms.hq.id, origin, Date.now(), due)
      return ids.length
    })
  } finally {
    store.close()
  }
}

await main()
