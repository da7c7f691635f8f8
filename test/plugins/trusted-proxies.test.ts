import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, form, tempStorage, testConfig } from '../helper.ts'
import { PASSWORD, users } from '../fixtures.ts'
import { ConfigError } from '../../server/config.ts'

const BANNED = '203.0.113.9'

function signInFrom(app: FastifyInstance, remoteAddress: string, forwardedFor?: string, password = PASSWORD) {
  const request = form({ email_address: users.david.email, password })
  return app.inject({
    method: 'POST',
    url: '/session',
    payload: request.payload,
    headers: { ...request.headers, ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) },
    remoteAddress,
  })
}

function ban(app: FastifyInstance, ip: string) {
  app.store.writeNow((m) =>
    m.db.prepare("INSERT INTO bans (user_id, ip_address, created_at, updated_at) VALUES (?, ?, '2026-03-01 12:00:00', '2026-03-01 12:00:00')").run(users.kevin.id, ip),
  )
}

async function statuses(app: FastifyInstance, count: number, attempt: (i: number) => Promise<{ statusCode: number }>): Promise<number[]> {
  const seen: number[] = []
  for (let i = 0; i < count; i++) seen.push((await attempt(i)).statusCode)
  return seen
}

const TEN_WRONG_THEN_LIMITED = [...Array(10).fill(401), ...Array(5).fill(429)]

for (const peer of ['127.0.0.1', '10.1.2.3', '192.168.1.20', '172.16.0.9', 'fd00::5']) {
  test(`by default a new X-Forwarded-For on every wrong password from ${peer} is still limited after 10`, async (t) => {
    const { app } = await buildTestApp(t)
    const seen = await statuses(app, 15, (i) => signInFrom(app, peer, `198.51.100.${i + 1}`, 'wrong'))
    assert.deepEqual(seen, TEN_WRONG_THEN_LIMITED)
  })
}

test('by default a banned address stays banned whatever X-Forwarded-For it sends, and nobody can borrow a banned address', async (t) => {
  const { app } = await buildTestApp(t)
  ban(app, BANNED)
  assert.equal((await signInFrom(app, BANNED, '203.0.113.10')).statusCode, 429)
  assert.equal((await signInFrom(app, BANNED, '127.0.0.1')).statusCode, 429)
  assert.equal((await signInFrom(app, '127.0.0.1', BANNED)).statusCode, 302, 'a local client claiming the banned address is not banned')
})

test('by default a session records the address that connected, not the one a header claims', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal((await signInFrom(app, '10.9.8.7', '198.51.100.77')).statusCode, 302)
  const ip = app.store.read((m) => m.db.prepare('SELECT ip_address FROM sessions').pluck().get())
  assert.equal(ip, '10.9.8.7')
})

test('by default X-Forwarded-Proto from a client does not make a plain request HTTPS', async (t) => {
  const { app } = await buildTestApp(t, { env: { DISABLE_SSL: '' } })
  const response = await app.inject({ method: 'GET', url: '/session/new', headers: { host: 'chat.example.com', 'x-forwarded-proto': 'https' }, remoteAddress: '10.0.0.4' })
  assert.equal(response.statusCode, 301, 'redirected to HTTPS')
  assert.equal(response.headers['strict-transport-security'], undefined)
})

test('a named proxy’s X-Forwarded-For is believed: its client is limited and banned by its own address', async (t) => {
  const { app } = await buildTestApp(t, { env: { TRUSTED_PROXIES: '10.0.0.1' } })
  ban(app, BANNED)
  assert.equal((await signInFrom(app, '10.0.0.1', BANNED)).statusCode, 429)
  assert.equal((await signInFrom(app, '10.0.0.1', '198.51.100.20')).statusCode, 302)
  const ip = app.store.read((m) => m.db.prepare('SELECT ip_address FROM sessions').pluck().get())
  assert.equal(ip, '198.51.100.20')
})

test('behind a named proxy, addresses a client puts in front of its own move neither the limit nor a ban', async (t) => {
  const { app } = await buildTestApp(t, { env: { TRUSTED_PROXIES: '10.0.0.0/24' } })
  // The proxy appends the address it saw; whatever the client sent comes before it.
  const seen = await statuses(app, 15, (i) => signInFrom(app, '10.0.0.1', `198.51.100.${i + 1}, 203.0.113.50`, 'wrong'))
  assert.deepEqual(seen, TEN_WRONG_THEN_LIMITED)
  ban(app, BANNED)
  assert.equal((await signInFrom(app, '10.0.0.1', `203.0.113.10, ${BANNED}`)).statusCode, 429)
})

test('a peer that is not a named proxy is not believed, even beside one that is', async (t) => {
  const { app } = await buildTestApp(t, { env: { TRUSTED_PROXIES: '10.0.0.1' } })
  const seen = await statuses(app, 15, (i) => signInFrom(app, '10.0.0.2', `198.51.100.${i + 1}`, 'wrong'))
  assert.deepEqual(seen, TEN_WRONG_THEN_LIMITED)
  ban(app, BANNED)
  assert.equal((await signInFrom(app, BANNED, '198.51.100.1')).statusCode, 429)
})

test('TRUSTED_PROXIES takes addresses, ranges and the names loopback, linklocal and uniquelocal, and refuses anything else', (t) => {
  const storage = tempStorage(t)
  assert.deepEqual(testConfig(storage).trustedProxies, [])
  assert.deepEqual(testConfig(storage, { TRUSTED_PROXIES: 'Loopback, 10.0.0.0/8 ::1,fd00::/8' }).trustedProxies, ['loopback', '10.0.0.0/8', '::1', 'fd00::/8'])
  for (const bad of ['10.0.0.0/33', 'proxy.example.com', '10.0.0.1/8/8', '::1/129', '10.0.0', 'everything', '*']) {
    assert.throws(() => testConfig(storage, { TRUSTED_PROXIES: bad }), ConfigError, bad)
  }
})
