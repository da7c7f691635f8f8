import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { tempStorage } from './helper.ts'
import { compiledServer } from './support/compiled-server.ts'
import { freePort } from './support/ports.ts'
import { ROOT } from './support/server-process.ts'

// The server as `npm start` runs it, booted with `env` on top of a good one (no SECRET_KEY_BASE, so
// a refused boot can be seen to leave no secret_key_base behind): its exit status and output.
async function boot(env: Record<string, string | undefined>, storage: string): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now()
  const base: Record<string, string | undefined> = { PATH: process.env.PATH, CAMPFIRE_STORAGE_PATH: storage, HTTP_PORT: '0', HTTP_BIND: '127.0.0.1', DISABLE_SSL: 'true', LOG_LEVEL: 'warn', LOG_FORMAT: 'json' }
  const merged = Object.fromEntries(Object.entries({ ...base, ...env }).filter((entry): entry is [string, string] => entry[1] !== undefined))
  const child = spawn(process.execPath, [await compiledServer()], { cwd: ROOT, env: merged, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  // A boot that neither refuses nor listens within the limit (the /proc case spun forever) fails.
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const code = await new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)))
  clearTimeout(timer)
  return { code, stdout, stderr, ms: Date.now() - started }
}

const OIDC = { OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'campfire', OIDC_CLIENT_SECRET: 'secret' }
const SMTP = { SMTP_URL: 'smtp://127.0.0.1:2525', MAIL_FROM: 'Campfire <campfire@example.com>', APP_URL: 'https://chat.example.com' }

// For each variable in docs/configuration.md's table: a bad value, what else it needs to be read,
// and what the one line names.
const BAD: Record<string, { env: Record<string, string | undefined>; says: RegExp }> = {
  SECRET_KEY_BASE: { env: { SECRET_KEY_BASE: 'short' }, says: /SECRET_KEY_BASE must be at least 32 characters/ },
  CAMPFIRE_REQUIRE_SECRET_KEY_BASE: { env: { CAMPFIRE_REQUIRE_SECRET_KEY_BASE: 'ture' }, says: /CAMPFIRE_REQUIRE_SECRET_KEY_BASE must be true or false/ },
  HTTP_PORT: { env: { HTTP_PORT: '70000' }, says: /HTTP_PORT must be a whole number from 0 to 65535, got "70000"/ },
  PORT: { env: { HTTP_PORT: undefined, PORT: 'eighty' }, says: /PORT must be a whole number from 0 to 65535, got "eighty"/ },
  HTTP_BIND: { env: { HTTP_BIND: 'not-an-address' }, says: /HTTP_BIND must be an IP address/ },
  HTTP_HEADERS_TIMEOUT: { env: { HTTP_HEADERS_TIMEOUT: '0' }, says: /HTTP_HEADERS_TIMEOUT must be a number of seconds/ },
  HTTP_REQUEST_TIMEOUT: { env: { HTTP_REQUEST_TIMEOUT: 'soon' }, says: /HTTP_REQUEST_TIMEOUT must be a number of seconds/ },
  HTTP_KEEP_ALIVE_TIMEOUT: { env: { HTTP_KEEP_ALIVE_TIMEOUT: '4000' }, says: /HTTP_KEEP_ALIVE_TIMEOUT must be a number of seconds/ },
  OIDC_ISSUER: { env: { ...OIDC, OIDC_ISSUER: 'ftp://id.example.com' }, says: /OIDC_ISSUER must be an https:\/\/ URL/ },
  OIDC_CLIENT_ID: { env: { ...OIDC, OIDC_CLIENT_ID: '' }, says: /OIDC_CLIENT_ID is needed too/ },
  OIDC_CLIENT_SECRET: { env: { ...OIDC, OIDC_CLIENT_SECRET: '' }, says: /OIDC_CLIENT_SECRET or OIDC_CLIENT_PRIVATE_KEY_FILE is needed too/ },
  OIDC_CLIENT_PRIVATE_KEY_FILE: { env: { ...OIDC, OIDC_CLIENT_SECRET: undefined, OIDC_CLIENT_PRIVATE_KEY_FILE: '/nonexistent/key.pem' }, says: /OIDC_CLIENT_PRIVATE_KEY_FILE cannot be read/ },
  OIDC_CLIENT_PRIVATE_KEY_ALG: { env: { ...OIDC, OIDC_CLIENT_PRIVATE_KEY_ALG: 'BOGUS' }, says: /OIDC_CLIENT_PRIVATE_KEY_ALG must be one of RS256/ },
  OIDC_ALLOWED_DOMAINS: { env: { ...OIDC, OIDC_ALLOWED_DOMAINS: 'example.com, not a domain' }, says: /OIDC_ALLOWED_DOMAINS takes email domains/ },
  OIDC_TIMEOUT_SECONDS: { env: { ...OIDC, OIDC_TIMEOUT_SECONDS: '0.5' }, says: /OIDC_TIMEOUT_SECONDS must be a number of seconds from 1 to 120, got "0.5"/ },
  SMTP_URL: { env: { ...SMTP, SMTP_URL: 'http://mail.example.com' }, says: /SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/ },
  MAIL_FROM: { env: { ...SMTP, MAIL_FROM: 'nobody' }, says: /MAIL_FROM must be one email address/ },
  APP_URL: { env: { APP_URL: 'https://chat.example.com/rooms' }, says: /APP_URL must be the http:\/\/ or https:\/\/ origin/ },
  CAMPFIRE_EMAIL_DELAY: { env: { CAMPFIRE_EMAIL_DELAY: 'later' }, says: /CAMPFIRE_EMAIL_DELAY must be a number of seconds/ },
  CAMPFIRE_CPU_LEDGER: { env: { CAMPFIRE_CPU_LEDGER: 'on' }, says: /CAMPFIRE_CPU_LEDGER must be true or false/ },
  METRICS_TOKEN: { env: { METRICS_TOKEN: 'secret' }, says: /METRICS_TOKEN must be at least 16 printable characters/ },
  METRICS_BIND: { env: { METRICS_BIND: '0.0.0.0:9394' }, says: /METRICS_BIND must be a loopback address and port/ },
  WEB_CONCURRENCY: { env: { WEB_CONCURRENCY: '0' }, says: /WEB_CONCURRENCY must be a whole number from 1 to 64/ },
  REDIS_URL: { env: { REDIS_URL: 'http://127.0.0.1:6379' }, says: /REDIS_URL must be a redis:\/\// },
  CAMPFIRE_STORAGE_PATH: { env: { CAMPFIRE_STORAGE_PATH: '/proc/nope' }, says: /the storage folder \/proc\/nope \(CAMPFIRE_STORAGE_PATH\) cannot be used/ },
  CAMPFIRE_MAX_UPLOAD_MB: { env: { CAMPFIRE_MAX_UPLOAD_MB: '0' }, says: /CAMPFIRE_MAX_UPLOAD_MB must be a positive number/ },
  CAMPFIRE_MIN_FREE_MB: { env: { CAMPFIRE_MIN_FREE_MB: '-1' }, says: /CAMPFIRE_MIN_FREE_MB must be a number of megabytes/ },
  RAILS_ENV: { env: { RAILS_ENV: '../../escape' }, says: /RAILS_ENV must be a plain name/ },
  DISABLE_SSL: { env: { DISABLE_SSL: 'ture' }, says: /DISABLE_SSL must be true or false \(or 1\/0, yes\/no\), got "ture"/ },
  TRUSTED_PROXIES: { env: { TRUSTED_PROXIES: 'the-proxy' }, says: /TRUSTED_PROXIES takes IP addresses/ },
  APP_VERSION: { env: { APP_VERSION: 'one\ntwo' }, says: /APP_VERSION must be printable text on one line/ },
  GIT_REVISION: { env: { APP_VERSION: '1.0', GIT_REVISION: 'abc\r' }, says: /GIT_REVISION must be printable text on one line/ },
  LOG_LEVEL: { env: { LOG_LEVEL: 'loud' }, says: /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"/ },
  RAILS_LOG_LEVEL: { env: { LOG_LEVEL: undefined, RAILS_LOG_LEVEL: 'loud' }, says: /LOG_LEVEL must be one of/ },
  LOG_FORMAT: { env: { LOG_FORMAT: 'xml' }, says: /LOG_FORMAT must be one of json, pretty/ },
  LITESTREAM_REPLICA_URL: { env: { LITESTREAM_REPLICA_URL: 'ftp://backups.example.com/campfire' }, says: /LITESTREAM_REPLICA_URL must be a s3:\/\// },
  LITESTREAM_PATH: { env: { LITESTREAM_REPLICA_URL: 'file:///tmp/nowhere', LITESTREAM_PATH: '/nonexistent/litestream' }, says: /LITESTREAM_REPLICA_URL is set, but \/nonexistent\/litestream is not an executable Litestream/ },
  BACKUP_SCHEDULE: { env: { BACKUP_SCHEDULE: 'every night' }, says: /BACKUP_SCHEDULE must be "daily HH:MM", "hourly" or a cron expression/ },
  BACKUP_KEEP: { env: { BACKUP_SCHEDULE: 'daily 03:00', BACKUP_KEEP: '0' }, says: /BACKUP_KEEP must be a number of backups from 1 to 10000, or an age/ },
  BACKUP_DESTINATION: { env: { BACKUP_SCHEDULE: 'daily 03:00', BACKUP_DESTINATION: 'ftp://backups.example.com/campfire' }, says: /BACKUP_DESTINATION must be a folder, a file:\/\/ URL or an s3:\/\/bucket\/prefix URL/ },
  BACKUP_S3_ENDPOINT: { env: { BACKUP_SCHEDULE: 'daily 03:00', BACKUP_DESTINATION: 's3://campfire-backups', BACKUP_S3_ENDPOINT: 'localhost:9000' }, says: /BACKUP_S3_ENDPOINT must be an http:\/\/ or https:\/\/ URL/ },
  CAMPFIRE_SYNCHRONOUS: { env: { CAMPFIRE_SYNCHRONOUS: 'sometimes' }, says: /CAMPFIRE_SYNCHRONOUS must be NORMAL or FULL/ },
  JOB_CONCURRENCY: { env: { JOB_CONCURRENCY: '500' }, says: /JOB_CONCURRENCY must be a whole number from 1 to 64, got "500"/ },
  CAMPFIRE_PAGE_CACHE: { env: { CAMPFIRE_PAGE_CACHE: 'maybe' }, says: /CAMPFIRE_PAGE_CACHE must be one of on, off/ },
  CAMPFIRE_SHELL_CACHE: { env: { CAMPFIRE_SHELL_CACHE: 'maybe' }, says: /CAMPFIRE_SHELL_CACHE must be one of on, off/ },
  CAMPFIRE_CODE_CACHE: { env: { CAMPFIRE_CODE_CACHE: 'maybe' }, says: /CAMPFIRE_CODE_CACHE must be one of on, off/ },
  CAMPFIRE_PAGE_CACHE_INVALIDATION: { env: { CAMPFIRE_PAGE_CACHE_INVALIDATION: 'never' }, says: /CAMPFIRE_PAGE_CACHE_INVALIDATION must be one of relevant, commit/ },
  CAMPFIRE_FRAGMENT_KEYS: { env: { CAMPFIRE_FRAGMENT_KEYS: 'all' }, says: /CAMPFIRE_FRAGMENT_KEYS must be one of shared, viewer, off/ },
  CAMPFIRE_FRAGMENT_KEY_SOURCE: { env: { CAMPFIRE_FRAGMENT_KEY_SOURCE: 'hash' }, says: /CAMPFIRE_FRAGMENT_KEY_SOURCE must be one of version, content/ },
  CAMPFIRE_PAGE_CACHE_MB: { env: { CAMPFIRE_PAGE_CACHE_MB: 'lots' }, says: /CAMPFIRE_PAGE_CACHE_MB must be a number of megabytes/ },
  CAMPFIRE_RESPONSE_CACHE_MB: { env: { CAMPFIRE_RESPONSE_CACHE_MB: '-5' }, says: /CAMPFIRE_PAGE_CACHE_MB must be a number of megabytes/ },
  CAMPFIRE_PAGE_CACHE_KB_PER_PERSON: { env: { CAMPFIRE_PAGE_CACHE_KB_PER_PERSON: 'some' }, says: /CAMPFIRE_PAGE_CACHE_KB_PER_PERSON must be a number of kilobytes/ },
  CAMPFIRE_FRAGMENT_CACHE_MB: { env: { CAMPFIRE_FRAGMENT_CACHE_MB: '-1' }, says: /CAMPFIRE_FRAGMENT_CACHE_MB must be a number of megabytes/ },
  CAMPFIRE_RESPONSE_MEMO: { env: { CAMPFIRE_RESPONSE_MEMO: 'always' }, says: /CAMPFIRE_RESPONSE_MEMO must be one of on, off/ },
  CAMPFIRE_RESPONSE_MEMO_MB: { env: { CAMPFIRE_RESPONSE_MEMO_MB: 'plenty' }, says: /CAMPFIRE_RESPONSE_MEMO_MB must be a number of megabytes/ },
  CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES: { env: { CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES: 'sometimes' }, says: /CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES must be one of allow, deny/ },
}

// The variables the server does not refuse, and why (each said so in the table).
const NOT_REFUSED: Record<string, string> = {
  OIDC_NAME: 'any label',
  OIDC_SCOPES: 'any scope names',
  VAPID_PUBLIC_KEY: 'an unusable pair turns Web Push off with one boot line',
  VAPID_PRIVATE_KEY: 'an unusable pair turns Web Push off with one boot line',
  FFMPEG_PATH: 'a missing program leaves videos without posters, with one boot line',
  FFPROBE_PATH: 'a missing program leaves videos without sizes, with one boot line',
  LITESTREAM_ACCESS_KEY_ID: 'read by Litestream, not the server',
  LITESTREAM_SECRET_ACCESS_KEY: 'read by Litestream, not the server',
  NODE_OPTIONS: 'node reads it itself, and refuses a bad flag before the server runs',
  AWS_ACCESS_KEY_ID: 'read by Litestream and the AWS SDK, not the server',
  AWS_SECRET_ACCESS_KEY: 'read by Litestream and the AWS SDK, not the server',
  BACKUP_S3_REGION: 'any region name',
  CHROMIUM_PATH: 'tests only',
  NGINX_PATH: 'tests only',
  CADDY_PATH: 'tests only',
  CAMPFIRE_TEST_SEED: 'tests only',
  VERIFICATION_PASSWORD: 'the seed script only',
  VERIFICATION_BENDER_TOKEN: 'the seed script only',
  VERIFICATION_DEPLOY_TOKEN: 'the seed script only',
  VERIFICATION_OLD_TOKEN: 'the seed script only',
  REDIS_SERVER_PATH: 'tests and the container entry point, which report a redis-server that will not start',
  CAMPFIRE_CONTAINER_IMAGE: 'tests only',
  CONTAINER_ENGINE: 'tests only',
}

// Every name in the first column of docs/configuration.md's table.
function documentedVariables(): string[] {
  const rows = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8').split('\n').filter((line) => line.startsWith('| `'))
  return [...new Set(rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!)))]
}

function assertRefused(result: { code: number | null; stdout: string; stderr: string }, says: RegExp, storage: string): void {
  const lines = result.stderr.trimEnd().split('\n')
  assert.equal(result.code, 78, `exit 78 (EX_CONFIG), got ${result.code}:\n${result.stderr}${result.stdout}`)
  assert.equal(lines.length, 1, `one line, no stack:\n${result.stderr}`)
  assert.match(lines[0]!, /^Campfire cannot start: /)
  assert.match(lines[0]!, says)
  assert.equal(result.stdout, '', 'nothing else is said')
  assert.ok(!existsSync(join(storage, 'secret_key_base')), 'a refused boot writes no secret_key_base')
}

test('every variable in docs/configuration.md is either refused at boot when bad, or said not to be', () => {
  const documented = documentedVariables()
  assert.ok(documented.length > 50, `found ${documented.length}`)
  for (const name of documented) assert.ok(name in BAD || name in NOT_REFUSED, `${name} has a bad value below, or a reason it accepts anything`)
  for (const name of [...Object.keys(BAD), ...Object.keys(NOT_REFUSED)]) assert.ok(documented.includes(name), `${name} is in the table`)
})

test('each variable with a bad value stops the real boot with one line, "Campfire cannot start: …", and exit status 78, writing nothing', { timeout: 600_000 }, async (t) => {
  for (const [name, { env, says }] of Object.entries(BAD)) {
    await t.test(name, async (t) => {
      const storage = join(tempStorage(t), 'storage')
      assertRefused(await boot(env, storage), says, storage)
    })
  }
})

test('a storage folder that cannot be used stops the boot with one line and exit 78, at once', async (t) => {
  const dir = tempStorage(t)
  const file = join(dir, 'a-file')
  writeFileSync(file, 'not a folder')
  const notSqlite = join(dir, 'not-sqlite')
  mkdirSync(join(notSqlite, 'db'), { recursive: true })
  writeFileSync(join(notSqlite, 'db', 'production.sqlite3'), 'hello, I am a text file that is long enough')
  const cases: [string, string, RegExp][] = [
    ['a file', file, /the storage folder .*a-file \(CAMPFIRE_STORAGE_PATH\) cannot be used: .*a-file is a file, not a folder/],
    ['a file above it', join(file, 'storage'), /is a file, not a folder/],
    ['a folder under /proc that cannot be made', '/proc/nope', /cannot be used: ENOENT/],
    // Read-only to this process whoever it runs as (root included): sysfs.
    ['a read-only folder', '/sys/kernel', /cannot be used: (EPERM|EROFS|EACCES)|is not writable/],
    ['a database file that is not SQLite', notSqlite, /production\.sqlite3 is not a SQLite database/],
  ]
  for (const [what, storage, says] of cases) {
    const result = await boot({ CAMPFIRE_STORAGE_PATH: storage }, storage)
    assertRefused(result, says, storage)
    assert.ok(result.ms < 10_000, `${what}: refused in ${result.ms} ms`)
  }
  assert.equal(readFileSync(join(notSqlite, 'db', 'production.sqlite3'), 'utf8'), 'hello, I am a text file that is long enough', 'the file is left as it was')
})

test('an address that is not this host’s, or a port in use, stops the boot with one line and exit 78', async (t) => {
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.after(() => blocker.close())
  const port = (blocker.address() as { port: number }).port
  const storage = join(tempStorage(t), 'storage')
  assertRefused(await boot({ HTTP_PORT: String(port) }, storage), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use by another program`), storage)
  assertRefused(await boot({ HTTP_PORT: undefined, PORT: String(port) }, storage), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`), storage)
  // TEST-NET-3: an address no host here has.
  assertRefused(await boot({ HTTP_BIND: '203.0.113.7' }, storage), /HTTP_BIND=203\.0\.113\.7 is not an address of this host/, storage)
})

test('PORT is listened on when HTTP_PORT is unset, and HTTP_PORT wins when both are set', async (t) => {
  const storage = join(tempStorage(t), 'storage')
  for (const [env, expected] of [[{ HTTP_PORT: undefined, PORT: '0' }, 'PORT'], [{ HTTP_PORT: '0', PORT: 'not used' }, 'HTTP_PORT']] as const) {
    const free = await freePort()
    const child = spawn(process.execPath, [await compiledServer()], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE: 'x'.repeat(64), HTTP_BIND: '127.0.0.1', DISABLE_SSL: 'true', LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...(expected === 'PORT' ? { PORT: String(free) } : { HTTP_PORT: String(free), PORT: env.PORT }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let log = ''
    child.stdout.on('data', (chunk) => (log += chunk))
    child.stderr.on('data', (chunk) => (log += chunk))
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`never listened:\n${log}`)), 60_000)
      const check = () => /Server listening at/.test(log) && (clearTimeout(timer), resolve())
      child.stdout.on('data', check)
      child.on('exit', () => reject(new Error(`exited:\n${log}`)))
    })
    assert.match(log, new RegExp(`Server listening at http://127\\.0\\.0\\.1:${free}\\b`), `${expected} is the port`)
    child.removeAllListeners('exit')
    child.kill('SIGTERM')
    await new Promise((resolve) => child.on('close', resolve))
  }
})
