import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createECDH } from 'node:crypto'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, keepGeneratedSecret, loadConfig, pageCacheBudget, readLogFormat } from '../server/config.ts'
import { tempStorage } from './helper.ts'

function vapidPair() {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  // A private key with a leading zero byte comes back one byte short; keys are 32 bytes.
  const privateKey = Buffer.concat([Buffer.alloc(32), ecdh.getPrivateKey()]).subarray(-32)
  return { VAPID_PUBLIC_KEY: ecdh.getPublicKey().toString('base64url'), VAPID_PRIVATE_KEY: privateKey.toString('base64url') }
}

test('defaults follow upstream: port 3000, storage/db/production.sqlite3, files under storage/files', (t) => {
  const storage = tempStorage(t)
  const config = loadConfig({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE: 'x'.repeat(64) })
  assert.equal(config.httpPort, 3000)
  assert.equal(config.databasePath, join(storage, 'db', 'production.sqlite3'))
  assert.equal(config.filesPath, join(storage, 'files'))
  assert.equal(config.version, JSON.parse(readFileSync('package.json', 'utf8')).version, "package.json's version")
  assert.notEqual(config.version, '0')
  assert.equal(config.disableSsl, false)
})

test('logs are readable lines on a terminal and JSON elsewhere, unless LOG_FORMAT says which', () => {
  assert.equal(readLogFormat({}, true), 'pretty')
  assert.equal(readLogFormat({}, false), 'json')
  assert.equal(readLogFormat({ LOG_FORMAT: 'json' }, true), 'json')
  assert.equal(readLogFormat({ LOG_FORMAT: ' Pretty ' }, false), 'pretty')
  assert.throws(() => readLogFormat({ LOG_FORMAT: 'xml' }, true), (error: Error) => error instanceof ConfigError && /LOG_FORMAT must be one of json, pretty, got "xml"/.test(error.message))
})

test('RAILS_ENV, HTTP_PORT, DISABLE_SSL, APP_VERSION and the log level are read', (t) => {
  const storage = tempStorage(t)
  const config = loadConfig({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE: 'x'.repeat(64), RAILS_ENV: 'development', HTTP_PORT: '25130', DISABLE_SSL: 'true', APP_VERSION: 'parity', RAILS_LOG_LEVEL: 'warn' })
  assert.equal(config.databasePath, join(storage, 'db', 'development.sqlite3'))
  assert.equal(config.httpPort, 25130)
  assert.equal(config.disableSsl, true)
  assert.equal(config.version, 'parity')
  assert.equal(config.logLevel, 'warn')
})

test('GIT_REVISION is the version when APP_VERSION is absent', (t) => {
  const config = loadConfig({ CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64), GIT_REVISION: 'abc123' })
  assert.equal(config.version, 'abc123')
})

test('a missing SECRET_KEY_BASE is generated once and kept in storage across restarts, once the boot keeps it', (t) => {
  const storage = tempStorage(t)
  const first = loadConfig({ CAMPFIRE_STORAGE_PATH: storage })
  assert.ok(!existsSync(join(storage, 'secret_key_base')), 'reading the settings writes nothing')
  keepGeneratedSecret(first)
  const second = loadConfig({ CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(first.secretKeyBaseSource, 'generated')
  assert.equal(second.secretKeyBaseSource, 'storage')
  assert.equal(first.secretKeyBase, second.secretKeyBase)
  assert.match(first.secretKeyBase, /^[0-9a-f]{128}$/)
  assert.equal(readFileSync(join(storage, 'secret_key_base'), 'utf8').trim(), first.secretKeyBase)
  assert.equal(statSync(join(storage, 'secret_key_base')).mode & 0o777, 0o600)
})

test('a required but missing SECRET_KEY_BASE fails with one clear message', (t) => {
  assert.throws(() => loadConfig({ CAMPFIRE_STORAGE_PATH: tempStorage(t), CAMPFIRE_REQUIRE_SECRET_KEY_BASE: 'true' }), (error: Error) => {
    return error instanceof ConfigError && /SECRET_KEY_BASE is required/.test(error.message)
  })
})

test('a SECRET_KEY_BASE that cannot be kept in storage is reported, not crashed on', (t) => {
  const blocker = join(tempStorage(t), 'a-file')
  writeFileSync(blocker, 'not a folder')
  assert.throws(() => keepGeneratedSecret(loadConfig({ CAMPFIRE_STORAGE_PATH: join(blocker, 'storage') })), (error: Error) => {
    return error instanceof ConfigError && /cannot be written.*set SECRET_KEY_BASE/.test(error.message)
  })
})

test('an invalid HTTP_PORT or log level is a configuration error', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  assert.throws(() => loadConfig({ ...base, HTTP_PORT: 'eighty' }), ConfigError)
  assert.throws(() => loadConfig({ ...base, LOG_LEVEL: 'loud' }), ConfigError)
  assert.throws(() => loadConfig({ ...base, SECRET_KEY_BASE: 'short' }), ConfigError)
})

test('every on/off setting reads true/false, 1/0 and yes/no, and refuses anything else rather than taking it as off', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  for (const [value, expected] of [['true', true], ['YES', true], [' 1 ', true], ['false', false], ['no', false], ['0', false], ['', false]] as const) {
    assert.equal(loadConfig({ ...base, DISABLE_SSL: value }).disableSsl, expected, `DISABLE_SSL=${value}`)
    assert.equal(loadConfig({ ...base, CAMPFIRE_CPU_LEDGER: value }).cpuLedger, expected, `CAMPFIRE_CPU_LEDGER=${value}`)
  }
  for (const name of ['DISABLE_SSL', 'CAMPFIRE_CPU_LEDGER', 'CAMPFIRE_REQUIRE_SECRET_KEY_BASE']) {
    for (const value of ['ture', 'on', 'y', '2']) {
      assert.throws(() => loadConfig({ ...base, [name]: value }), (error: Error) => error instanceof ConfigError && error.message === `${name} must be true or false (or 1/0, yes/no), got "${value}"`)
    }
  }
})

test('numbers are whole and within their documented range: JOB_CONCURRENCY 1 to 64, HTTP_PORT (else PORT) 0 to 65535', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  assert.equal(loadConfig(base).passwordWorkers, 2)
  assert.equal(loadConfig({ ...base, JOB_CONCURRENCY: '4' }).passwordWorkers, 4)
  for (const value of ['abc', '0', '500', '1.5', '-1']) assert.throws(() => loadConfig({ ...base, JOB_CONCURRENCY: value }), /JOB_CONCURRENCY must be a whole number from 1 to 64/)
  assert.equal(loadConfig({ ...base, PORT: '8080' }).httpPort, 8080, 'PORT when HTTP_PORT is unset')
  assert.equal(loadConfig({ ...base, PORT: '8080', HTTP_PORT: '25130' }).httpPort, 25130, 'HTTP_PORT wins')
  assert.throws(() => loadConfig({ ...base, PORT: '99999' }), /PORT must be a whole number from 0 to 65535, got "99999"/)
  assert.throws(() => loadConfig({ ...base, HTTP_PORT: '65536' }), /HTTP_PORT must be a whole number from 0 to 65535/)
})

test('RAILS_ENV is a plain name, HTTP_BIND an IP address or localhost', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  for (const value of ['../../escape', 'a/b', '.hidden', 'two words']) assert.throws(() => loadConfig({ ...base, RAILS_ENV: value }), /RAILS_ENV must be a plain name/)
  assert.equal(loadConfig({ ...base, RAILS_ENV: 'staging-2' }).environment, 'staging-2')
  for (const value of ['127.0.0.1', '::', 'localhost']) assert.equal(loadConfig({ ...base, HTTP_BIND: value }).httpBind, value)
  assert.throws(() => loadConfig({ ...base, HTTP_BIND: 'not-an-address' }), /HTTP_BIND must be an IP address/)
})

test('a valid VAPID pair enables push', (t) => {
  const config = loadConfig({ CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64), ...vapidPair() })
  assert.ok(config.vapid)
  assert.equal(config.vapidProblem, null)
})

test('invalid VAPID keys disable push and say why', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  const pair = vapidPair()
  const cases: [Record<string, string>, RegExp][] = [
    [{ VAPID_PUBLIC_KEY: pair.VAPID_PUBLIC_KEY.replace(/-/g, '+') + '=', VAPID_PRIVATE_KEY: pair.VAPID_PRIVATE_KEY }, /URL-safe/],
    [{ VAPID_PUBLIC_KEY: pair.VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY: vapidPair().VAPID_PRIVATE_KEY }, /does not match/],
    [{ VAPID_PUBLIC_KEY: 'abc', VAPID_PRIVATE_KEY: pair.VAPID_PRIVATE_KEY }, /65 bytes/],
    [{ VAPID_PUBLIC_KEY: pair.VAPID_PUBLIC_KEY }, /VAPID_PRIVATE_KEY is not set/],
  ]
  for (const [env, reason] of cases) {
    const config = loadConfig({ ...base, ...env })
    assert.equal(config.vapid, null)
    assert.match(config.vapidProblem ?? '', reason)
  }
})

test('the caches default to shared, version-keyed fragments and a relevance-aware page cache', (t) => {
  const config = loadConfig({ CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) })
  assert.deepEqual(config.cache, {
    pageCache: true,
    shellCache: true,
    pageInvalidation: 'relevant',
    fragmentKeys: 'shared',
    fragmentKeySource: 'version',
    pageCacheBytes: 64 * 1024 * 1024,
    pageCacheBytesPerPerson: 0,
    fragmentCacheBytes: 32 * 1024 * 1024,
    responseMemo: true,
    responseMemoBytes: 16 * 1024 * 1024,
    codeCache: true,
  })
})

test('the page cache is 64 MB however many people there are, and grows with them only when asked to', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  const automatic = loadConfig(base).cache
  assert.equal(pageCacheBudget(automatic, () => 50), 64 * 1024 * 1024)
  assert.equal(pageCacheBudget(automatic, () => 5000), 64 * 1024 * 1024, 'five thousand people share the same 64 MB')
  const grown = loadConfig({ ...base, CAMPFIRE_PAGE_CACHE_KB_PER_PERSON: '64' }).cache
  assert.equal(pageCacheBudget(grown, () => 50), 64 * 1024 * 1024, 'a small team gets the floor')
  assert.equal(pageCacheBudget(grown, () => 3000), 3000 * 64 * 1024, 'three thousand people get 64 KB each')
  const perPerson = loadConfig({ ...base, CAMPFIRE_PAGE_CACHE_KB_PER_PERSON: '128' }).cache
  assert.equal(pageCacheBudget(perPerson, () => 3000), 3000 * 128 * 1024)
  let counted = false
  const fixed = loadConfig({ ...base, CAMPFIRE_PAGE_CACHE_MB: '16' }).cache
  assert.equal(pageCacheBudget(fixed, () => ((counted = true), 3000)), 16 * 1024 * 1024, 'an explicit budget is the budget')
  assert.equal(counted, false, 'nobody is counted for an explicit budget')
  assert.throws(() => loadConfig({ ...base, CAMPFIRE_PAGE_CACHE_KB_PER_PERSON: 'lots' }), /CAMPFIRE_PAGE_CACHE_KB_PER_PERSON must be a number of kilobytes/)
})

test('the cache switches select the baselines, budgets are in MB and 0 turns a cache off', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  const baseline = loadConfig({ ...base, CAMPFIRE_PAGE_CACHE_INVALIDATION: 'commit', CAMPFIRE_FRAGMENT_KEYS: 'viewer', CAMPFIRE_FRAGMENT_KEY_SOURCE: 'content', CAMPFIRE_PAGE_CACHE_MB: '8', CAMPFIRE_FRAGMENT_CACHE_MB: '0.5' })
  assert.equal(baseline.cache.pageInvalidation, 'commit')
  assert.equal(baseline.cache.fragmentKeys, 'viewer')
  assert.equal(baseline.cache.fragmentKeySource, 'content')
  assert.equal(baseline.cache.pageCacheBytes, 8 * 1024 * 1024)
  assert.equal(baseline.cache.fragmentCacheBytes, 512 * 1024)
  assert.equal(loadConfig({ ...base, CAMPFIRE_PAGE_CACHE: 'off' }).cache.pageCache, false)
  assert.equal(loadConfig({ ...base, CAMPFIRE_SHELL_CACHE: 'off' }).cache.shellCache, false)
  assert.equal(loadConfig({ ...base, CAMPFIRE_PAGE_CACHE: 'off' }).cache.shellCache, false, 'the shell cache lives in the page cache')
  assert.throws(() => loadConfig({ ...base, CAMPFIRE_SHELL_CACHE: 'sometimes' }), ConfigError)
  assert.equal(loadConfig({ ...base, CAMPFIRE_RESPONSE_CACHE_MB: '0' }).cache.pageCache, false)
  assert.equal(loadConfig({ ...base, CAMPFIRE_FRAGMENT_CACHE_MB: '0' }).cache.fragmentKeys, 'off')
  assert.throws(() => loadConfig({ ...base, CAMPFIRE_FRAGMENT_KEYS: 'everyone' }), ConfigError)
  assert.throws(() => loadConfig({ ...base, CAMPFIRE_PAGE_CACHE_MB: '-1' }), ConfigError)
  assert.equal(loadConfig({ ...base, CAMPFIRE_RESPONSE_MEMO: 'off' }).cache.responseMemo, false)
  assert.equal(loadConfig({ ...base, CAMPFIRE_RESPONSE_MEMO_MB: '0' }).cache.responseMemo, false)
  assert.equal(loadConfig({ ...base, CAMPFIRE_RESPONSE_MEMO_MB: '2.5' }).cache.responseMemoBytes, 2.5 * 1024 * 1024)
  assert.throws(() => loadConfig({ ...base, CAMPFIRE_RESPONSE_MEMO: 'yes' }), /CAMPFIRE_RESPONSE_MEMO must be one of on, off/)
  assert.throws(() => loadConfig({ ...base, CAMPFIRE_RESPONSE_MEMO_MB: 'lots' }), ConfigError)
})

test('webhooks may reach private addresses unless CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES=deny', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  assert.equal(loadConfig(base).webhookPrivateAddresses, 'allow')
  assert.equal(loadConfig({ ...base, CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES: 'Deny' }).webhookPrivateAddresses, 'deny')
  assert.throws(() => loadConfig({ ...base, CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES: 'sometimes' }), /CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES must be one of allow, deny/)
})

test('one process needs no Redis; several need REDIS_URL, and the cable prefix is campfire_<RAILS_ENV>', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  const single = loadConfig(base)
  assert.equal(single.webConcurrency, 1)
  assert.equal(single.redisUrl, null)
  assert.equal(single.cableChannelPrefix, 'campfire_production')
  const cluster = loadConfig({ ...base, WEB_CONCURRENCY: '3', REDIS_URL: 'redis://127.0.0.1:6379/0', RAILS_ENV: 'development' })
  assert.deepEqual([cluster.webConcurrency, cluster.redisUrl, cluster.cableChannelPrefix], [3, 'redis://127.0.0.1:6379/0', 'campfire_development'])
  assert.equal(loadConfig({ ...base, WEB_CONCURRENCY: '1' }).webConcurrency, 1)
  assert.throws(() => loadConfig({ ...base, WEB_CONCURRENCY: '2' }), (error: Error) => error instanceof ConfigError && /WEB_CONCURRENCY=2 needs REDIS_URL/.test(error.message))
  for (const bad of ['0', '-1', '1.5', 'two', '65']) assert.throws(() => loadConfig({ ...base, WEB_CONCURRENCY: bad, REDIS_URL: 'redis://localhost' }), ConfigError, bad)
  assert.equal(loadConfig({ ...base, REDIS_URL: 'unix:///run/redis/redis.sock' }).redisUrl, 'unix:///run/redis/redis.sock')
  for (const bad of ['localhost:6379', 'http://redis', 'redis://', 'unix://', 'unix://relative.sock']) assert.throws(() => loadConfig({ ...base, REDIS_URL: bad }), ConfigError, bad)
})

test('LITESTREAM_REPLICA_URL takes the replica URLs Litestream knows and refuses others without showing a password', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  assert.equal(loadConfig(base).litestreamReplicaUrl, null)
  assert.equal(loadConfig({ ...base, LITESTREAM_REPLICA_URL: ' s3://bucket/campfire ' }).litestreamReplicaUrl, 's3://bucket/campfire')
  assert.equal(loadConfig({ ...base, LITESTREAM_REPLICA_URL: 'file:///srv/replica' }).litestreamReplicaUrl, 'file:///srv/replica')
  assert.throws(
    () => loadConfig({ ...base, LITESTREAM_REPLICA_URL: 'ftp://me:hunter2@host/db' }),
    (error: Error) => error instanceof ConfigError && /LITESTREAM_REPLICA_URL must be a s3:\/\//.test(error.message) && !error.message.includes('hunter2'),
  )
})

test('email is off without SMTP_URL; with it, MAIL_FROM is required and CAMPFIRE_EMAIL_DELAY is seconds (10 minutes by default)', (t) => {
  const base: Record<string, string> = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  const off = loadConfig(base)
  assert.equal(off.email, null)
  assert.equal(off.emailProblem, 'SMTP_URL is not set')
  const on = loadConfig({ ...base, SMTP_URL: 'smtps://user:pass@mail.example.com:465', MAIL_FROM: 'Campfire <campfire@example.com>', APP_URL: 'https://chat.example.com/' })
  assert.deepEqual(on.email, { smtpUrl: 'smtps://user:pass@mail.example.com:465', from: { name: 'Campfire', address: 'campfire@example.com' }, delayMs: 600_000, origin: 'https://chat.example.com' })
  base.APP_URL = 'https://chat.example.com'
  assert.equal(loadConfig({ ...base, SMTP_URL: 'smtp://mail.example.com:587', MAIL_FROM: 'campfire@example.com', CAMPFIRE_EMAIL_DELAY: '0.5' }).email?.delayMs, 500)
  assert.throws(() => loadConfig({ ...base, SMTP_URL: 'smtp://mail.example.com:587' }), (error: Error) => error instanceof ConfigError && /MAIL_FROM is required/.test(error.message))
  assert.throws(() => loadConfig({ ...base, SMTP_URL: 'http://mail.example.com', MAIL_FROM: 'a@example.com' }), (error: Error) => error instanceof ConfigError && /smtp:\/\/ or smtps:\/\//.test(error.message))
  for (const from of ['Campfire <a@example.com>, b@example.com', 'campfire', 'Campfire <a@example.com>\r\nBcc: b@example.com']) {
    assert.throws(() => loadConfig({ ...base, SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: from }), (error: Error) => error instanceof ConfigError && /MAIL_FROM must be one email address/.test(error.message), from)
  }
  assert.throws(() => loadConfig({ ...base, SMTP_URL: 'smtp://mail.example.com', MAIL_FROM: 'a@example.com', CAMPFIRE_EMAIL_DELAY: 'soon' }), (error: Error) => error instanceof ConfigError && /CAMPFIRE_EMAIL_DELAY/.test(error.message))
})

test('APP_URL is an http(s) origin, required with SMTP_URL; without email it may be left unset', (t) => {
  const base = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'x'.repeat(64) }
  assert.equal(loadConfig(base).appUrl, null)
  assert.equal(loadConfig({ ...base, APP_URL: ' https://Chat.Example.com:8443/ ' }).appUrl, 'https://chat.example.com:8443')
  assert.equal(loadConfig({ ...base, APP_URL: 'http://127.0.0.1:3000' }).appUrl, 'http://127.0.0.1:3000')
  for (const bad of ['chat.example.com', 'ftp://chat.example.com', 'https://chat.example.com/campfire', 'https://user:pass@chat.example.com', 'https://chat.example.com/?x=1', 'https://chat.example.com/#top', 'javascript:alert(1)']) {
    assert.throws(() => loadConfig({ ...base, APP_URL: bad }), (error: Error) => error instanceof ConfigError && /^APP_URL must be the http:\/\/ or https:\/\/ origin/.test(error.message), bad)
  }
  assert.throws(
    () => loadConfig({ ...base, SMTP_URL: 'smtp://mail.example.com:587', MAIL_FROM: 'campfire@example.com' }),
    (error: Error) => error instanceof ConfigError && /^APP_URL is required with SMTP_URL/.test(error.message),
  )
})
