// The container image under the benchmark harness (harness.md §1.2, §2, §7.1), without a container
// engine: the server is started as the Dockerfile's default command starts it (the same program
// and flags, the image's environment, then the harness's reference.env, from a file), on storage
// laid out as the harness mounts it, on the harness-shaped seed (its ids, labels, push
// subscriptions, webhooks and files), which lacks our newest migrations and is edited with the
// host's sqlite3 as the harness edits it. Readiness is polled as the harness polls it, db/ is opened to every user while the server
// runs, then the route contracts are checked, posts are made and the write audit reads the live
// WAL database with the sqlite3 command. With WEB_CONCURRENCY=3 and no REDIS_URL, the image's
// entry point starts a redis-server of its own: a post on one worker shows on the others, and
// SIGTERM leaves no process behind.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import BetterSqlite3 from 'better-sqlite3'
import webpush from 'web-push'
import { findProgram } from '../../server/build/debian-package.ts'
import { REDIS_SERVER_PATH } from '../../server/build/redis.ts'
import { readMigrations } from '../../server/models/database.ts'
import { Store } from '../../server/models/store.ts'
import { seedHarness, type HarnessLabels } from '../load/harness-seed.ts'
import { HttpClient, isFailure, type Answer, type RequestSpec } from '../load/support/http.ts'
import { readDockerfile, type ImageRecipe } from '../support/dockerfile.ts'
import {
  auditWrites, checkResponse, expectedWindows, harnessUrlencode, postRequest, prepareContract, preparePostContract, scrape, writeMark,
  type Acknowledgement, type Contract, type Expectations, type RouteKind, type WireResponse,
} from '../support/harness-validator.ts'
import { freePort } from '../support/ports.ts'
import { ROOT } from '../support/server-process.ts'
import { Sqlite3Reader } from '../support/sqlite3-cli.ts'

const WORKERS = 3
const READY_WITHIN_MS = 90_000
const hex = (bytes: number) => randomBytes(bytes).toString('hex')

// ---------------------------------------------------------------------------------------------
// The run directory: what bin/seed leaves, copied for one round and edited before the start.

interface Run {
  root: string
  storage: string
  db: string
  envFile: string
  labels: HarnessLabels
  password: string
  initialMaxId: number
  hqCount: number
}

// fixtures/default/reference.env: the committed keys, the overrides compare.rb passes (the port,
// WEB_CONCURRENCY=3) and the secrets bin/seed appends. CAMPFIRE_RESPONSE_CACHE_MB stays unset, as
// in the published runs.
function referenceEnv(port: number, targetPort: number): Record<string, string> {
  const vapid = webpush.generateVAPIDKeys()
  return {
    RAILS_ENV: 'production',
    DISABLE_SSL: 'true',
    SKIP_TELEMETRY: 'true',
    APP_VERSION: 'parity',
    GIT_REVISION: 'parity',
    WEB_CONCURRENCY: String(WORKERS),
    RAILS_MAX_THREADS: '5',
    JOB_CONCURRENCY: '3',
    RAILS_LOG_LEVEL: 'warn',
    HTTP_PORT: String(port),
    TARGET_PORT: String(targetPort),
    RELEASE_NODE: `cf-native-bench-${process.pid}`,
    SECRET_KEY_BASE: hex(64),
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_KEY: vapid.privateKey,
    VERIFICATION_PASSWORD: hex(16),
    VERIFICATION_BENDER_TOKEN: hex(16),
    VERIFICATION_DEPLOY_TOKEN: hex(16),
    VERIFICATION_OLD_TOKEN: hex(16),
  }
}

// docker run --env-file: KEY=VALUE per line, comments and blank lines skipped, nothing unquoted.
function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue
    const at = line.indexOf('=')
    assert.ok(at > 0, `env file line without KEY=: ${line}`)
    env[line.slice(0, at)] = line.slice(at + 1)
  }
  return env
}

// The harness's seed is made by Rails and lacks our additive migrations. The run's copy has the
// newest ones undone (005-015: indexes, columns, the tables of our own and their triggers), so
// the start has to apply them again before /up answers.
const LATEST_MIGRATION = Math.max(...readMigrations(join(ROOT, 'migrations')).map((migration) => migration.version))
const UNDONE_TO = 4
const UNDO_MIGRATIONS = `DROP INDEX campfire_index_rooms_on_created_at_and_id;
  DROP INDEX campfire_index_users_on_status_and_created_at;
  DROP TABLE campfire_worker_connections;
  DROP TABLE oidc_identities;
  DROP TABLE oidc_sessions;
  DROP TABLE oidc_settings;
  DROP TABLE campfire_email_notifications;
  DROP TABLE campfire_email_preferences;
  DROP TABLE slack_import_records;
  DROP INDEX campfire_index_messages_on_creator_and_client_message_id;
  ALTER TABLE messages DROP COLUMN campfire_repeat_of;
  DROP TRIGGER campfire_saved_message_goes_with_its_message;
  DROP TRIGGER campfire_saved_message_goes_with_the_membership;
  DROP TRIGGER campfire_saved_message_goes_with_its_person;
  DROP TABLE campfire_saved_messages;
  ALTER TABLE memberships DROP COLUMN campfire_unread_message_id;
  DROP TRIGGER campfire_mentions_body_inserted;
  DROP TRIGGER campfire_mentions_body_updated;
  DROP TRIGGER campfire_mentions_body_deleted;
  DROP TRIGGER campfire_mentions_message_moved;
  DROP TRIGGER campfire_mentions_message_deleted;
  DROP TABLE campfire_mentions;
  DROP TABLE campfire_mention_checks;
  PRAGMA user_version = ${UNDONE_TO};`

// labels.json's values: ids, and the strings (emails, tokens) beside them.
function labelId(labels: HarnessLabels, key: string): number {
  const value = labels[key]
  assert.equal(typeof value, 'number', `labels.json has ${key}`)
  return value as number
}

function labelText(labels: HarnessLabels, key: string): string {
  const value = labels[key]
  assert.equal(typeof value, 'string', `labels.json has ${key}`)
  return value as string
}

// The seed: the harness-shaped dataset with the run's password, bot tokens and secret, its blobs
// under files/, checkpointed as bin/seed leaves it; then the harness's own edits with sqlite3.
async function seedRun(t: TestContext, env: Record<string, string>): Promise<Run> {
  const root = mkdtempSync(join(tmpdir(), 'campfire-container-'))
  t.after(() => rmSync(root, { recursive: true, force: true }))
  // The harness's sqlite3 runs as another user: it must reach the run directory.
  chmodSync(root, 0o755)
  const storage = join(root, 'storage')
  for (const mount of ['db', 'files', 'logs']) mkdirSync(join(storage, mount), { recursive: true })
  chmodSync(storage, 0o755)
  const db = join(storage, 'db', 'production.sqlite3')
  const store = new Store({ path: db, migrationsDir: join(ROOT, 'migrations') })
  let labels: HarnessLabels
  try {
    labels = await seedHarness(store, {
      secretKeyBase: env.SECRET_KEY_BASE!, filesPath: join(storage, 'files'), password: env.VERIFICATION_PASSWORD!, cost: 12,
      botTokens: { bender: env.VERIFICATION_BENDER_TOKEN, deploy_bot: env.VERIFICATION_DEPLOY_TOKEN, old_bot: env.VERIFICATION_OLD_TOKEN },
    })
    store.writeDb.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    store.close()
  }
  assert.ok(readdirSync(join(storage, 'files')).length > 0, 'the seed\'s blobs are under files/')
  const sql = (script: string) => execFileSync('sqlite3', ['-init', '/dev/null', '-cmd', '.timeout 10000', db], { input: script, encoding: 'utf8' })
  const value = (query: string) => Number(sql(`${query};`).trim())
  sql(UNDO_MIGRATIONS)
  assert.equal(value('PRAGMA user_version'), UNDONE_TO)

  // compare.rb, before start: the closed port 9 for every push and webhook, then the sanity checks.
  const pushes = value('SELECT COUNT(*) FROM push_subscriptions')
  const hooks = value('SELECT COUNT(*) FROM webhooks')
  assert.ok(pushes >= 1 && hooks >= 1, `the seed has push subscriptions (${pushes}) and webhooks (${hooks}) to rewrite`)
  sql(`UPDATE push_subscriptions SET endpoint = 'https://127.0.0.1:9/push/' || id;
       UPDATE webhooks SET url = 'http://127.0.0.1:9/hook/' || id;`)
  assert.equal(value("SELECT COUNT(*) FROM push_subscriptions WHERE endpoint = 'https://127.0.0.1:9/push/' || id"), pushes)
  assert.equal(value("SELECT COUNT(*) FROM webhooks WHERE url = 'http://127.0.0.1:9/hook/' || id"), hooks)
  const watercooler = value(`SELECT COUNT(*) FROM messages WHERE room_id = ${labelId(labels, 'rooms.watercooler')}`)
  assert.ok(watercooler > 50, `the busy room has ${watercooler} messages; the harness wants more than 50`)

  const envFile = join(root, 'reference.env')
  writeFileSync(envFile, Object.entries(env).map(([key, v]) => `${key}=${v}\n`).join(''), { mode: 0o600 })
  return {
    root, storage, db, envFile, labels, password: env.VERIFICATION_PASSWORD!,
    initialMaxId: value('SELECT MAX(id) FROM messages'), hqCount: value(`SELECT COUNT(*) FROM messages WHERE room_id = ${labelId(labels, 'rooms.hq')}`),
  }
}

// ---------------------------------------------------------------------------------------------
// The server, as `docker run -d … <image>` starts it: no command, so the image's CMD, with the
// image's ENV overridden by every -e pair (the env file's lines). Without an engine it runs here,
// and only the storage path differs: the three mounts are folders of the run directory instead
// of /rails/storage. With CAMPFIRE_CONTAINER_IMAGE it is that image, run by CONTAINER_ENGINE
// (default docker; "podman --runtime runc" where podman runs on cgroup v1) with the harness's
// own docker run: host network, the env file, the three bind mounts.

const IMAGE = process.env.CAMPFIRE_CONTAINER_IMAGE?.trim() || null
const ENGINE = (process.env.CONTAINER_ENGINE?.trim() || 'docker').split(/\s+/)

interface Started {
  // The server's first process (the cluster's primary), whose descendants are the workers and the redis-server.
  pid: number
  baseUrl: string
  output: () => string
  readyMs: number
  // docker exec --user root <container> chmod -R a+rwX /rails/storage/db
  openDatabaseFolder(): void
  // SIGTERM, and how the server's first process ended.
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  // Where the local redis-server's socket folder is visible from here (null: inside a container).
  socketFolderOf(redisCmdline: string): string | null
}

function imageCommand(recipe: ImageRecipe): { command: string; args: string[]; env: Record<string, string> } {
  const [program, ...args] = recipe.cmd
  assert.equal(program, 'node', 'the image runs node')
  // Values built from build arguments (GIT_REVISION) are empty unless the build gives them.
  const env = Object.fromEntries(Object.entries(recipe.env).filter(([, value]) => !value.includes('${')))
  return { command: process.execPath, args, env }
}

async function startAsImage(t: TestContext, recipe: ImageRecipe, run: Run): Promise<Started> {
  return IMAGE ? startContainer(t, IMAGE, run) : startCommand(t, recipe, run)
}

async function startCommand(t: TestContext, recipe: ImageRecipe, run: Run): Promise<Started> {
  const { command, args, env: imageEnv } = imageCommand(recipe)
  const fromFile = readEnvFile(run.envFile)
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: run.root,
    ...imageEnv,
    CAMPFIRE_STORAGE_PATH: run.storage,
    ...fromFile,
    ...(process.env.REDIS_SERVER_PATH ? { REDIS_SERVER_PATH } : {}),
  }
  assert.equal(env.REDIS_URL, undefined, 'no REDIS_URL: the entry point starts its own redis-server')
  const started = performance.now()
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      await exited
    }
  })
  const baseUrl = `http://127.0.0.1:${fromFile.HTTP_PORT}`
  const running = () => child.exitCode === null && child.signalCode === null
  await pollUp(baseUrl, running, () => log, started)
  return {
    pid: child.pid!,
    baseUrl,
    output: () => log,
    readyMs: performance.now() - started,
    openDatabaseFolder: () => execFileSync('chmod', ['-R', 'a+rwX', join(run.storage, 'db')]),
    stop: () => {
      child.kill('SIGTERM')
      return exited
    },
    socketFolderOf: (cmdline) => dirname(/unixsocket:(\S+)/.exec(cmdline)![1]!),
  }
}

async function startContainer(t: TestContext, image: string, run: Run): Promise<Started> {
  const engine = (...args: string[]) => execFileSync(ENGINE[0]!, [...ENGINE.slice(1), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
  const name = `cf-native-bench-${process.pid}`
  // The harness copies the seed as its own user; the image's user (uid 1000, as upstream's) writes there.
  execFileSync('chown', ['-R', '1000:1000', run.storage])
  const mounts = ['db', 'files', 'logs'].flatMap((mount) => ['--volume', `${join(run.storage, mount)}:/rails/storage/${mount}`])
  const started = performance.now()
  engine('run', '-d', '--name', name, '--network', 'host', '--env-file', run.envFile, ...mounts, image)
  t.after(() => void engine('rm', '-f', name))
  const fromFile = readEnvFile(run.envFile)
  const baseUrl = `http://127.0.0.1:${fromFile.HTTP_PORT}`
  const logs = () => engine('logs', name)
  const running = () => engine('inspect', '--format', '{{.State.Running}}', name) === 'true'
  await pollUp(baseUrl, running, logs, started)
  const readyMs = performance.now() - started
  // PID 1 is tini; the server's primary is its child.
  const init = Number(engine('inspect', '--format', '{{.State.Pid}}', name))
  const primary = processes().find((p) => p.ppid === init && p.cmdline.includes('dist/container.js'))
  assert.ok(primary, `the server runs under the image's init: ${JSON.stringify(descendants(init))}`)
  assert.equal(engine('exec', name, 'id', '-u'), '1000', 'the server runs as uid 1000')
  t.diagnostic(`image ${image}: ${engine('image', 'inspect', '--format', '{{.Size}}', image)} bytes, revision label "${engine('image', 'inspect', '--format', '{{index .Config.Labels "org.opencontainers.image.revision"}}', image)}"`)
  return {
    pid: primary.pid,
    baseUrl,
    output: logs,
    readyMs,
    openDatabaseFolder: () => void engine('exec', '--user', 'root', name, 'chmod', '-R', 'a+rwX', '/rails/storage/db'),
    stop: async () => {
      engine('kill', '--signal', 'TERM', name)
      const code = Number(engine('wait', name))
      return { code, signal: null }
    },
    socketFolderOf: () => null,
  }
}

// compare.rb's readiness: GET /up without a cookie, 1 s to connect and to answer, every 0.1 s,
// 200 within 90 s of the start, else the logs and the end of the run.
async function pollUp(baseUrl: string, running: () => boolean, log: () => string, started: number): Promise<void> {
  for (;;) {
    if (!running()) assert.fail(`the server exited before /up answered:\n${log()}`)
    const status = await fetch(`${baseUrl}/up`, { signal: AbortSignal.timeout(1000) }).then(
      async (response) => (await response.arrayBuffer(), response.status),
      () => 0,
    )
    if (status === 200) return
    if (performance.now() - started > READY_WITHIN_MS) assert.fail(`GET /up did not answer 200 within ${READY_WITHIN_MS / 1000} s (last: ${status}):\n${log()}`)
    await sleep(100)
  }
}

// ---------------------------------------------------------------------------------------------
// Requests as the load generator makes them: host, cookie and Accept-Encoding, nothing else.

const wire = (answer: Answer): WireResponse => ({ status: answer.status, headers: answer.headers, wire: answer.wire })

async function send(client: HttpClient, spec: RequestSpec): Promise<Answer> {
  const answer = await client.request({ decode: false, timeoutMs: 30_000, ...spec })
  if (isFailure(answer)) assert.fail(`${spec.method ?? 'GET'} ${spec.path}: ${answer.error}`)
  return answer
}

function workerOf(answer: Answer): number {
  const match = /worker;desc=(\d+)/.exec(String(answer.headers['server-timing'] ?? ''))
  assert.ok(match, `Server-Timing names the worker: ${answer.headers['server-timing']}`)
  return Number(match[1])
}

// `loadgen login` (§1.5): GET /session/new with no cookie, then POST /session with the jar,
// sec-fetch-site: same-origin and no Origin; 302 and a session_token.
async function harnessLogin(client: HttpClient, email: string, password: string): Promise<string> {
  const jar = new Map<string, string>()
  const keep = (answer: Answer) => {
    const lines = answer.headers['set-cookie'] ?? []
    for (const line of lines) {
      const pair = line.split(';')[0]!
      const at = pair.indexOf('=')
      if (at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1))
    }
  }
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
  keep(await send(client, { path: '/session/new', headers: {} }))
  const answer = await send(client, {
    method: 'POST',
    path: '/session',
    headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
    body: `email_address=${harnessUrlencode(email)}&password=${harnessUrlencode(password)}`,
  })
  keep(answer)
  assert.equal(answer.status, 302, `login failed: ${answer.status}`)
  assert.ok(jar.has('session_token'), 'login sets session_token')
  return cookie()
}

function excerpt(answer: Answer): string {
  return `${answer.status} ${answer.headers['content-type']} ${JSON.stringify(answer.body.subarray(0, 200).toString())}`
}

// ---------------------------------------------------------------------------------------------
// Processes: what the server started, read from /proc (no ps needed).

interface Proc {
  pid: number
  ppid: number
  state: string
  cmdline: string
}

function processes(): Proc[] {
  const found: Proc[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const [state = '', ppid = '0'] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      found.push({ pid: Number(entry), ppid: Number(ppid), state, cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim() })
    } catch {}
  }
  return found
}

function descendants(pid: number): Proc[] {
  const all = processes()
  const found: Proc[] = []
  const walk = (parent: number) => {
    for (const proc of all.filter((p) => p.ppid === parent)) {
      found.push(proc)
      walk(proc.pid)
    }
  }
  walk(pid)
  return found
}

// Gone, or a zombie waiting for whoever inherited it.
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

// ---------------------------------------------------------------------------------------------

// `npm run build`'s compile step into dist/, as the image's build stage runs it: once for the file.
let built = false
function buildAsTheImageDoes(): void {
  if (!built) execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'server', 'build', 'server.ts')], { cwd: ROOT, stdio: 'pipe' })
  built = true
}

test("the image's command serves the harness's contract on storage laid out as its mounts", async (t) => {
  const recipe = readDockerfile(join(ROOT, 'Dockerfile'))

  await t.test('the Dockerfile builds the image the harness can run', () => {
    const major = process.versions.node.split('.')[0]
    for (const stage of recipe.stages) assert.match(stage, new RegExp(`^node:${major}-bookworm(-slim)?\\b`), 'official Node images of the tested major, Debian bookworm')
    assert.deepEqual(recipe.entrypoint, ['/usr/bin/tini', '--'])
    const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!
    const startFlags = /node((?:\s+--[\w-]+(?:=\S+)?)*)\s+dist\/main\.js/.exec(start)![1]!.trim().split(/\s+/)
    assert.deepEqual(recipe.cmd, ['node', ...startFlags, 'dist/container.js'], "npm start's node flags, through the container's entry point")
    assert.equal(recipe.workdir, '/rails')
    assert.ok(recipe.user && !/^(root|0)(:|$)/.test(recipe.user), 'runs as a user other than root')
    assert.equal(recipe.env.CAMPFIRE_STORAGE_PATH, '/rails/storage')
    assert.equal(recipe.env.RAILS_ENV, 'production')
    assert.ok(recipe.env.HTTP_PORT, 'a default port')
    assert.ok(recipe.args.includes('GIT_REVISION'))
    assert.equal(recipe.labels['org.opencontainers.image.revision'], '${GIT_REVISION}')
    for (const pkg of ['redis-server', 'ffmpeg', 'sqlite3', 'ca-certificates', 'tini']) assert.ok(recipe.packages.includes(pkg), `installs ${pkg}`)
    for (const heavy of ['chromium', 'python3', 'g++']) assert.ok(!recipe.packages.includes(heavy), `the runtime stage has no ${heavy}`)
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim())
    for (const path of ['node_modules', 'dist', 'test', 'tmp', 'storage', '.git']) assert.ok(ignored.includes(path), `.dockerignore leaves out ${path}`)
  })

  // The image's command runs compiled JavaScript; build it as the image's build stage does.
  buildAsTheImageDoes()
  assert.ok(existsSync(join(ROOT, 'dist', 'container.js')) && existsSync(join(ROOT, 'dist', 'main.js')))
  assert.ok(findProgram(REDIS_SERVER_PATH), `${REDIS_SERVER_PATH} is missing: install Debian's redis-server (apt-get install -y redis-server), as npm test's pretest does where it can`)

  const env = referenceEnv(await freePort(), await freePort())
  const run = await seedRun(t, env)
  const server = await startAsImage(t, recipe, run)
  const { labels } = run
  const id = (key: string) => labelId(labels, key)
  const text = (key: string) => labelText(labels, key)
  const hq = id('rooms.hq')
  const watercooler = id('rooms.watercooler')

  server.openDatabaseFolder()
  for (const file of readdirSync(join(run.storage, 'db'))) assert.equal(statSync(join(run.storage, 'db', file)).mode & 0o666, 0o666, `${file} is open to every user`)
  const reader = new Sqlite3Reader(run.db)
  // The preflight's independent SQL (contracts.rb) reads through its own connection.
  const preflight = new BetterSqlite3(run.db, { readonly: true, fileMustExist: true })
  preflight.pragma('busy_timeout = 10000')
  t.after(() => preflight.close())
  const expected: Expectations = expectedWindows(preflight, { watercooler, hq, busy060: id('messages.busy_060'), davidEmail: text('emails.david') })

  const client = new HttpClient(server.baseUrl, 16)
  t.after(() => client.close())
  let cookie = ''

  await t.test('/up answers 200 within 90 s of the start, with three workers and the local redis-server beside them', () => {
    assert.ok(server.readyMs < READY_WITHIN_MS, `${Math.round(server.readyMs)} ms`)
    const children = descendants(server.pid)
    const workers = children.filter((p) => p.cmdline.includes('dist/container.js'))
    const redis = children.filter((p) => p.cmdline.includes('redis-server'))
    assert.equal(workers.length, WORKERS, children.map((p) => p.cmdline).join('\n'))
    assert.equal(redis.length, 1, children.map((p) => p.cmdline).join('\n'))
    assert.match(redis[0]!.cmdline, /unixsocket:\/.*\/redis\.sock/, 'on a Unix socket, never a port of the host network')
  })

  await t.test('/up answers 200 within 90 s on a seed that needs migrations, and the start has applied them', () => {
    assert.deepEqual(reader.pragma('user_version'), [{ user_version: LATEST_MIGRATION }])
    const names = reader.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'campfire_%' AND type IN ('index', 'table')").pluck().all()
    for (const name of ['campfire_index_rooms_on_created_at_and_id', 'campfire_index_users_on_status_and_created_at', 'campfire_worker_connections']) assert.ok(names.includes(name), `${name} is back`)
  })

  await t.test('the harness signs in with the seeded password', async () => {
    cookie = await harnessLogin(client, text('emails.david'), run.password)
  })

  const get = (path: string, gzip = true, on = client) => send(on, { path, headers: { cookie, 'accept-encoding': gzip ? 'gzip' : 'identity' } })

  // The preflight on one gzip response, then the load check on it and on fresh ones, gzip and not.
  const validateRoute = async (kind: Exclude<RouteKind, 'post_message'>, path: string): Promise<Contract> => {
    const first = await get(path)
    const { contract, failures } = prepareContract(kind, wire(first), preflight, expected, watercooler)
    assert.deepEqual(failures, [], `${kind} preflight: ${excerpt(first)}`)
    for (const [label, answer] of [['preflight response', first], ['gzip', await get(path)], ['identity', await get(path, false)]] as const) {
      assert.deepEqual(checkResponse(contract!, wire(answer)).failures, [], `${kind} (${label})`)
    }
    return contract!
  }

  await t.test('every read route passes its route contract', async () => {
    await validateRoute('room_show', `/rooms/${watercooler}`)
    await validateRoute('messages_page', `/rooms/${watercooler}/messages?before=${id('messages.busy_060')}`)
    await validateRoute('sidebar', '/users/me/sidebar')
    const search = await validateRoute('search', '/searches?q=coffee')
    assert.ok(search.messageIds!.length > 0)
    await validateRoute('avatar', `/users/${text('avatar_tokens.jason')}/avatar`)
    // `loadgen scrape`: the first stylesheet of the room page and the sidebar, fetched without Accept-Encoding.
    const scraped = scrape((await send(client, { path: `/rooms/${watercooler}`, headers: { cookie } })).body.toString() + (await send(client, { path: '/users/me/sidebar', headers: { cookie } })).body.toString())
    assert.ok(scraped.css, 'a /assets/….css href')
    await validateRoute('static_css', scraped.css!)
    await validateRoute('up', '/up')
  })

  const acknowledged: Acknowledgement[] = []
  await t.test('post_message answers every post with its one message, and the write audit reads each back with sqlite3 while the server runs', async () => {
    const roomPage = await get(`/rooms/${hq}`, false)
    const { contract, failures } = preparePostContract(wire(roomPage), hq)
    assert.deepEqual(failures, [], excerpt(roomPage))
    const mark = writeMark(reader.asDatabase(), hq)
    assert.deepEqual(mark, { initialCount: run.hqCount, initialMaxId: run.initialMaxId }, 'nothing wrote to the database before the posts')
    const post = async (i: number) => {
      const request = postRequest(hq, cookie, i % 4 !== 3)
      const answer = await send(client, { method: 'POST', path: request.url, headers: request.headers, body: request.payload })
      const verdict = checkResponse(contract!, wire(answer), request.token)
      assert.deepEqual(verdict.failures, [], `post ${i}: ${excerpt(answer)}`)
      acknowledged.push({ id: Number(verdict.messageId), token: request.token })
    }
    for (let i = 0; i < 8; i++) await post(i)
    await Promise.all(Array.from({ length: 16 }, (_, i) => post(8 + i)))
    assert.deepEqual(auditWrites(reader.asDatabase(), { roomId: hq, ...mark, acknowledged }), [])
    // The same audit, through the same reader, fails a write that was acknowledged but is not there.
    assert.notDeepEqual(auditWrites(reader.asDatabase(), { roomId: hq, ...mark, acknowledged: [...acknowledged.slice(1), { id: id('messages.busy_001'), token: 'bench write ffff' }] }), [])
  })

  await t.test('a post answered by one worker shows on the pages every other worker serves', async () => {
    // New connections go to the workers in turn; each serves (and caches) the write room first.
    const onEachWorker = async (path: string, want: (answer: Answer, worker: number) => void) => {
      const served = new Set<number>()
      for (let i = 0; i < 12 * WORKERS && served.size < WORKERS; i++) {
        const fresh = new HttpClient(server.baseUrl, 1)
        try {
          const answer = await get(path, false, fresh)
          const worker = workerOf(answer)
          want(answer, worker)
          served.add(worker)
        } finally {
          fresh.close()
        }
      }
      assert.equal(served.size, WORKERS, `answers from workers ${[...served].join(', ')}`)
    }
    await onEachWorker(`/rooms/${hq}`, (answer) => assert.equal(answer.status, 200))
    const poster = new HttpClient(server.baseUrl, 1)
    t.after(() => poster.close())
    const request = postRequest(hq, cookie, false)
    const answer = await send(poster, { method: 'POST', path: request.url, headers: request.headers, body: request.payload })
    assert.equal(answer.status, 200, excerpt(answer))
    const postedOn = workerOf(answer)
    const seenOn = new Set<number>()
    await onEachWorker(`/rooms/${hq}`, (page, worker) => {
      assert.ok(page.body.includes(request.token), `worker ${worker} shows the post worker ${postedOn} answered`)
      seenOn.add(worker)
    })
    assert.ok([...seenOn].some((worker) => worker !== postedOn))
  })

  await t.test('pushes and webhooks to the closed port fail fast and harmlessly', async () => {
    const write = (on: HttpClient, as: string, room: number, body: string) =>
      send(on, {
        method: 'POST',
        path: `/rooms/${room}/messages`,
        headers: { cookie: as, 'content-type': 'application/x-www-form-urlencoded', accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml', 'sec-fetch-site': 'same-origin' },
        body: `message%5Bbody%5D=${harnessUrlencode(body)}&message%5Bclient_message_id%5D=${hex(8)}`,
      })
    // David writes to Kevin, who is away and subscribed: his push to https://127.0.0.1:9 is refused
    // (not a push service's host) without holding the answer up.
    const pushed = performance.now()
    const toKevin = await write(client, cookie, id('rooms.david_and_kevin'), 'are you there?')
    assert.equal(toKevin.status, 200, excerpt(toKevin))
    assert.ok(performance.now() - pushed < 5000, 'answered without waiting for the push')
    // Kevin writes to Bender, whose webhook is http://127.0.0.1:9/hook/<id>: refused, and logged.
    const kevin = new HttpClient(server.baseUrl, 1)
    t.after(() => kevin.close())
    const kevinCookie = await harnessLogin(kevin, text('emails.kevin'), run.password)
    const toBender = await write(kevin, kevinCookie, id('rooms.bender_and_kevin'), 'deploy please')
    assert.equal(toBender.status, 200, excerpt(toBender))
    const deadline = Date.now() + 15_000
    while (!server.output().includes('webhook delivery failed') && Date.now() < deadline) await sleep(100)
    assert.match(server.output(), /webhook delivery failed/, 'the webhook was tried, and failed')
    assert.equal((await get('/up', false)).status, 200)
  })

  await t.test('SIGTERM stops the workers and then the redis-server, leaving no process behind', async () => {
    const children = descendants(server.pid)
    const redis = children.find((p) => p.cmdline.includes('redis-server'))!
    const socketFolder = server.socketFolderOf(redis.cmdline)
    if (socketFolder !== null) assert.ok(existsSync(socketFolder))
    const { code, signal } = await server.stop()
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, server.output())
    const deadline = Date.now() + 10_000
    while (children.some((p) => alive(p.pid)) && Date.now() < deadline) await sleep(50)
    assert.deepEqual(children.filter((p) => alive(p.pid)).map((p) => p.cmdline), [], 'every worker and the redis-server have exited')
    if (socketFolder !== null) assert.ok(!existsSync(socketFolder), 'the socket folder is removed')
    const errors = server.output().split('\n').filter((line) => /"level":(5|6)\d/.test(line))
    assert.deepEqual(errors, [], 'nothing was logged at error level')
  })

  await t.test('after the stop the database is whole and holds every acknowledged post', () => {
    assert.equal(reader.pragma('integrity_check')[0]!.integrity_check, 'ok')
    const ids = reader.prepare(`SELECT COUNT(*) FROM messages WHERE room_id = ? AND id > ?`).pluck().get(hq, run.initialMaxId)
    assert.equal(ids, acknowledged.length + 1)
  })
})

// ---------------------------------------------------------------------------------------------
// ONCE's backups: it runs /hooks/pre-backup inside the container, copies the storage folder while
// the server keeps running, and on a restore puts the folder back and runs /hooks/post-restore
// before the container starts. The hooks run here as the image's, from the image's WORKDIR.

function runHook(name: 'pre-backup' | 'post-restore', recipe: ImageRecipe, storage: string): string {
  const { env: imageEnv } = imageCommand(recipe)
  return execFileSync(join(ROOT, 'hooks', name), [], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...imageEnv, CAMPFIRE_STORAGE_PATH: storage, CAMPFIRE_APP_ROOT: ROOT },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

test('ONCE’s backup hooks: a storage folder copied live after /hooks/pre-backup and put back with /hooks/post-restore keeps every acknowledged post', async (t) => {
  const recipe = readDockerfile(join(ROOT, 'Dockerfile'))
  const copies = recipe.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args)
  assert.ok(copies.some((args) => /\/app\/hooks \/hooks$/.test(args)), 'the image has /hooks')
  for (const name of ['pre-backup', 'post-restore']) assert.ok(statSync(join(ROOT, 'hooks', name)).mode & 0o100, `hooks/${name} is executable`)
  buildAsTheImageDoes()

  const env = referenceEnv(await freePort(), await freePort())
  const run = await seedRun(t, env)
  const server = await startAsImage(t, recipe, run)
  const client = new HttpClient(server.baseUrl, 8)
  t.after(() => client.close())
  const cookie = await harnessLogin(client, labelText(run.labels, 'emails.david'), run.password)
  const hq = labelId(run.labels, 'rooms.hq')
  const post = async () => {
    const request = postRequest(hq, cookie, false)
    const answer = await send(client, { method: 'POST', path: request.url, headers: request.headers, body: request.payload })
    assert.equal(answer.status, 200, excerpt(answer))
    return request.token
  }
  const acknowledged = await Promise.all(Array.from({ length: 24 }, post))

  // Posts keep arriving while the hook runs and while the folder is copied, as on a live server.
  const busy = Promise.all(Array.from({ length: 8 }, post))
  const output = runHook('pre-backup', recipe, run.storage)
  assert.match(output, /snapshot of .* written to .*backups\/production\.sqlite3/)
  await busy
  const backup = mkdtempSync(join(tmpdir(), 'campfire-once-backup-'))
  t.after(() => rmSync(backup, { recursive: true, force: true }))
  execFileSync('cp', ['-a', run.storage, join(backup, 'storage')])
  assert.ok(existsSync(join(backup, 'storage', 'backups', 'production.sqlite3')), 'the snapshot travels with the folder')
  await server.stop()

  // The restore: the folder into a fresh place, the hook, then a fresh server on it.
  const restoredRoot = mkdtempSync(join(tmpdir(), 'campfire-once-restore-'))
  t.after(() => rmSync(restoredRoot, { recursive: true, force: true }))
  chmodSync(restoredRoot, 0o755)
  const storage = join(restoredRoot, 'storage')
  execFileSync('cp', ['-a', join(backup, 'storage'), storage])
  assert.match(runHook('post-restore', recipe, storage), /restored from/)
  const db = join(storage, 'db', 'production.sqlite3')
  assert.ok(!existsSync(`${db}-wal`) && !existsSync(`${db}-shm`), 'the live copy’s WAL files are gone')
  const restoredEnv = { ...env, HTTP_PORT: String(await freePort()), TARGET_PORT: String(await freePort()) }
  const envFile = join(restoredRoot, 'reference.env')
  writeFileSync(envFile, Object.entries(restoredEnv).map(([key, v]) => `${key}=${v}\n`).join(''), { mode: 0o600 })
  const restored = await startAsImage(t, recipe, { ...run, root: restoredRoot, storage, db, envFile })
  t.after(() => void restored.stop())

  const reader = new BetterSqlite3(db, { readonly: true, fileMustExist: true })
  t.after(() => reader.close())
  const bodies = new Set(reader.prepare("SELECT body FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id IN (SELECT id FROM messages WHERE room_id = ?)").pluck().all(hq) as string[])
  const missing = acknowledged.filter((token) => ![...bodies].some((body) => body.includes(token)))
  assert.deepEqual(missing, [], 'every post acknowledged before the hook ran is in the restored database')
  assert.equal(reader.pragma('integrity_check', { simple: true }), 'ok')
  const page = await fetch(`${restored.baseUrl}/up`)
  assert.equal(page.status, 200)
})
