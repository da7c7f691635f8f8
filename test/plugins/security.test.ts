import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildTestApp, inject, sameOrigin, signIn } from '../helper.ts'
import { PASSWORD, users } from '../fixtures.ts'
import { packageVersion } from '../../server/config.ts'

const NEWCOMER = 'user%5Bname%5D=Newcomer&user%5Bemail_address%5D=newcomer%40example.com&user%5Bpassword%5D=newcomer-password'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

function signInBody(email: string = users.david.email) {
  return `email_address=${encodeURIComponent(email)}&password=${encodeURIComponent(PASSWORD)}`
}

function countRows(app: FastifyInstance, table: string): number {
  return app.store.read((m) => m.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number)
}

function joinWith(app: FastifyInstance, headers: Record<string, string>) {
  return app.inject({ method: 'POST', url: '/join/Ab12-Cd34-Ef56', payload: NEWCOMER, headers: { ...FORM, ...headers } })
}

// Forgery protection

for (const site of ['same-origin', 'same-site']) {
  test(`an unsafe request with Sec-Fetch-Site ${site} passes`, async (t) => {
    const { app } = await buildTestApp(t)
    const response = await app.inject({ method: 'POST', url: '/session', payload: signInBody(), headers: { ...FORM, 'sec-fetch-site': site } })
    assert.equal(response.statusCode, 302)
    assert.ok(response.cookies.some((c) => c.name === 'session_token'))
  })
}

for (const site of ['cross-site', 'none']) {
  test(`an unsafe request with Sec-Fetch-Site ${site} gets 422 and changes nothing`, async (t) => {
    const { app } = await buildTestApp(t)
    const users = countRows(app, 'users')
    const memberships = countRows(app, 'memberships')

    const joined = await joinWith(app, { 'sec-fetch-site': site })
    assert.equal(joined.statusCode, 422)
    assert.equal(joined.cookies.find((c) => c.name === 'session_token'), undefined)
    assert.equal(countRows(app, 'users'), users, 'nobody joined')
    assert.equal(countRows(app, 'memberships'), memberships)

    const signedIn = await app.inject({ method: 'POST', url: '/session', payload: signInBody(), headers: { ...FORM, 'sec-fetch-site': site } })
    assert.equal(signedIn.statusCode, 422)
    assert.equal(signedIn.cookies.find((c) => c.name === 'session_token'), undefined)
    assert.equal(countRows(app, 'sessions'), 0, 'no session was started')
  })
}

test('a cross-site sign-out is refused and the session survives', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const response = await inject(app, cookie, { method: 'DELETE', url: '/session', headers: { 'sec-fetch-site': 'cross-site' } })
  assert.equal(response.statusCode, 422)
  assert.equal(countRows(app, 'sessions'), 1)
  const home = await inject(app, cookie, { method: 'GET', url: '/' })
  assert.equal(home.statusCode, 302)
  assert.match(String(home.headers.location), /^\/rooms\/\d+$/)
})

test('a cross-site GET is served: forgery protection guards only unsafe methods', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/session/new', headers: { 'sec-fetch-site': 'cross-site' } })
  assert.equal(response.statusCode, 200)
})

test('a foreign Origin gets 422 even with Sec-Fetch-Site same-origin', async (t) => {
  const { app } = await buildTestApp(t)
  for (const origin of ['https://evil.example', 'http://localhost:3001', 'null', 'https://localhost:3000']) {
    const response = await app.inject({
      method: 'POST',
      url: '/session',
      payload: signInBody(),
      headers: { ...FORM, ...sameOrigin, host: 'localhost:3000', origin },
    })
    assert.equal(response.statusCode, 422, `Origin ${origin}`)
    assert.equal(response.cookies.find((c) => c.name === 'session_token'), undefined)
  }
  assert.equal(countRows(app, 'sessions'), 0)
})

test('an Origin equal to http://<host> passes', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({
    method: 'POST',
    url: '/session',
    payload: signInBody(),
    headers: { ...FORM, ...sameOrigin, host: 'localhost:3000', origin: 'http://localhost:3000' },
  })
  assert.equal(response.statusCode, 302)
  assert.ok(response.cookies.some((c) => c.name === 'session_token'))
})

// A TLS proxy on the same host says a request came over HTTPS; only a trusted one is believed.
const BEHIND_LOCAL_PROXY = { env: { TRUSTED_PROXIES: 'loopback' } }

test('an Origin of https://<host> passes when the request came over HTTPS', async (t) => {
  const { app } = await buildTestApp(t, BEHIND_LOCAL_PROXY)
  const response = await app.inject({
    method: 'POST',
    url: '/session',
    payload: signInBody(),
    headers: { ...FORM, ...sameOrigin, host: 'chat.example.com', origin: 'https://chat.example.com', 'x-forwarded-proto': 'https' },
  })
  assert.equal(response.statusCode, 302)
})

test('a request without Sec-Fetch-Site over plain HTTP passes', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'POST', url: '/session', payload: signInBody(), headers: FORM })
  assert.equal(response.statusCode, 302)
  assert.ok(response.cookies.some((c) => c.name === 'session_token'))
})

test('a request with x-forwarded-proto: https and no Sec-Fetch-Site gets 422', async (t) => {
  const { app } = await buildTestApp(t, BEHIND_LOCAL_PROXY)
  const response = await app.inject({ method: 'POST', url: '/session', payload: signInBody(), headers: { ...FORM, 'x-forwarded-proto': 'https' } })
  assert.equal(response.statusCode, 422)
  assert.equal(response.cookies.find((c) => c.name === 'session_token'), undefined)
  assert.equal(countRows(app, 'sessions'), 0)
})

test('a request with x-forwarded-proto: https and Sec-Fetch-Site same-origin passes, with a Secure session cookie', async (t) => {
  const { app } = await buildTestApp(t, BEHIND_LOCAL_PROXY)
  const response = await app.inject({ method: 'POST', url: '/session', payload: signInBody(), headers: { ...FORM, ...sameOrigin, 'x-forwarded-proto': 'https' } })
  assert.equal(response.statusCode, 302)
  const session = response.cookies.find((c) => c.name === 'session_token') as { secure?: boolean } | undefined
  assert.ok(session)
  assert.equal(session.secure, true)
})

// Version headers

test('every response carries X-Version and X-Rev', async (t) => {
  const { app } = await buildTestApp(t, { env: { APP_VERSION: 'parity' } })
  const cookie = await signIn(app, 'kevin')
  const requests: [string, InjectOptions][] = [
    ['200 page', { method: 'GET', url: '/session/new' }],
    ['/up', { method: 'GET', url: '/up' }],
    ['redirect', { method: 'GET', url: '/' }],
    ['signed-in redirect', { method: 'GET', url: '/', headers: { cookie } }],
    ['404', { method: 'GET', url: '/no/such/page' }],
    ['401', { method: 'POST', url: '/session', payload: 'email_address=x%40y.z&password=nope', headers: { ...FORM, ...sameOrigin } }],
    ['422 forgery', { method: 'POST', url: '/session', payload: signInBody(), headers: { ...FORM, 'sec-fetch-site': 'cross-site' } }],
    ['400 bad JSON', { method: 'POST', url: '/session', payload: '{', headers: { 'content-type': 'application/json', ...sameOrigin } }],
    ['415', { method: 'POST', url: '/session', payload: '<x/>', headers: { 'content-type': 'application/xml', ...sameOrigin } }],
    ['HEAD', { method: 'HEAD', url: '/up' }],
  ]
  for (const [name, request] of requests) {
    const response = await app.inject(request)
    assert.equal(response.headers['x-version'], 'parity', `${name} (${response.statusCode}) has X-Version`)
    assert.equal(response.headers['x-rev'], 'parity', `${name} (${response.statusCode}) has X-Rev`)
  }
})

test('X-Version defaults to package.json\'s version and X-Rev to "0" when neither APP_VERSION nor GIT_REVISION is set', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/up' })
  assert.equal(response.headers['x-version'], packageVersion())
  assert.match(packageVersion(), /^\d+\.\d+\.\d+/)
  assert.equal(response.headers['x-rev'], '0')
})

test('X-Rev carries GIT_REVISION when it is set', async (t) => {
  const { app } = await buildTestApp(t, { env: { APP_VERSION: '1.2.3', GIT_REVISION: 'abc1234' } })
  const response = await app.inject({ method: 'GET', url: '/up' })
  assert.equal(response.headers['x-version'], '1.2.3')
  assert.equal(response.headers['x-rev'], 'abc1234')
})

// TLS

test('with DISABLE_SSL unset, a GET for host example.com is redirected 301 to https', async (t) => {
  const { app } = await buildTestApp(t, { env: { DISABLE_SSL: '' } })
  const response = await app.inject({ method: 'GET', url: '/session/new?x=1', headers: { host: 'example.com' } })
  assert.equal(response.statusCode, 301)
  assert.equal(response.headers.location, 'https://example.com/session/new?x=1')
})

test('with DISABLE_SSL unset, an unsafe request over plain HTTP to example.com is refused and changes nothing', async (t) => {
  const { app } = await buildTestApp(t, { env: { DISABLE_SSL: '' } })
  const response = await app.inject({ method: 'POST', url: '/session', payload: signInBody(), headers: { ...FORM, ...sameOrigin, host: 'example.com' } })
  // Rails' force_ssl answers 307 to https for non-GET; refusing outright is as safe.
  const redirectedToHttps = [307, 308].includes(response.statusCode) && String(response.headers.location).startsWith('https://example.com/')
  const refused = response.statusCode >= 400 && response.statusCode < 500
  assert.ok(redirectedToHttps || refused, `status ${response.statusCode}`)
  assert.equal(response.cookies.find((c) => c.name === 'session_token'), undefined)
  assert.equal(countRows(app, 'sessions'), 0)
})

test('with DISABLE_SSL unset, host localhost:3000 is served over plain HTTP', async (t) => {
  const { app } = await buildTestApp(t, { env: { DISABLE_SSL: '' } })
  for (const host of ['localhost:3000', 'localhost', '127.0.0.1:3000']) {
    const response = await app.inject({ method: 'GET', url: '/session/new', headers: { host } })
    assert.equal(response.statusCode, 200, `host ${host}`)
  }
})

test('with DISABLE_SSL unset, /up is served over plain HTTP for any host', async (t) => {
  const { app } = await buildTestApp(t, { env: { DISABLE_SSL: '' } })
  const response = await app.inject({ method: 'GET', url: '/up', headers: { host: 'example.com' } })
  assert.equal(response.statusCode, 200)
  assert.ok(response.body.includes('background-color: green'))
})

test('with DISABLE_SSL unset, an https request gets Strict-Transport-Security and is served', async (t) => {
  const { app } = await buildTestApp(t, { env: { DISABLE_SSL: '', TRUSTED_PROXIES: 'loopback' } })
  const response = await app.inject({ method: 'GET', url: '/session/new', headers: { host: 'example.com', 'x-forwarded-proto': 'https' } })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['strict-transport-security']), /max-age=\d{7,}/)
})

test('with DISABLE_SSL set, plain HTTP for example.com is served and no HSTS is sent', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/session/new', headers: { host: 'example.com' } })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['strict-transport-security'], undefined)
})

// Bans

function ban(app: FastifyInstance, ip: string) {
  app.store.writeNow((m) =>
    m.db.prepare("INSERT INTO bans (user_id, ip_address, created_at, updated_at) VALUES (?, ?, '2026-03-01 12:00:00', '2026-03-01 12:00:00')").run(users.kevin.id, ip),
  )
}

test('a banned IP gets 429 on POST, even with the right password, but can still GET', async (t) => {
  const { app } = await buildTestApp(t)
  ban(app, '203.0.113.9')
  const posted = await app.inject({ method: 'POST', url: '/session', payload: signInBody(), headers: { ...FORM, ...sameOrigin }, remoteAddress: '203.0.113.9' })
  assert.equal(posted.statusCode, 429)
  assert.equal(posted.cookies.find((c) => c.name === 'session_token'), undefined)
  assert.equal(countRows(app, 'sessions'), 0)

  const users = countRows(app, 'users')
  const joined = await app.inject({ method: 'POST', url: '/join/Ab12-Cd34-Ef56', payload: NEWCOMER, headers: { ...FORM, ...sameOrigin }, remoteAddress: '203.0.113.9' })
  assert.equal(joined.statusCode, 429)
  assert.equal(countRows(app, 'users'), users)

  const page = await app.inject({ method: 'GET', url: '/session/new', remoteAddress: '203.0.113.9' })
  assert.equal(page.statusCode, 200)
})

test('a banned IP with a session can still read but cannot sign out or change anything', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  ban(app, '203.0.113.10')
  const home = await app.inject({ method: 'GET', url: '/', headers: { cookie }, remoteAddress: '203.0.113.10' })
  assert.equal(home.statusCode, 302)
  assert.match(String(home.headers.location), /^\/rooms\/\d+$/)
  const deleted = await app.inject({ method: 'DELETE', url: '/session', headers: { cookie, ...sameOrigin }, remoteAddress: '203.0.113.10' })
  assert.equal(deleted.statusCode, 429)
  assert.equal(countRows(app, 'sessions'), 1)
})

test('a ban applies only to its own IP address', async (t) => {
  const { app } = await buildTestApp(t)
  ban(app, '203.0.113.9')
  const response = await app.inject({ method: 'POST', url: '/session', payload: signInBody(), headers: { ...FORM, ...sameOrigin }, remoteAddress: '203.0.113.99' })
  assert.equal(response.statusCode, 302)
})

test('a banned IP cannot slip past the ban with X-Forwarded-For when it is not a trusted proxy', async (t) => {
  const { app } = await buildTestApp(t)
  ban(app, '203.0.113.9')
  const response = await app.inject({
    method: 'POST',
    url: '/session',
    payload: signInBody(),
    headers: { ...FORM, ...sameOrigin, 'x-forwarded-for': '198.51.100.1' },
    remoteAddress: '203.0.113.9',
  })
  assert.equal(response.statusCode, 429)
})

test('a ban is enforced on the client address a trusted local proxy forwards', async (t) => {
  const { app } = await buildTestApp(t, BEHIND_LOCAL_PROXY)
  ban(app, '203.0.113.9')
  const response = await app.inject({
    method: 'POST',
    url: '/session',
    payload: signInBody(),
    headers: { ...FORM, ...sameOrigin, 'x-forwarded-for': '203.0.113.9' },
    remoteAddress: '127.0.0.1',
  })
  assert.equal(response.statusCode, 429)
})

// Other headers

test('responses forbid MIME sniffing and framing by other sites', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/session/new' })
  assert.equal(response.headers['x-content-type-options'], 'nosniff')
  assert.equal(response.headers['x-frame-options'], 'SAMEORIGIN')
})

test('a Host header that names no valid host is a 400, signed in or not, before any page is made from it', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  for (const host of ['localhost:99999', '"><script>alert(1)</script>', 'exa mple.com']) {
    for (const [url, headers] of [['/account/edit', { cookie }], ['/session/new', {}], ['/up', {}]] as const) {
      const response = await app.inject({ method: 'GET', url, headers: { ...headers, host } })
      assert.equal(response.statusCode, 400, `${url} with Host ${host}`)
      assert.doesNotMatch(response.body, /<script>alert/)
    }
  }
  assert.equal((await app.inject({ method: 'GET', url: '/session/new', headers: { host: 'chat.example.com:8080' } })).statusCode, 200)
})

test('the verdict on a Host is the same the thousandth time, for a long host and after a flood of others', async (t) => {
  const { app } = await buildTestApp(t)
  const verdict = async (host: string) => (await app.inject({ method: 'GET', url: '/up', headers: { host } })).statusCode
  const long = `${'a'.repeat(300)}.example.com`
  for (let i = 0; i < 3; i++) {
    assert.equal(await verdict('localhost:99999'), 400)
    assert.equal(await verdict(`${long}:99999`), 400)
    assert.equal(await verdict(long), 200)
  }
  for (let i = 0; i < 1100; i++) await verdict(`host-${i}.example.com`)
  assert.equal(await verdict('localhost:99999'), 400)
  assert.equal(await verdict('chat.example.com'), 200)
})
