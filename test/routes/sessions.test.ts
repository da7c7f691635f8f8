import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, cookieHeader, form, inject, sameOrigin, signIn } from '../helper.ts'
import { PASSWORD, users } from '../fixtures.ts'
import { packageVersion } from '../../server/config.ts'

const UNAUTHORIZED = 'Too many requests or unauthorized.'

function sessionsOf(app: FastifyInstance, userId: number): number {
  return app.store.read((m) => m.db.prepare('SELECT COUNT(*) FROM sessions WHERE user_id = ?').pluck().get(userId) as number)
}

function countSessions(app: FastifyInstance): number {
  return app.store.read((m) => m.db.prepare('SELECT COUNT(*) FROM sessions').pluck().get() as number)
}

function postSession(app: FastifyInstance, fields: Record<string, string>, extra: { cookie?: string; remoteAddress?: string } = {}) {
  const request = form(fields)
  return app.inject({
    method: 'POST',
    url: '/session',
    payload: request.payload,
    headers: { ...request.headers, ...(extra.cookie ? { cookie: extra.cookie } : {}) },
    ...(extra.remoteAddress ? { remoteAddress: extra.remoteAddress } : {}),
  })
}

function sessionCookie(response: { cookies: { name: string; value: string }[] }) {
  return response.cookies.find((c) => c.name === 'session_token')
}

// GET /session/new

test('GET /session/new redirects to /first_run when there are no users', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const response = await app.inject({ method: 'GET', url: '/session/new' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/first_run')
})

test('GET /session/new renders the sign-in form with the first administrator as a mailto help contact and the version', async (t) => {
  const { app } = await buildTestApp(t, { env: { APP_VERSION: 'v9.8.7-test' } })
  const response = await app.inject({ method: 'GET', url: '/session/new' })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.match(response.body, /<form action="\/session" method="post"/)
  assert.match(response.body, /name="email_address"/)
  assert.match(response.body, /name="password"/)
  assert.ok(response.body.includes(`href="mailto:${users.david.email}"`), 'mailto link to David, the first administrator')
  assert.ok(response.body.includes(users.david.name))
  assert.ok(!response.body.includes(`mailto:${users.jason.email}`))
  assert.ok(response.body.includes('Campfire TS version v9.8.7-test'), 'shows the version under our own name')
  assert.ok(!response.body.includes('&trade;') && !response.body.includes('™'), 'no trademark sign')
})

test('GET /session/new shows package.json\'s version when neither APP_VERSION nor GIT_REVISION is set', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/session/new' })
  assert.ok(response.body.includes(`Campfire TS version ${packageVersion()}`), 'shows the version from package.json')
  assert.ok(!response.body.includes('version 0<'), 'never version 0')
})

test('GET /session/new names the next active administrator when the first one is deactivated', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(users.david.id))
  const response = await app.inject({ method: 'GET', url: '/session/new' })
  assert.equal(response.statusCode, 200)
  assert.ok(response.body.includes(`href="mailto:${users.jason.email}"`))
  assert.ok(!response.body.includes(`mailto:${users.david.email}`))
})

test('GET /session/new prefills the email address from the query string, escaped', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/session/new?email_address=%22%3E%3Cscript%3Ex%3C%2Fscript%3E' })
  assert.equal(response.statusCode, 200)
  assert.ok(!response.body.includes('"><script>x</script>'))
  assert.ok(response.body.includes('&lt;script&gt;'))
})

test('GET /session/new sends a signed-in person to /', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const response = await inject(app, cookie, { method: 'GET', url: '/session/new' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
})

// POST /session

test('POST /session with the benchmark login headers answers 302 and sets a long-lived HttpOnly SameSite=Lax session_token', async (t) => {
  const { app } = await buildTestApp(t)
  // Exactly what loadgen login sends: cookie jar from GET /session/new, form content type,
  // sec-fetch-site: same-origin, and no Origin or Referer.
  const page = await app.inject({ method: 'GET', url: '/session/new' })
  const response = await app.inject({
    method: 'POST',
    url: '/session',
    headers: {
      cookie: cookieHeader(page),
      'content-type': 'application/x-www-form-urlencoded',
      'sec-fetch-site': 'same-origin',
    },
    payload: `email_address=${encodeURIComponent(users.david.email)}&password=${encodeURIComponent(PASSWORD)}`,
  })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
  const session = sessionCookie(response) as { value: string; httpOnly?: boolean; sameSite?: string; path?: string; maxAge?: number } | undefined
  assert.ok(session, 'session_token is set')
  assert.ok(session.value.length > 0)
  assert.equal(session.httpOnly, true)
  assert.equal(session.sameSite, 'Lax')
  assert.equal(session.path, '/')
  assert.ok((session.maxAge ?? 0) >= 10 * 365 * 24 * 60 * 60, `max-age ${session.maxAge} is at least ten years`)
  assert.equal(sessionsOf(app, users.david.id), 1)
})

test('POST /session records the IP address and user agent on the sessions row', async (t) => {
  const { app } = await buildTestApp(t)
  const request = form({ email_address: users.kevin.email, password: PASSWORD })
  const response = await app.inject({
    method: 'POST',
    url: '/session',
    payload: request.payload,
    headers: { ...request.headers, 'user-agent': 'CampfireTest/1.0' },
    remoteAddress: '10.1.2.3',
  })
  assert.equal(response.statusCode, 302)
  const row = app.store.read((m) => m.db.prepare('SELECT ip_address, user_agent, token FROM sessions WHERE user_id = ?').get(users.kevin.id)) as {
    ip_address: string
    user_agent: string
    token: string
  }
  assert.equal(row.ip_address, '10.1.2.3')
  assert.equal(row.user_agent, 'CampfireTest/1.0')
  assert.ok(row.token.length >= 20)
})

test('POST /session accepts the email address in any letter case', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await postSession(app, { email_address: '  JZ@37Signals.COM ', password: PASSWORD })
  assert.equal(response.statusCode, 302)
  assert.ok(sessionCookie(response))
})

test('POST /session with a wrong password answers 401 with "Too many requests or unauthorized." and no session', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await postSession(app, { email_address: users.david.email, password: 'not-the-password' })
  assert.equal(response.statusCode, 401)
  assert.ok(response.body.includes(UNAUTHORIZED))
  assert.match(response.body, /<form action="\/session" method="post"/)
  assert.equal(sessionCookie(response), undefined)
  assert.equal(countSessions(app), 0)
})

test('POST /session with an unknown email answers 401', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await postSession(app, { email_address: 'nobody@example.com', password: PASSWORD })
  assert.equal(response.statusCode, 401)
  assert.ok(response.body.includes(UNAUTHORIZED))
  assert.equal(sessionCookie(response), undefined)
})

test('POST /session with a blank password answers 401', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await postSession(app, { email_address: users.david.email, password: '' })
  assert.equal(response.statusCode, 401)
  assert.equal(sessionCookie(response), undefined)
})

test('a bot, which has no password, cannot sign in', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare("UPDATE users SET email_address = 'bender@example.com' WHERE id = ?").run(users.bender.id))
  for (const password of ['', PASSWORD, 'BenderToken1']) {
    const response = await postSession(app, { email_address: 'bender@example.com', password })
    assert.equal(response.statusCode, 401, `password ${JSON.stringify(password)}`)
    assert.equal(sessionCookie(response), undefined)
  }
  assert.equal(sessionsOf(app, users.bender.id), 0)
})

test('a deactivated user cannot sign in with the right password', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(users.jz.id))
  const response = await postSession(app, { email_address: users.jz.email, password: PASSWORD })
  assert.equal(response.statusCode, 401)
  assert.ok(response.body.includes(UNAUTHORIZED))
  assert.equal(sessionCookie(response), undefined)
  assert.equal(sessionsOf(app, users.jz.id), 0)
})

test('a session stops authenticating once its user is deactivated', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  assert.equal((await inject(app, cookie, { method: 'GET', url: '/' })).headers.location, '/rooms/1')
  app.store.writeNow((m) => m.db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(users.jz.id))
  const response = await inject(app, cookie, { method: 'GET', url: '/' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/session/new')
})

test('the 11th sign-in attempt within the window from one IP answers 429 even with the right password', async (t) => {
  const { app, signInLimit } = await buildTestApp(t)
  assert.equal(signInLimit.limit, 10)
  for (let i = 1; i <= 10; i++) {
    const response = await postSession(app, { email_address: users.david.email, password: `wrong-${i}` })
    assert.equal(response.statusCode, 401, `attempt ${i}`)
  }
  const eleventh = await postSession(app, { email_address: users.david.email, password: PASSWORD })
  assert.equal(eleventh.statusCode, 429)
  assert.ok(eleventh.body.includes(UNAUTHORIZED))
  assert.match(eleventh.body, /<form action="\/session" method="post"/)
  assert.equal(sessionCookie(eleventh), undefined)
  assert.equal(countSessions(app), 0)
})

test('the sign-in limit counts per IP: another address can still sign in, and a new window lets the first back in', async (t) => {
  const { app, signInLimit } = await buildTestApp(t)
  for (let i = 0; i < 11; i++) await postSession(app, { email_address: users.david.email, password: 'wrong' }, { remoteAddress: '10.0.0.1' })
  assert.equal((await postSession(app, { email_address: users.david.email, password: PASSWORD }, { remoteAddress: '10.0.0.1' })).statusCode, 429)
  assert.equal((await postSession(app, { email_address: users.david.email, password: PASSWORD }, { remoteAddress: '10.0.0.2' })).statusCode, 302)
  signInLimit.reset()
  assert.equal((await postSession(app, { email_address: users.david.email, password: PASSWORD }, { remoteAddress: '10.0.0.1' })).statusCode, 302)
})

// Signing out

test('DELETE /session signs out: the old cookie no longer authenticates and the sessions row is gone', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  assert.equal(sessionsOf(app, users.kevin.id), 1)
  const response = await inject(app, cookie, { method: 'DELETE', url: '/session', headers: sameOrigin })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
  const cleared = sessionCookie(response) as { value: string; expires?: Date; maxAge?: number } | undefined
  assert.ok(cleared, 'the response clears session_token')
  assert.ok(cleared.value === '' || (cleared.expires && cleared.expires.getTime() < Date.now()) || cleared.maxAge === 0)
  assert.equal(sessionsOf(app, users.kevin.id), 0)

  const after = await inject(app, cookie, { method: 'GET', url: '/' })
  assert.equal(after.statusCode, 302)
  assert.equal(after.headers.location, '/session/new')
})

test('POST /session with _method=delete signs out too', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  const request = form({ _method: 'delete' })
  const response = await app.inject({ method: 'POST', url: '/session', payload: request.payload, headers: { ...request.headers, cookie } })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
  assert.equal(sessionCookie(response) === undefined, false, 'the response clears session_token')
  assert.equal(sessionsOf(app, users.kevin.id), 0)
  const after = await inject(app, cookie, { method: 'GET', url: '/' })
  assert.equal(after.statusCode, 302)
  assert.equal(after.headers.location, '/session/new')
})

test('signing out with push_subscription_endpoint forgets that subscription of that person only', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  const endpoint = 'https://push.example.com/send/abc123'
  await app.store.write((m) => {
    const insert = m.db.prepare("INSERT INTO push_subscriptions (user_id, endpoint, p256dh_key, auth_key, created_at, updated_at) VALUES (?, ?, 'k', 'a', '2026-03-01 12:00:00', '2026-03-01 12:00:00')")
    insert.run(users.kevin.id, endpoint)
    insert.run(users.kevin.id, 'https://push.example.com/send/other-device')
    insert.run(users.jz.id, endpoint)
  })
  const request = form({ _method: 'delete', push_subscription_endpoint: endpoint })
  const response = await app.inject({ method: 'POST', url: '/session', payload: request.payload, headers: { ...request.headers, cookie } })
  assert.equal(response.statusCode, 302)
  const left = app.store.read((m) => m.db.prepare('SELECT user_id, endpoint FROM push_subscriptions ORDER BY id').all())
  assert.deepEqual(left, [
    { user_id: users.kevin.id, endpoint: 'https://push.example.com/send/other-device' },
    { user_id: users.jz.id, endpoint },
  ])
  assert.equal(sessionsOf(app, users.kevin.id), 0)
})

test('signing out ends only that session: the same person signed in elsewhere stays signed in', async (t) => {
  const { app } = await buildTestApp(t)
  const laptop = await signIn(app, 'david')
  const phone = await signIn(app, 'david')
  assert.equal(sessionsOf(app, users.david.id), 2)
  await inject(app, laptop, { method: 'DELETE', url: '/session', headers: sameOrigin })
  assert.equal(sessionsOf(app, users.david.id), 1)
  const response = await inject(app, phone, { method: 'GET', url: '/' })
  assert.equal(response.statusCode, 302)
  assert.match(String(response.headers.location), /^\/rooms\/\d+$/)
})

// return_to

test('an unauthenticated GET of a protected page stores return_to, and signing in goes back there', async (t) => {
  const { app } = await buildTestApp(t)
  const visit = await app.inject({ method: 'GET', url: '/?from=bookmark' })
  assert.equal(visit.statusCode, 302)
  assert.equal(visit.headers.location, '/session/new')
  const returnTo = visit.cookies.find((c) => c.name === 'return_to_after_authenticating')
  assert.ok(returnTo)
  assert.equal(returnTo.value, '/?from=bookmark')

  const response = await postSession(app, { email_address: users.jz.email, password: PASSWORD }, { cookie: cookieHeader(visit) })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/?from=bookmark')
  const cleared = response.cookies.find((c) => c.name === 'return_to_after_authenticating')
  assert.ok(cleared && cleared.value === '', 'return_to is cleared after use')
})

test('an unauthenticated GET /rooms/2 redirects to /session/new, and after signing in the redirect goes back to /rooms/2', async (t) => {
  const { app } = await buildTestApp(t)
  const visit = await app.inject({ method: 'GET', url: '/rooms/2' })
  assert.equal(visit.statusCode, 302)
  assert.equal(visit.headers.location, '/session/new')

  const response = await postSession(app, { email_address: users.jz.email, password: PASSWORD }, { cookie: cookieHeader(visit) })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/rooms/2')
})

test('a stored return_to of /rooms/2 sends the person to /rooms/2 after signing in', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await postSession(app, { email_address: users.jz.email, password: PASSWORD }, { cookie: 'return_to_after_authenticating=%2Frooms%2F2' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/rooms/2')
})

test('an off-site return_to is ignored and signing in goes to /', async (t) => {
  const { app } = await buildTestApp(t)
  for (const offsite of ['//evil.example', '//evil.example/rooms/2', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', '/rooms/2\r\nSet-Cookie: x=1']) {
    await t.test(`an off-site return_to of ${JSON.stringify(offsite)} is ignored`, async () => {
      const response = await postSession(app, { email_address: users.jz.email, password: PASSWORD }, { cookie: `return_to_after_authenticating=${encodeURIComponent(offsite)}` })
      assert.equal(response.statusCode, 302)
      assert.equal(response.headers.location, '/')
    })
  }
})

// The cookie format

// Rails' cookie jar signs with HMAC-SHA1 (signed_cookie_digest defaults to "SHA1") and keeps the
// legacy envelope {"_rails":{"message":<base64 of the JSON value>,"exp":…,"pur":…}}; see
// test/fixtures/rails-signing/README.md.
test('the session_token cookie is a Rails signed cookie (base64 _rails envelope, "--", hex HMAC) that app.signing verifies to the sessions row token', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await postSession(app, { email_address: users.jason.email, password: PASSWORD })
  const value = decodeURIComponent(sessionCookie(response)!.value)
  const match = /^([A-Za-z0-9+/]+={0,2})--([0-9a-f]{40}|[0-9a-f]{64})$/.exec(value)
  assert.ok(match, `"${value}" looks like <base64>--<hex HMAC>`)
  assert.equal(match[2]!.length, 40, 'HMAC-SHA1, as Rails signs cookies')
  const envelope = JSON.parse(Buffer.from(match[1]!, 'base64').toString('utf8')) as { _rails: { message?: string; data?: unknown; exp: string; pur: string } }
  assert.ok(envelope._rails, 'has the _rails envelope')
  assert.equal(envelope._rails.pur, 'cookie.session_token')
  assert.ok(Date.parse(envelope._rails.exp) > Date.now() + 19 * 365 * 24 * 60 * 60 * 1000, 'expires in about 20 years')

  const token = app.signing.verifyCookie('session_token', value)
  assert.ok(token)
  assert.equal(typeof envelope._rails.message, 'string', 'the value sits in "message", as the cookie jar writes it')
  assert.equal(JSON.parse(Buffer.from(envelope._rails.message!, 'base64').toString('utf8')), token)
  const row = app.store.read((m) => m.db.prepare('SELECT user_id FROM sessions WHERE token = ?').get(token)) as { user_id: number } | undefined
  assert.equal(row?.user_id, users.jason.id)
})

test('a session_token cookie minted by Rails under the same SECRET_KEY_BASE signs its session in', async (t) => {
  const vectors = JSON.parse(readFileSync(new URL('../fixtures/rails-signing/vectors.json', import.meta.url), 'utf8')) as {
    secret_key_base: string
    vectors: { id: string; input: { token: string }; set_cookie_value: string }[]
  }
  const minted = vectors.vectors.find((v) => v.id === 'cookie/valid/1')!
  const { app } = await buildTestApp(t, { env: { SECRET_KEY_BASE: vectors.secret_key_base } })
  app.store.writeNow((m) =>
    m.db
      .prepare("INSERT INTO sessions (user_id, token, last_active_at, created_at, updated_at) VALUES (?, ?, '2026-03-01 12:00:00', '2026-03-01 12:00:00', '2026-03-01 12:00:00')")
      .run(users.kevin.id, minted.input.token),
  )
  const response = await inject(app, `session_token=${minted.set_cookie_value}`, { method: 'GET', url: '/' })
  assert.equal(response.statusCode, 302)
  assert.match(String(response.headers.location), /^\/rooms\/\d+$/)

  const otherSecret = await buildTestApp(t)
  otherSecret.app.store.writeNow((m) =>
    m.db
      .prepare("INSERT INTO sessions (user_id, token, last_active_at, created_at, updated_at) VALUES (?, ?, '2026-03-01 12:00:00', '2026-03-01 12:00:00', '2026-03-01 12:00:00')")
      .run(users.kevin.id, minted.input.token),
  )
  const refused = await inject(otherSecret.app, `session_token=${minted.set_cookie_value}`, { method: 'GET', url: '/' })
  assert.equal(refused.headers.location, '/session/new', 'the same cookie under another secret is refused')
})

test('a tampered or foreign session_token cookie does not authenticate', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const value = cookie.slice('session_token='.length)
  const tampered = value.slice(0, -1) + (value.endsWith('0') ? '1' : '0')
  assert.equal(app.signing.verifyCookie('session_token', tampered), undefined)
  const token = app.signing.verifyCookie('session_token', value)!
  const otherPurpose = app.signing.signCookie('last_room', token)
  for (const bad of [tampered, otherPurpose, token, 'garbage']) {
    const response = await inject(app, `session_token=${bad}`, { method: 'GET', url: '/' })
    assert.equal(response.statusCode, 302)
    assert.equal(response.headers.location, '/session/new', `cookie ${bad.slice(0, 20)}… is refused`)
  }
})
