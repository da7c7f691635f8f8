import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, cookieHeader, form, inject, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'

const JOIN_CODE = 'Ab12-Cd34-Ef56'
const NEWCOMER = { 'user[name]': 'Ruby Newcomer', 'user[email_address]': 'ruby@example.com', 'user[password]': 'a-new-password' }

function join(app: FastifyInstance, fields: Record<string, string> = NEWCOMER, code = JOIN_CODE, cookie?: string) {
  const request = form(fields)
  return app.inject({ method: 'POST', url: `/join/${code}`, payload: request.payload, headers: { ...request.headers, ...(cookie ? { cookie } : {}) } })
}

function countUsers(app: FastifyInstance): number {
  return app.store.read((m) => m.db.prepare('SELECT COUNT(*) FROM users').pluck().get() as number)
}

test('GET /join/<the account join code> shows the join form', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: `/join/${JOIN_CODE}` })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.ok(response.body.includes(`<form action="/join/${JOIN_CODE}" method="post"`))
  assert.match(response.body, /name="user\[name\]"/)
  assert.match(response.body, /name="user\[email_address\]"/)
  assert.match(response.body, /name="user\[password\]"/)
  assert.ok(response.body.includes('Join 37signals'), 'names the account')
})

test('GET /join/<a wrong code> answers 404', async (t) => {
  const { app } = await buildTestApp(t)
  for (const code of ['Zz99-Zz99-Zz99', 'ab12-cd34-ef56', 'Ab12-Cd34-Ef5', `${JOIN_CODE}x`]) {
    await t.test(`GET /join/${code} answers 404`, async () => {
      const response = await app.inject({ method: 'GET', url: `/join/${code}` })
      assert.equal(response.statusCode, 404)
    })
  }
})

test('POST /join/<a wrong code> answers 404 and creates nobody', async (t) => {
  const { app } = await buildTestApp(t)
  const before = countUsers(app)
  const response = await join(app, NEWCOMER, 'Zz99-Zz99-Zz99')
  assert.equal(response.statusCode, 404)
  assert.equal(countUsers(app), before)
  assert.equal(response.cookies.find((c) => c.name === 'session_token'), undefined)
})

test('GET /join/<code> answers 404 when there is no account at all', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const response = await app.inject({ method: 'GET', url: `/join/${JOIN_CODE}` })
  assert.equal(response.statusCode, 404)
})

test('POST /join/<code> creates an active member (role 0) with a hashed password', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await join(app)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
  const user = app.store.read((m) => m.db.prepare("SELECT id, name, email_address, role, status, password_digest FROM users WHERE email_address = 'ruby@example.com'").get()) as
    | { id: number; name: string; email_address: string; role: number; status: number; password_digest: string }
    | undefined
  assert.ok(user)
  assert.equal(user.name, 'Ruby Newcomer')
  assert.equal(user.role, 0)
  assert.equal(user.status, 0)
  assert.match(user.password_digest, /^\$2[aby]\$/)
})

test('POST /join/<code> grants the newcomer every open room (pets, hq) and no closed or direct room', async (t) => {
  const { app } = await buildTestApp(t)
  await join(app)
  const roomIds = app.store.read((m) =>
    m.db.prepare("SELECT room_id FROM memberships JOIN users ON users.id = memberships.user_id WHERE users.email_address = 'ruby@example.com' ORDER BY room_id").pluck().all(),
  )
  assert.deepEqual(roomIds, [rooms.pets.id, rooms.hq.id])
})

test('POST /join/<code> signs the newcomer in, and / takes them to their oldest room', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await join(app)
  const session = response.cookies.find((c) => c.name === 'session_token')
  assert.ok(session, 'session_token is set')
  const home = await inject(app, cookieHeader(response), { method: 'GET', url: '/' })
  assert.equal(home.statusCode, 302)
  assert.equal(home.headers.location, `/rooms/${rooms.pets.id}`)
})

test('POST /join/<code> with an email that is already taken redirects to /session/new?email_address=… and creates nobody', async (t) => {
  const { app } = await buildTestApp(t)
  const before = countUsers(app)
  const response = await join(app, { ...NEWCOMER, 'user[email_address]': users.jz.email })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/session/new?email_address=${encodeURIComponent(users.jz.email)}`)
  assert.equal(response.cookies.find((c) => c.name === 'session_token'), undefined)
  assert.equal(countUsers(app), before)
})

test('POST /join/<code> treats an email differing only in letter case as taken', async (t) => {
  const { app } = await buildTestApp(t)
  const before = countUsers(app)
  const response = await join(app, { ...NEWCOMER, 'user[email_address]': 'JZ@37Signals.com' })
  assert.equal(response.statusCode, 302)
  assert.match(String(response.headers.location), /^\/session\/new\?email_address=/)
  assert.equal(countUsers(app), before)
})

test('POST /join/<code> with the email of someone deactivated, in any letter case, answers 422 and creates nobody: only an administrator brings them back', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.deactivatable.deactivate(users.kevin.id))
  const before = countUsers(app)
  for (const email of [users.kevin.email, 'Kevin@37Signals.COM']) {
    const response = await join(app, { ...NEWCOMER, 'user[email_address]': email })
    assert.equal(response.statusCode, 422, email)
    assert.match(response.body, /can&#39;t join here|can't join here/)
    assert.match(response.body, /administrator/)
    assert.equal(response.cookies.find((c) => c.name === 'session_token'), undefined)
  }
  assert.equal(countUsers(app), before)
})

test('POST /join/<code> with the email of someone banned answers 422 and creates nobody', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.bannable.setStatus(users.jz.id, 2))
  const before = countUsers(app)
  const response = await join(app, { ...NEWCOMER, 'user[email_address]': users.jz.email.toUpperCase() })
  assert.equal(response.statusCode, 422)
  assert.match(response.body, /can&#39;t join here|can't join here/)
  assert.equal(countUsers(app), before)
})

test('POST /join/<code> refuses an address that only Unicode case folding makes someone else\'s (the Kelvin sign for K), and takes new ones with non-ASCII letters', async (t) => {
  const { app } = await buildTestApp(t)
  const before = countUsers(app)
  for (const email of ['\u212Aevin@37signals.com', '\uFF4Bevin@37signals.com', 'kevin@37\u017Fignals.com']) {
    const response = await join(app, { ...NEWCOMER, 'user[email_address]': email })
    assert.equal(response.statusCode, 422, email)
    assert.match(response.body, /looks like someone else&#39;s|looks like someone else's/)
  }
  assert.equal(countUsers(app), before)
  const welcome = await join(app, { ...NEWCOMER, 'user[email_address]': 'Jos\u00E9@Example.com' })
  assert.equal(welcome.statusCode, 302)
  assert.equal(welcome.headers.location, '/')
  assert.equal(app.store.read((m) => m.db.prepare('SELECT email_address FROM users ORDER BY id DESC LIMIT 1').pluck().get()), 'jos\u00E9@example.com', 'stored with its ASCII letters lowercased only')
})

test('a signed-in person opening the join link is redirected to /', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  const page = await inject(app, cookie, { method: 'GET', url: `/join/${JOIN_CODE}` })
  assert.equal(page.statusCode, 302)
  assert.equal(page.headers.location, '/')

  const before = countUsers(app)
  const posted = await join(app, NEWCOMER, JOIN_CODE, cookie)
  assert.equal(posted.statusCode, 302)
  assert.equal(posted.headers.location, '/')
  assert.equal(countUsers(app), before, 'a signed-in person cannot create another user')
})

const INVALID = [
  ['a blank name', { ...NEWCOMER, 'user[name]': '' }],
  ['a bad email address', { ...NEWCOMER, 'user[email_address]': 'ruby-at-example.com' }],
  ['a blank password', { ...NEWCOMER, 'user[password]': '' }],
  ['no fields at all', {}],
] as const

test('POST /join/<code> with invalid input answers 422 with the form and creates nobody', async (t) => {
  const { app } = await buildTestApp(t)
  const before = countUsers(app)
  for (const [what, fields] of INVALID) {
    await t.test(`POST /join/<code> with ${what} answers 422 with the form and creates nobody`, async () => {
      const response = await join(app, fields)
      assert.equal(response.statusCode, 422)
      assert.ok(response.body.includes(`<form action="/join/${JOIN_CODE}" method="post"`))
      assert.match(response.body, /role="alert"/)
      assert.equal(countUsers(app), before)
      assert.equal(response.cookies.find((c) => c.name === 'session_token'), undefined)
    })
  }
})

test('POST /join/<code> accepts a password longer than the form’s 72-character cap, and it signs in', async (t) => {
  const { app } = await buildTestApp(t)
  const password = 'p'.repeat(100)
  const response = await join(app, { ...NEWCOMER, 'user[password]': password })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
  const signedIn = await app.inject({ method: 'POST', url: '/session', ...form({ email_address: 'ruby@example.com', password }) })
  assert.equal(signedIn.statusCode, 302)
  assert.ok(signedIn.cookies.some((c) => c.name === 'session_token'))
})

test('POST /join/<code> stores the email address trimmed and lowercased, so signing in with any case works', async (t) => {
  const { app } = await buildTestApp(t)
  await join(app, { ...NEWCOMER, 'user[email_address]': '  Ruby@Example.COM ' })
  const stored = app.store.read((m) => m.db.prepare("SELECT email_address FROM users WHERE name = 'Ruby Newcomer'").pluck().get())
  assert.equal(stored, 'ruby@example.com')
  const signedIn = await app.inject({ method: 'POST', url: '/session', ...form({ email_address: 'RUBY@example.com', password: NEWCOMER['user[password]'] }) })
  assert.equal(signedIn.statusCode, 302)
})
