import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { join, resolve } from 'node:path'
import { findProgram } from './build/debian-package.ts'
import { litestreamBinary, REPLICA_SCHEMES } from './litestream/binary.ts'
import { parseBoolean } from './lib/boolean-setting.ts'
import { makeFolder } from './lib/make-folder.ts'
import { defaultLogFormat, LOG_FORMATS, type LogFormat } from './lib/log-format.ts'
import { parseMailbox, type Mailbox } from './lib/mailbox.ts'
import { projectPath } from './lib/paths.ts'
import { validateVapidKeys } from './lib/vapid.ts'
import { OidcConfigError, readOidcConfig, type OidcConfig } from './oidc-config.ts'
import { BackupSettingsError, readBackupSettings, type BackupSettings } from './backup-config.ts'
import { MetricsConfigError, readMetricsConfig, type MetricsConfig } from './metrics-config.ts'

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'

export interface Config {
  readonly secretKeyBase: string
  readonly secretKeyBaseSource: 'env' | 'storage' | 'generated'
  readonly httpPort: number
  readonly httpBind: string
  readonly storagePath: string
  readonly environment: string
  readonly databasePath: string
  readonly filesPath: string
  // The largest attachment a message may carry (CAMPFIRE_MAX_UPLOAD_MB, default 100).
  readonly maxUploadBytes: number
  // The free space kept in reserve on the storage folder's filesystem (CAMPFIRE_MIN_FREE_MB,
  // default 256): uploads are refused below it, every write below a quarter of it (0: never).
  readonly minFreeBytes: number
  readonly disableSsl: boolean
  // Whether the server charges its CPU time to the parts of a navigation (CAMPFIRE_CPU_LEDGER;
  // server/lib/cpu-ledger.ts reads it as it loads, after this has refused a bad value).
  readonly cpuLedger: boolean
  // The proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (TRUSTED_PROXIES).
  readonly trustedProxies: readonly string[]
  readonly version: string
  readonly revision: string
  readonly vapid: { readonly publicKey: string; readonly privateKey: string } | null
  readonly vapidProblem: string | null
  readonly logLevel: LogLevel
  // JSON lines, or readable ones (LOG_FORMAT=json|pretty; unset: readable on a terminal).
  readonly logFormat: LogFormat
  readonly synchronous: 'NORMAL' | 'FULL'
  readonly passwordWorkers: number
  readonly cache: CacheConfig
  // Whether bots' webhooks may reach loopback and private networks
  // (CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES=allow|deny, default allow; see server/lib/webhook-request.ts).
  readonly webhookPrivateAddresses: 'allow' | 'deny'
  // The programs video posters and sizes come from (FFMPEG_PATH, FFPROBE_PATH; default: found on PATH).
  readonly ffmpegPath: string
  readonly ffprobePath: string
  // Worker processes serving HTTP and /cable on one port (WEB_CONCURRENCY, default 1: one
  // process, no other service). More than one needs REDIS_URL.
  readonly webConcurrency: number
  // Where broadcasts cross between processes, and the shared sign-in limit lives (REDIS_URL).
  readonly redisUrl: string | null
  // Action Cable's Redis channel prefix, campfire_<RAILS_ENV> as upstream's adapter names it.
  readonly cableChannelPrefix: string
  // How long a client may take over its headers (HTTP_HEADERS_TIMEOUT, 10 s) and its whole
  // request (HTTP_REQUEST_TIMEOUT, 60 s) before a 408, and keep an idle connection open
  // (HTTP_KEEP_ALIVE_TIMEOUT, 20 s), in seconds.
  readonly httpTimeouts: { readonly headersMs: number; readonly requestMs: number; readonly keepAliveMs: number }
  // Where Litestream streams the database (LITESTREAM_REPLICA_URL: s3://, file://, sftp://, gcs://,
  // abs://); null runs no Litestream, and our own checkpointer keeps the WAL bounded.
  readonly litestreamReplicaUrl: string | null
  // Single sign-on through an OpenID Connect provider (OIDC_*; null without OIDC_ISSUER).
  readonly oidc: OidcConfig | null
  // The origin people open Campfire at (APP_URL, e.g. https://chat.example.com): what links that
  // leave a request (emails, messages broadcast to others, bot replies) start with, never the
  // request's Host header. Required with email; without it those links follow the request.
  readonly appUrl: string | null
  // Email about missed mentions and Pings (docs/email.md): null without SMTP_URL.
  readonly email: EmailConfig | null
  readonly emailProblem: string | null
  // Backups the server takes by itself (BACKUP_SCHEDULE, BACKUP_KEEP, BACKUP_DESTINATION:
  // backup-config.ts); null without BACKUP_SCHEDULE.
  readonly backups: BackupSettings | null
  // Prometheus metrics (METRICS_TOKEN, METRICS_BIND; server/metrics-config.ts): null when off.
  readonly metrics: MetricsConfig | null
}

export interface EmailConfig {
  // SMTP_URL: smtp://user:pass@host:587 or smtps://user:pass@host:465.
  readonly smtpUrl: string
  // MAIL_FROM: the From header, e.g. "Campfire <campfire@example.com>", as its name and address.
  readonly from: Mailbox
  // CAMPFIRE_EMAIL_DELAY (seconds, default 600): how long a message waits unread before it is emailed.
  readonly delayMs: number
  // APP_URL: the origin every link in an email starts with.
  readonly origin: string
}

// The cache switches (docs/architecture.md, "Caching"): defaults are the fast settings; the others are the
// baselines the experiments compare against.
export interface CacheConfig {
  readonly pageCache: boolean
  // The viewer's shell (layout, nav, composer) of a room or search page, cached per person
  // around the shared part (CAMPFIRE_SHELL_CACHE); it lives in the page cache's memory.
  readonly shellCache: boolean
  readonly pageInvalidation: 'relevant' | 'commit'
  readonly fragmentKeys: 'shared' | 'viewer' | 'off'
  readonly fragmentKeySource: 'version' | 'content'
  // The page cache's budget: pageCacheBytes, or pageCacheBytesPerPerson for each active person
  // when that is more (0 when CAMPFIRE_PAGE_CACHE_MB sets the budget outright).
  readonly pageCacheBytes: number
  readonly pageCacheBytesPerPerson: number
  readonly fragmentCacheBytes: number
  // Whole responses of the cached read routes, sent again to the same request while the database
  // is at the same generation (CAMPFIRE_RESPONSE_MEMO, CAMPFIRE_RESPONSE_MEMO_MB; lib/response-memo.ts).
  readonly responseMemo: boolean
  readonly responseMemoBytes: number
  // V8's code cache of the compiled server (CAMPFIRE_CODE_CACHE), which dist/main.js reads before
  // this config is loaded (lib/code-cache.ts); checked here so that a wrong value stops the start.
  readonly codeCache: boolean
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

// Where the storage folder keeps what the server writes, from CAMPFIRE_STORAGE_PATH and
// RAILS_ENV alone: the admin scripts (server/admin/) find the database and files with it without
// reading, or needing, the rest of the configuration.
export interface StorageLocation {
  readonly storagePath: string
  readonly environment: string
  readonly databasePath: string
  readonly filesPath: string
  // The generated SECRET_KEY_BASE, kept when the variable is unset.
  readonly secretKeyBasePath: string
}

export function storageLocation(env: Env = process.env): StorageLocation {
  const storagePath = resolve(env.CAMPFIRE_STORAGE_PATH || 'storage')
  const environment = readEnvironment(env.RAILS_ENV)
  return Object.freeze({
    storagePath,
    environment,
    databasePath: join(storagePath, 'db', `${environment}.sqlite3`),
    filesPath: join(storagePath, 'files'),
    secretKeyBasePath: join(storagePath, 'secret_key_base'),
  })
}

// Reads and checks every setting; nothing is written. A SECRET_KEY_BASE generated here is kept in
// the storage folder by keepGeneratedSecret, once the boot has got far enough to need it, so a
// boot refused for anything else leaves no secret_key_base behind.
export function loadConfig(env: Env = process.env): Config {
  const { storagePath, environment, databasePath, filesPath, secretKeyBasePath } = storageLocation(env)
  const vapid = readVapid(env)
  const secret = readSecretKeyBase(env, secretKeyBasePath)
  const appUrl = readAppUrl(env.APP_URL)
  const listening = readListening(env)
  return Object.freeze({
    secretKeyBase: secret.value,
    secretKeyBaseSource: secret.source,
    ...listening,
    storagePath,
    environment,
    databasePath,
    filesPath,
    maxUploadBytes: readUploadLimit(env.CAMPFIRE_MAX_UPLOAD_MB),
    minFreeBytes: readMinFree(env.CAMPFIRE_MIN_FREE_MB),
    disableSsl: readBoolean('DISABLE_SSL', env.DISABLE_SSL),
    cpuLedger: readBoolean('CAMPFIRE_CPU_LEDGER', env.CAMPFIRE_CPU_LEDGER),
    trustedProxies: readTrustedProxies(env.TRUSTED_PROXIES),
    ...readVersions(env),
    vapid: vapid.keys,
    vapidProblem: vapid.problem,
    logLevel: readLogLevel(env),
    logFormat: readLogFormat(env),
    synchronous: readSynchronous(env.CAMPFIRE_SYNCHRONOUS),
    passwordWorkers: readWholeNumber('JOB_CONCURRENCY', env.JOB_CONCURRENCY, 2, 1, 64),
    cache: readCache(env),
    webhookPrivateAddresses: readChoice('CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES', env.CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES, ['allow', 'deny'] as const, 'allow'),
    ffmpegPath: env.FFMPEG_PATH || 'ffmpeg',
    ffprobePath: env.FFPROBE_PATH || 'ffprobe',
    ...readProcesses(env),
    cableChannelPrefix: `campfire_${environment}`,
    httpTimeouts: readHttpTimeouts(env),
    litestreamReplicaUrl: readReplication(env),
    oidc: readOidc(env),
    appUrl,
    ...readEmail(env, appUrl),
    backups: readBackups(env, storagePath, filesPath),
    metrics: readMetrics(env, listening.httpPort),
  })
}

function readMetrics(env: Env, httpPort: number): MetricsConfig | null {
  try {
    return readMetricsConfig(env, httpPort)
  } catch (error) {
    if (error instanceof MetricsConfigError) throw new ConfigError(error.message)
    throw error
  }
}

function readOidc(env: Env): OidcConfig | null {
  try {
    return readOidcConfig(env)
  } catch (error) {
    if (error instanceof OidcConfigError) throw new ConfigError(error.message)
    throw error
  }
}

function readBackups(env: Env, storagePath: string, filesPath: string): BackupSettings | null {
  try {
    return readBackupSettings(env, storagePath, filesPath)
  } catch (error) {
    if (error instanceof BackupSettingsError) throw new ConfigError(error.message)
    throw error
  }
}

function readSeconds(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback * 1000
  const seconds = Number(value)
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) throw new ConfigError(`${name} must be a number of seconds from 0 to 3600 (not 0), got "${value}"`)
  return Math.round(seconds * 1000)
}

// A slow client's headers are given less time than its body (a large upload), and neither is
// unbounded; the headers' limit can be no longer than the request's.
function readHttpTimeouts(env: Env): Config['httpTimeouts'] {
  const requestMs = readSeconds('HTTP_REQUEST_TIMEOUT', env.HTTP_REQUEST_TIMEOUT, 60)
  const headersMs = Math.min(readSeconds('HTTP_HEADERS_TIMEOUT', env.HTTP_HEADERS_TIMEOUT, 10), requestMs)
  return { headersMs, requestMs, keepAliveMs: readSeconds('HTTP_KEEP_ALIVE_TIMEOUT', env.HTTP_KEEP_ALIVE_TIMEOUT, 20) }
}

// APP_URL: an http(s) origin, nothing after the host and port but an optional "/".
function readAppUrl(value: string | undefined): string | null {
  const text = value?.trim()
  if (!text) return null
  const url = URL.canParse(text) ? new URL(text) : null
  const bare = url !== null && url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '' && !text.endsWith('?') && !text.endsWith('#')
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !bare) throw new ConfigError(`APP_URL must be the http:// or https:// origin people open Campfire at, e.g. https://chat.example.com, got "${text}"`)
  return url.origin
}

// Email is off without SMTP_URL (one boot line says so); with it, MAIL_FROM and APP_URL are required.
function readEmail(env: Env, appUrl: string | null): { email: EmailConfig | null; emailProblem: string | null } {
  const smtpUrl = env.SMTP_URL?.trim()
  const delay = env.CAMPFIRE_EMAIL_DELAY?.trim()
  const seconds = delay ? Number(delay) : 600
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 7 * 24 * 3600) throw new ConfigError(`CAMPFIRE_EMAIL_DELAY must be a number of seconds (up to a week), got "${delay}"`)
  if (!smtpUrl) return { email: null, emailProblem: 'SMTP_URL is not set' }
  let url: URL
  try {
    url = new URL(smtpUrl)
  } catch {
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtp://user:pass@mail.example.com:587')
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new ConfigError(`SMTP_URL must be an smtp:// or smtps:// URL, got a ${url.protocol} one`)
  const from = env.MAIL_FROM?.trim()
  if (!from) throw new ConfigError('MAIL_FROM is required with SMTP_URL, e.g. MAIL_FROM="Campfire <campfire@example.com>"')
  const mailbox = parseMailbox(from)
  if (!mailbox) throw new ConfigError(`MAIL_FROM must be one email address, optionally with a name, got "${from}"`)
  if (!appUrl) throw new ConfigError('APP_URL is required with SMTP_URL: the address people open Campfire at, which every link in an email starts with, e.g. APP_URL=https://chat.example.com')
  return { email: Object.freeze({ smtpUrl, from: mailbox, delayMs: Math.round(seconds * 1000), origin: appUrl }), emailProblem: null }
}

// One process needs nothing else; several share their broadcasts through Redis, so asking for
// them without REDIS_URL is refused at boot rather than giving each worker its own island.
function readProcesses(env: Env): { webConcurrency: number; redisUrl: string | null } {
  const webConcurrency = readWebConcurrency(env)
  const redisUrl = env.REDIS_URL?.trim() || null
  if (redisUrl !== null && !/^(rediss?:\/\/[^\s]+|unix:\/\/\/[^\s]+)$/.test(redisUrl)) throw new ConfigError(`REDIS_URL must be a redis://, rediss:// or unix:///<socket path> URL, got "${redisUrl}"`)
  if (webConcurrency > 1 && redisUrl === null) throw new ConfigError(`WEB_CONCURRENCY=${webConcurrency} needs REDIS_URL: worker processes share their broadcasts through Redis (unset WEB_CONCURRENCY, or set it to 1, to run one process with no other service)`)
  return { webConcurrency, redisUrl }
}

// WEB_CONCURRENCY alone (the container's entry point reads it before the rest of the config).
export function readWebConcurrency(env: Env = process.env): number {
  const raw = env.WEB_CONCURRENCY?.trim() ?? ''
  const webConcurrency = raw === '' ? 1 : Number(raw)
  if (!Number.isInteger(webConcurrency) || webConcurrency < 1 || webConcurrency > 64) throw new ConfigError(`WEB_CONCURRENCY must be a whole number from 1 to 64, got "${raw}"`)
  return webConcurrency
}

function readCache(env: Env): CacheConfig {
  const pageMbRaw = env.CAMPFIRE_PAGE_CACHE_MB ?? env.CAMPFIRE_RESPONSE_CACHE_MB
  const pageMb = readMegabytes('CAMPFIRE_PAGE_CACHE_MB', pageMbRaw, 64)
  const perPersonKb = pageMbRaw?.trim() ? 0 : readMegabytes('CAMPFIRE_PAGE_CACHE_KB_PER_PERSON', env.CAMPFIRE_PAGE_CACHE_KB_PER_PERSON, 0, 'kilobytes')
  const fragmentMb = readMegabytes('CAMPFIRE_FRAGMENT_CACHE_MB', env.CAMPFIRE_FRAGMENT_CACHE_MB, 32)
  const memoMb = readMegabytes('CAMPFIRE_RESPONSE_MEMO_MB', env.CAMPFIRE_RESPONSE_MEMO_MB, 16)
  const pageCache = readChoice('CAMPFIRE_PAGE_CACHE', env.CAMPFIRE_PAGE_CACHE, ['on', 'off'] as const, 'on') === 'on' && pageMb > 0
  const fragmentKeys = fragmentMb > 0 ? readChoice('CAMPFIRE_FRAGMENT_KEYS', env.CAMPFIRE_FRAGMENT_KEYS, ['shared', 'viewer', 'off'] as const, 'shared') : 'off'
  return Object.freeze({
    pageCache,
    shellCache: pageCache && readChoice('CAMPFIRE_SHELL_CACHE', env.CAMPFIRE_SHELL_CACHE, ['on', 'off'] as const, 'on') === 'on',
    pageInvalidation: readChoice('CAMPFIRE_PAGE_CACHE_INVALIDATION', env.CAMPFIRE_PAGE_CACHE_INVALIDATION, ['relevant', 'commit'] as const, 'relevant'),
    fragmentKeys,
    fragmentKeySource: readChoice('CAMPFIRE_FRAGMENT_KEY_SOURCE', env.CAMPFIRE_FRAGMENT_KEY_SOURCE, ['version', 'content'] as const, 'version'),
    pageCacheBytes: Math.round(pageMb * 1024 * 1024),
    pageCacheBytesPerPerson: Math.round(perPersonKb * 1024),
    fragmentCacheBytes: Math.round(fragmentMb * 1024 * 1024),
    responseMemo: readChoice('CAMPFIRE_RESPONSE_MEMO', env.CAMPFIRE_RESPONSE_MEMO, ['on', 'off'] as const, 'on') === 'on' && memoMb > 0,
    responseMemoBytes: Math.round(memoMb * 1024 * 1024),
    codeCache: readChoice('CAMPFIRE_CODE_CACHE', env.CAMPFIRE_CODE_CACHE, ['on', 'off'] as const, 'on') === 'on',
  })
}

// Each person has their own sidebar and a shell per room they open: a budget that is right for a
// team of fifty evicts most of them at three thousand. So the budget grows with the people there
// are at boot, unless CAMPFIRE_PAGE_CACHE_MB sets it outright.
export function pageCacheBudget(config: CacheConfig, activePeople: () => number): number {
  if (config.pageCacheBytesPerPerson === 0) return config.pageCacheBytes
  return Math.max(config.pageCacheBytes, activePeople() * config.pageCacheBytesPerPerson)
}

// With a replica named, the Litestream that will stream to it must be there (LITESTREAM_PATH, or
// the npm package's binary).
function readReplication(env: Env): string | null {
  const url = readReplicaUrl(env.LITESTREAM_REPLICA_URL)
  if (url === null) return null
  let binary: string
  try {
    binary = litestreamBinary(env)
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
  if (!findProgram(binary, env.PATH ?? process.env.PATH)) throw new ConfigError(`LITESTREAM_REPLICA_URL is set, but ${binary} is not an executable Litestream (LITESTREAM_PATH)`)
  return url
}

function readReplicaUrl(value: string | undefined): string | null {
  const url = value?.trim() || null
  if (url === null) return null
  const scheme = /^([a-z0-9]+):\/\/\S+$/.exec(url)?.[1]
  if (!scheme || !(REPLICA_SCHEMES as readonly string[]).includes(scheme)) throw new ConfigError(`LITESTREAM_REPLICA_URL must be a ${REPLICA_SCHEMES.map((s) => `${s}://`).join(', ')} URL, got "${url.replace(/\/\/[^/@]*@/, '//…@')}"`)
  return url
}

// LOG_FORMAT alone (the container's entry point logs before the rest of the config is read).
export function readLogFormat(env: Env = process.env, isTTY = process.stdout.isTTY === true): LogFormat {
  return readChoice('LOG_FORMAT', env.LOG_FORMAT, LOG_FORMATS, defaultLogFormat(isTTY))
}

// The version shown when neither APP_VERSION nor GIT_REVISION names one: package.json's.
let ownVersion: string | undefined
export function packageVersion(): string {
  ownVersion ??= String((JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version?: unknown }).version ?? '0')
  return ownVersion
}

function readChoice<T extends string>(name: string, value: string | undefined, choices: readonly T[], fallback: T): T {
  if (value === undefined || value.trim() === '') return fallback
  const choice = value.trim().toLowerCase() as T
  if (!choices.includes(choice)) throw new ConfigError(`${name} must be one of ${choices.join(', ')}, got "${value}"`)
  return choice
}

function readMegabytes(name: string, value: string | undefined, fallback: number, unit = 'megabytes (0 turns the cache off)'): number {
  if (value === undefined || value.trim() === '') return fallback
  const amount = Number(value)
  if (!Number.isFinite(amount) || amount < 0) throw new ConfigError(`${name} must be a number of ${unit}, got "${value}"`)
  return amount
}

function readUploadLimit(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 100 * 1024 * 1024
  const mb = Number(value)
  if (!Number.isFinite(mb) || mb <= 0) throw new ConfigError(`CAMPFIRE_MAX_UPLOAD_MB must be a positive number of megabytes, got "${value}"`)
  return Math.round(mb * 1024 * 1024)
}

function readMinFree(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 256 * 1024 * 1024
  const mb = Number(value)
  if (!Number.isFinite(mb) || mb < 0) throw new ConfigError(`CAMPFIRE_MIN_FREE_MB must be a number of megabytes, 0 or more, got "${value}"`)
  return Math.round(mb * 1024 * 1024)
}

// A client's address decides its sign-in rate limit and its bans, so forwarded headers are
// believed only from proxies the operator names: none unless TRUSTED_PROXIES lists addresses,
// CIDR ranges or the names loopback, linklocal and uniquelocal (a proxy on the same host is
// `loopback`). Trusting every private range by default, as Rails does, would let anyone on the
// server's network choose their own address.
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

function readTrustedProxies(value: string | undefined): readonly string[] {
  const entries = (value ?? '').split(/[\s,]+/).filter((entry) => entry !== '')
  for (const entry of entries) {
    if (PROXY_NAMES.has(entry.toLowerCase()) || isAddressOrRange(entry)) continue
    throw new ConfigError(`TRUSTED_PROXIES takes IP addresses, CIDR ranges, loopback, linklocal or uniquelocal, separated by commas; got "${entry}"`)
  }
  return Object.freeze(entries.map((entry) => (PROXY_NAMES.has(entry.toLowerCase()) ? entry.toLowerCase() : entry)))
}

function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  if (prefix === undefined) return true
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128)
}

// One reading of every on/off variable (server/lib/boolean-setting.ts); a value that is neither is
// refused, never taken as off.
function readBoolean(name: string, value: string | undefined, fallback = false): boolean {
  const parsed = parseBoolean(value)
  if (parsed === null) throw new ConfigError(`${name} must be true or false (or 1/0, yes/no), got "${value}"`)
  return parsed ?? fallback
}

function readWholeNumber(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  const raw = value?.trim() ?? ''
  if (raw === '') return fallback
  const n = Number(raw)
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${value}"`)
  return n
}

// HTTP_PORT, else PORT (what many Node hosts set), else 3000; HTTP_PORT wins when both are set.
// 0 asks the system for any free port, which the "Server listening at" line then names (the
// tests start their servers so). HTTP_BIND is an IP address, or localhost.
function readListening(env: Env): { httpPort: number; httpBind: string } {
  const name = env.HTTP_PORT?.trim() ? 'HTTP_PORT' : 'PORT'
  const httpPort = readWholeNumber(name, env[name], 3000, 0, 65535)
  const bind = env.HTTP_BIND?.trim() || '0.0.0.0'
  if (isIP(bind) === 0 && bind !== 'localhost') throw new ConfigError(`HTTP_BIND must be an IP address of this host (e.g. 0.0.0.0, 127.0.0.1 or ::) or localhost, got "${env.HTTP_BIND}"`)
  return { httpPort, httpBind: bind }
}

// RAILS_ENV names the database file inside <storage>/db, so it is a plain name: no path.
function readEnvironment(value: string | undefined): string {
  const environment = value?.trim() || 'production'
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(environment)) throw new ConfigError(`RAILS_ENV must be a plain name (letters, digits, - and _), e.g. production, got "${value}"`)
  return environment
}

// Sent as the X-Version and X-Rev headers, so printable text on one line.
function readVersions(env: Env): { version: string; revision: string } {
  for (const name of ['APP_VERSION', 'GIT_REVISION']) {
    if (/[\x00-\x1f\x7f]/.test(env[name] ?? '')) throw new ConfigError(`${name} must be printable text on one line, got ${JSON.stringify(env[name])}`)
  }
  return { version: env.APP_VERSION || env.GIT_REVISION || packageVersion(), revision: env.GIT_REVISION || env.APP_VERSION || '0' }
}

export function readLogLevel(env: Env = process.env): LogLevel {
  const value = env.LOG_LEVEL || env.RAILS_LOG_LEVEL
  const level = (value || 'info').toLowerCase() as LogLevel
  if (!LOG_LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`)
  return level
}

function readSynchronous(value: string | undefined): 'NORMAL' | 'FULL' {
  const mode = (value || 'NORMAL').toUpperCase()
  if (mode !== 'NORMAL' && mode !== 'FULL') throw new ConfigError(`CAMPFIRE_SYNCHRONOUS must be NORMAL or FULL, got "${value}"`)
  return mode
}

function readVapid(env: Env) {
  const publicKey = env.VAPID_PUBLIC_KEY?.trim()
  const privateKey = env.VAPID_PRIVATE_KEY?.trim()
  if (!publicKey && !privateKey) return { keys: null, problem: 'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are not set' }
  const problem = validateVapidKeys(publicKey ?? '', privateKey ?? '')
  return problem ? { keys: null, problem } : { keys: { publicKey: publicKey!, privateKey: privateKey! }, problem: null }
}

// A missing SECRET_KEY_BASE is generated once and kept in storage so restarts keep people
// signed in; CAMPFIRE_REQUIRE_SECRET_KEY_BASE turns that off for deployments that want the env var.
function readSecretKeyBase(env: Env, file: string): { value: string; source: Config['secretKeyBaseSource'] } {
  const required = readBoolean('CAMPFIRE_REQUIRE_SECRET_KEY_BASE', env.CAMPFIRE_REQUIRE_SECRET_KEY_BASE)
  const fromEnv = env.SECRET_KEY_BASE?.trim()
  if (fromEnv) {
    if (fromEnv.length < 32) throw new ConfigError('SECRET_KEY_BASE must be at least 32 characters (generate one with: openssl rand -hex 64)')
    return { value: fromEnv, source: 'env' }
  }
  if (required) {
    throw new ConfigError('SECRET_KEY_BASE is required but not set (generate one with: openssl rand -hex 64)')
  }
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim()
    if (stored.length >= 32) return { value: stored, source: 'storage' }
    throw new ConfigError(`${file} does not hold a usable secret; delete it or set SECRET_KEY_BASE`)
  }
  return { value: randomBytes(64).toString('hex'), source: 'generated' }
}

// Keeps a SECRET_KEY_BASE loadConfig generated in <storage>/secret_key_base (the storage folder
// exists by then), so the next boot, and a cluster's workers, use the same one.
export function keepGeneratedSecret(config: Config): void {
  if (config.secretKeyBaseSource !== 'generated') return
  const file = join(config.storagePath, 'secret_key_base')
  try {
    makeFolder(config.storagePath)
    writeFileSync(file, config.secretKeyBase + '\n', { mode: 0o600, flag: 'wx' })
  } catch (error) {
    throw new ConfigError(`SECRET_KEY_BASE is not set and ${file} cannot be written (${(error as Error).message}); set SECRET_KEY_BASE`)
  }
}
