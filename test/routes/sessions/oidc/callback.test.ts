import { after, before, test } from 'node:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import assert from 'node:assert/strict'
import { FLOW_COOKIE } from '../../../../server/plugins/oidc.ts'
import { SESSION_COOKIE } from '../../../../server/plugins/auth.ts'
import { ROLES } from '../../../../server/models/user.ts'
import { users } from '../../../fixtures.ts'
import { form } from '../../../helper.ts'
import { KEY_CLIENT_ID, startTestProvider, type TestProvider } from '../../../support/oidc-provider.ts'
import { tempStorage } from '../../../helper.ts'
import { assertRefused, CALLBACK, comeBack, counts, pressButton, sessionCookie, signInAs, ssoApp } from './support.ts'

// The authorization code flow against a real oidc-provider on loopback (one for this file).
let provider: TestProvider
before(async () => {
  provider = await startTestProvider({ after: () => {} })
  provider.allowRedirects([CALLBACK])
})
after(() => provider.close())

test('the button starts the authorization code flow with PKCE, state and nonce at the discovered endpoint', async (t) => {
  const { app } = await ssoApp(t, provider)
  const { authorizationUrl, flow } = await pressButton(app)
  assert.equal(authorizationUrl.origin + authorizationUrl.pathname, `${provider.issuer}/auth`)
  const params = authorizationUrl.searchParams
  assert.equal(params.get('client_id'), 'campfire')
  assert.equal(params.get('redirect_uri'), CALLBACK)
  assert.equal(params.get('response_type'), 'code')
  assert.equal(params.get('scope'), 'openid email profile')
  assert.equal(params.get('code_challenge_method'), 'S256')
  assert.ok((params.get('code_challenge') ?? '').length >= 43)
  assert.equal(params.get('state'), flow.state)
  assert.equal(params.get('nonce'), flow.nonce)
})

test('a verified email matching an active person signs them in with a new session and links the provider sub', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('kevin-sub', { email: 'Kevin@37signals.com', email_verified: true, name: 'Kevin M' })
  const sessionsBefore = counts(app).sessions
  const { response } = await signInAs(app, provider, 'kevin-sub')
  assert.equal(response.statusCode, 302, response.body.slice(0, 300))
  assert.equal(response.headers.location, '/')
  const cookie = sessionCookie(response)
  assert.ok(cookie)
  assert.equal(counts(app).sessions, sessionsBefore + 1)
  const link = app.store.read((m) => m.oidcIdentities.findBySubject(`${provider.issuer}/`, 'kevin-sub') ?? m.oidcIdentities.findBySubject(provider.issuer, 'kevin-sub'))
  assert.equal(link?.user_id, users.kevin.id)
  const home = await app.inject({ method: 'GET', url: '/users/me/profile', headers: { cookie: `${SESSION_COOKIE}=${cookie}` } })
  assert.equal(home.statusCode, 200)
  assert.match(home.body, /Kevin McConnell/)
})

test('a client authenticating with a private key JWT instead of a secret signs people in', async (t) => {
  const keyFile = join(tempStorage(t), 'client-key.pem')
  writeFileSync(keyFile, provider.clientPrivateKeyPem)
  const { app } = await ssoApp(t, provider, { env: { OIDC_CLIENT_ID: KEY_CLIENT_ID, OIDC_CLIENT_SECRET: '', OIDC_CLIENT_PRIVATE_KEY_FILE: keyFile, OIDC_CLIENT_PRIVATE_KEY_ALG: 'ES256' } })
  provider.people.set('kevin-sub', { email: 'kevin@37signals.com', email_verified: true })
  const { response, authorizationUrl } = await signInAs(app, provider, 'kevin-sub')
  assert.equal(authorizationUrl.searchParams.get('client_id'), KEY_CLIENT_ID)
  assert.equal(response.statusCode, 302, response.body.slice(0, 300))
  assert.ok(sessionCookie(response))
})

test('a later sign-in finds the person by sub after the provider changed their email', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('jz-sub', { email: 'jz@37signals.com', email_verified: true })
  assert.equal((await signInAs(app, provider, 'jz-sub')).response.statusCode, 302)
  provider.people.set('jz-sub', { email: 'jason.z@elsewhere.org', email_verified: false })
  const again = await signInAs(app, provider, 'jz-sub')
  assert.equal(again.response.statusCode, 302, again.response.body.slice(0, 300))
  const session = app.store.read((m) => m.db.prepare('SELECT user_id FROM sessions ORDER BY id DESC LIMIT 1').pluck().get())
  assert.equal(session, users.jz.id)
})

test('an unknown person with a verified email in an allowed domain joins as a member of every open room', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('newcomer', { email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' })
  const before = counts(app)
  const { response } = await signInAs(app, provider, 'newcomer')
  assert.equal(response.statusCode, 302, response.body.slice(0, 300))
  assert.ok(sessionCookie(response))
  const person = app.store.read((m) => m.db.prepare("SELECT id, name, role, password_digest FROM users WHERE email_address = 'ada@example.com'").get()) as { id: number; name: string; role: number; password_digest: string | null }
  assert.equal(person.name, 'Ada Lovelace')
  assert.equal(person.role, ROLES.member)
  assert.equal(person.password_digest, null)
  const rooms = app.store.read((m) => m.db.prepare("SELECT r.id FROM memberships ms JOIN rooms r ON r.id = ms.room_id WHERE ms.user_id = ? ORDER BY r.id").pluck().all(person.id))
  const open = app.store.read((m) => m.db.prepare("SELECT id FROM rooms WHERE type = 'Rooms::Open' ORDER BY id").pluck().all())
  assert.deepEqual(rooms, open)
  assert.deepEqual(counts(app), { users: before.users + 1, sessions: before.sessions + 1, identities: before.identities + 1 })
})

test('the session cookie changes at sign-in, whatever session cookie the browser came with', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('david-sub', { email: 'david@37signals.com', email_verified: true })
  const planted = app.signing.signCookie(SESSION_COOKIE, 'planted-by-someone-else')
  const started = await pressButton(app, { cookie: `${SESSION_COOKIE}=${planted}` })
  const callback = await provider.signIn(started.authorizationUrl.href, 'david-sub')
  const response = await comeBack(app, callback, `${started.flowCookie}; ${SESSION_COOKIE}=${planted}`)
  assert.equal(response.statusCode, 302)
  const issued = sessionCookie(response)
  assert.ok(issued)
  assert.notEqual(decodeURIComponent(issued), planted)
  const token = app.signing.verifyCookie(SESSION_COOKIE, decodeURIComponent(issued))
  assert.ok(token && token !== 'planted-by-someone-else')
  assert.equal(app.store.read((m) => m.sessions.findByToken('planted-by-someone-else')), undefined)
})

test('signing out of a session the provider started ends the provider session too, and the session row', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('david-sub', { email: 'david@37signals.com', email_verified: true })
  const { response } = await signInAs(app, provider, 'david-sub')
  const cookie = `${SESSION_COOKIE}=${sessionCookie(response)}`
  const sessions = counts(app).sessions
  const out = await app.inject({ method: 'DELETE', url: '/session', headers: { cookie, 'sec-fetch-site': 'same-origin' } })
  assert.equal(out.statusCode, 302)
  const location = new URL(out.headers.location as string)
  assert.equal(location.origin + location.pathname, `${provider.issuer}/session/end`)
  assert.ok(location.searchParams.get('id_token_hint'))
  assert.equal(location.searchParams.get('post_logout_redirect_uri'), 'http://localhost/')
  assert.equal(counts(app).sessions, sessions - 1)
  assert.equal(app.store.read((m) => m.db.prepare('SELECT count(*) FROM oidc_sessions').pluck().get()), 0)
  // A password session signs out at home, as before.
  const password = await app.inject({ method: 'POST', url: '/session', ...form({ email_address: users.jason.email, password: 'secret123456' }) })
  const passwordCookie = `${SESSION_COOKIE}=${sessionCookie(password)}`
  const home = await app.inject({ method: 'DELETE', url: '/session', headers: { cookie: passwordCookie, 'sec-fetch-site': 'same-origin' } })
  assert.equal(home.headers.location, '/')
})

test('a tampered state is refused with no session and no user', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('newcomer-2', { email: 'grace@example.com', email_verified: true })
  const started = await pressButton(app)
  const callback = await provider.signIn(started.authorizationUrl.href, 'newcomer-2')
  callback.searchParams.set('state', 'x' + callback.searchParams.get('state'))
  const before = counts(app)
  assertRefused(app, await comeBack(app, callback, started.flowCookie), before, 401, /could not be verified/)
})

test('a replayed callback is refused, with or without the flow cookie', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('david-sub', { email: 'david@37signals.com', email_verified: true })
  const first = await signInAs(app, provider, 'david-sub')
  assert.equal(first.response.statusCode, 302)
  assert.ok(first.response.cookies.some((c) => c.name === FLOW_COOKIE && c.value === ''), 'the flow cookie is cleared')
  const before = counts(app)
  assertRefused(app, await comeBack(app, first.callback, first.flowCookie), before, 401, /could not be verified/)
  assertRefused(app, await comeBack(app, first.callback, null), before, 401, /could not be verified/)
})

test('a reused authorization code is refused by the provider, even where the state is new to the server', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('david-sub', { email: 'david@37signals.com', email_verified: true })
  const first = await signInAs(app, provider, 'david-sub')
  assert.equal(first.response.statusCode, 302)
  // Another server process (its own memory of used states) is sent the same code.
  const { app: other } = await ssoApp(t, provider)
  const before = counts(other)
  assertRefused(other, await comeBack(other, first.callback, first.flowCookie), before, 401, /could not be verified/)
})

test('an ID token with another nonce is refused', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('newcomer-3', { email: 'hedy@example.com', email_verified: true })
  const started = await pressButton(app)
  const callback = await provider.signIn(started.authorizationUrl.href, 'newcomer-3')
  const forged = app.signing.signCookie(FLOW_COOKIE, JSON.stringify({ ...started.flow, nonce: 'some-other-nonce' }))
  const before = counts(app)
  assertRefused(app, await comeBack(app, callback, `${FLOW_COOKIE}=${forged}`), before, 401, /could not be verified/)
})

test('an ID token for another audience is refused', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('newcomer-4', { email: 'alan@example.com', email_verified: true })
  const started = await pressButton(app)
  const callback = await provider.signIn(started.authorizationUrl.href, 'newcomer-4')
  provider.faults.tokenResponse = await provider.idTokenForAnotherClient('newcomer-4', started.flow.nonce)
  t.after(() => void (provider.faults.tokenResponse = null))
  const before = counts(app)
  assertRefused(app, await comeBack(app, callback, started.flowCookie), before, 401, /could not be verified/)
})

test('an expired ID token is refused', async (t) => {
  const { app } = await ssoApp(t, provider, { clockSkew: 2 * 60 * 60 })
  provider.people.set('newcomer-5', { email: 'barbara@example.com', email_verified: true })
  const started = await pressButton(app)
  const callback = await provider.signIn(started.authorizationUrl.href, 'newcomer-5')
  const before = counts(app)
  assertRefused(app, await comeBack(app, callback, started.flowCookie), before, 401, /could not be verified/)
})

test('an ID token issued an hour in the future by the clock here is refused; a few seconds ahead is tolerated', async (t) => {
  // This server's clock an hour behind the provider's: the token's iat is an hour from now here.
  const { app } = await ssoApp(t, provider, { clockSkew: -60 * 60 })
  provider.people.set('newcomer-future', { email: 'grace@example.com', email_verified: true })
  const started = await pressButton(app)
  const callback = await provider.signIn(started.authorizationUrl.href, 'newcomer-future')
  const before = counts(app)
  assertRefused(app, await comeBack(app, callback, started.flowCookie), before, 401, /could not be verified/)

  const { app: close } = await ssoApp(t, provider, { clockSkew: -2 })
  provider.people.set('newcomer-nearly-now', { email: 'ada@example.com', email_verified: true })
  const { response } = await signInAs(close, provider, 'newcomer-nearly-now')
  assert.equal(response.statusCode, 302, response.body.slice(0, 300))
})

test('an ID token signed by a key the provider does not publish is refused', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('newcomer-6', { email: 'margaret@example.com', email_verified: true })
  const started = await pressButton(app)
  const callback = await provider.signIn(started.authorizationUrl.href, 'newcomer-6')
  provider.faults.foreignJwks = true
  t.after(() => void (provider.faults.foreignJwks = false))
  const before = counts(app)
  assertRefused(app, await comeBack(app, callback, started.flowCookie), before, 401, /could not be verified/)
})

test('an unverified email is refused', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('unverified', { email: 'kevin@37signals.com', email_verified: false })
  const before = counts(app)
  const { response } = await signInAs(app, provider, 'unverified')
  assertRefused(app, response, before, 403, /has not verified your email address/)
})

test('an email whose domain Microsoft Entra marks as verified (xms_edov) counts as verified', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('entra-sub', { email: 'jason@37signals.com', xms_edov: true })
  const { response } = await signInAs(app, provider, 'entra-sub')
  assert.equal(response.statusCode, 302, response.body.slice(0, 300))
  assert.equal(app.store.read((m) => m.db.prepare('SELECT user_id FROM sessions ORDER BY id DESC LIMIT 1').pluck().get()), users.jason.id)
})

test('a verified email in a domain that is not allowed is refused', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('outsider', { email: 'eve@elsewhere.org', email_verified: true })
  const before = counts(app)
  const { response } = await signInAs(app, provider, 'outsider')
  assertRefused(app, response, before, 403, /can&#39;t join this Campfire|can't join this Campfire/)
})

test('a deactivated person is refused, even when linked by sub', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('kevin-sub', { email: 'kevin@37signals.com', email_verified: true })
  assert.equal((await signInAs(app, provider, 'kevin-sub')).response.statusCode, 302)
  await app.store.write((m) => m.deactivatable.deactivate(users.kevin.id))
  const before = counts(app)
  const { response } = await signInAs(app, provider, 'kevin-sub')
  assertRefused(app, response, before, 403, /account can&#39;t sign in|account can't sign in/)
})

test('a deactivated person never linked to the provider is refused, though their domain is allowed, and nobody new is made', async (t) => {
  const { app } = await ssoApp(t, provider, { env: { OIDC_ALLOWED_DOMAINS: '37signals.com' } })
  await app.store.write((m) => m.deactivatable.deactivate(users.kevin.id))
  provider.people.set('rita-like-sub', { email: 'Kevin@37signals.com', email_verified: true })
  const before = counts(app)
  assertRefused(app, (await signInAs(app, provider, 'rita-like-sub')).response, before, 403, /account can&#39;t sign in|account can't sign in/)
})

test('a deactivated person refused under one sub is refused under a second sub with the same email', async (t) => {
  const { app } = await ssoApp(t, provider, { env: { OIDC_ALLOWED_DOMAINS: '37signals.com' } })
  provider.people.set('kevin-first-sub', { email: 'kevin@37signals.com', email_verified: true })
  provider.people.set('kevin-second-sub', { email: 'kevin@37signals.com', email_verified: true })
  assert.equal((await signInAs(app, provider, 'kevin-first-sub')).response.statusCode, 302)
  await app.store.write((m) => m.deactivatable.deactivate(users.kevin.id))
  const before = counts(app)
  assertRefused(app, (await signInAs(app, provider, 'kevin-first-sub')).response, before, 403, /account can&#39;t sign in|account can't sign in/)
  assertRefused(app, (await signInAs(app, provider, 'kevin-second-sub')).response, before, 403, /account can&#39;t sign in|account can't sign in/)
})

test('a banned person never linked is refused under any sub, though their domain is allowed', async (t) => {
  const { app } = await ssoApp(t, provider, { env: { OIDC_ALLOWED_DOMAINS: '37signals.com' } })
  await app.store.write((m) => m.bannable.setStatus(users.jz.id, 2))
  provider.people.set('jz-new-sub', { email: 'JZ@37signals.com', email_verified: true })
  const before = counts(app)
  assertRefused(app, (await signInAs(app, provider, 'jz-new-sub')).response, before, 403, /account can&#39;t sign in|account can't sign in/)
})

test('a verified email with the Kelvin sign for K neither signs in as Kevin nor joins beside him', async (t) => {
  const { app } = await ssoApp(t, provider, { env: { OIDC_ALLOWED_DOMAINS: '37signals.com' } })
  provider.people.set('kelvin-sub', { email: '\u212Aevin@37signals.com', email_verified: true })
  const before = counts(app)
  assertRefused(app, (await signInAs(app, provider, 'kelvin-sub')).response, before, 403, /looks like someone else/)
  assert.equal(app.store.read((m) => m.oidcIdentities.forUser(users.kevin.id, app.oidc!.issuer)), undefined, 'Kevin is not linked to it')
})

test('a banned person is refused, by email and from a banned address', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('jason-sub', { email: 'jason@37signals.com', email_verified: true })
  await app.store.write((m) => m.bannable.setStatus(users.jason.id, 2))
  const before = counts(app)
  assertRefused(app, (await signInAs(app, provider, 'jason-sub')).response, before, 403, /account can&#39;t sign in|account can't sign in/)
  // Someone else, coming back to an address a ban has covered since they pressed the button
  // (from a banned address the button itself answers 429, as every form does).
  provider.people.set('david-sub', { email: 'david@37signals.com', email_verified: true })
  const started = await pressButton(app)
  const callback = await provider.signIn(started.authorizationUrl.href, 'david-sub')
  await app.store.write((m) => m.bans.create(users.jason.id, '127.0.0.1'))
  assertRefused(app, await comeBack(app, callback, started.flowCookie), before, 403, /account can&#39;t sign in|account can't sign in/)
  const button = await app.inject({ method: 'POST', url: '/session/oidc/start', headers: { 'sec-fetch-site': 'same-origin' } })
  assert.equal(button.statusCode, 429)
})

test('single sign-on counts against the sign-in rate limit', async (t) => {
  const { app, signInLimit } = await ssoApp(t, provider)
  provider.people.set('david-sub', { email: 'david@37signals.com', email_verified: true })
  for (let i = 0; i < 10; i++) await signInLimit.hit('127.0.0.1')
  const before = counts(app)
  assertRefused(app, (await signInAs(app, provider, 'david-sub')).response, before, 429, /Too many requests/)
})

test('a provider that stops answering is a timeout with the sign-in page, and passwords still work', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('david-sub', { email: 'david@37signals.com', email_verified: true })
  const started = await pressButton(app)
  const callback = await provider.signIn(started.authorizationUrl.href, 'david-sub')
  provider.faults.stalled = true
  t.after(() => void (provider.faults.stalled = false))
  const before = counts(app)
  let begun = performance.now()
  assertRefused(app, await comeBack(app, callback, started.flowCookie), before, 503, /didn&#39;t answer in time|didn't answer in time/)
  assert.ok(performance.now() - begun < 6000, 'answered within the timeout')
  // A server that has not discovered the provider yet answers the button the same way.
  const { app: fresh } = await ssoApp(t, provider)
  begun = performance.now()
  const button = await fresh.inject({ method: 'POST', url: '/session/oidc/start', headers: { 'sec-fetch-site': 'same-origin' } })
  assert.equal(button.statusCode, 503)
  assert.match(button.body, /name="password"/)
  assert.ok(performance.now() - begun < 6000, 'answered within the timeout')
  const password = await fresh.inject({ method: 'POST', url: '/session', ...form({ email_address: users.david.email, password: 'secret123456' }) })
  assert.equal(password.statusCode, 302)
  assert.ok(sessionCookie(password))
})
