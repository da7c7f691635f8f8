import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, cookieHeader, form, inject } from '../helper.ts'

const PERSON = { 'user[name]': 'Ada Lovelace', 'user[email_address]': 'ada@example.com', 'user[password]': 'analytical-engine' }

function count(app: FastifyInstance, table: string): number {
  return app.store.read((m) => m.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number)
}

function postFirstRun(app: FastifyInstance, fields: Record<string, string> = PERSON) {
  return app.inject({ method: 'POST', url: '/first_run', ...form(fields) })
}

test('GET /first_run shows the setup form when there is no account yet', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const response = await app.inject({ method: 'GET', url: '/first_run' })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.match(response.body, /<form action="\/first_run" method="post"/)
  assert.match(response.body, /name="user\[name\]"/)
  assert.match(response.body, /name="user\[email_address\]"/)
  assert.match(response.body, /name="user\[password\]"/)
})

test('POST /first_run creates the account named "Campfire"', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const response = await postFirstRun(app)
  assert.equal(response.statusCode, 302)
  const accounts = app.store.read((m) => m.db.prepare('SELECT name, join_code FROM accounts').all()) as { name: string; join_code: string }[]
  assert.equal(accounts.length, 1)
  assert.equal(accounts[0]!.name, 'Campfire')
  assert.match(accounts[0]!.join_code, /^[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}$/)
})

test('POST /first_run makes the person an administrator who is a member of the open room "All Talk" they created', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  await postFirstRun(app)
  const users = app.store.read((m) => m.db.prepare('SELECT id, name, email_address, role, status, password_digest FROM users').all()) as {
    id: number
    name: string
    email_address: string
    role: number
    status: number
    password_digest: string
  }[]
  assert.equal(users.length, 1)
  const user = users[0]!
  assert.equal(user.name, 'Ada Lovelace')
  assert.equal(user.email_address, 'ada@example.com')
  assert.equal(user.role, 1)
  assert.equal(user.status, 0)
  assert.match(user.password_digest, /^\$2[aby]\$/)
  assert.notEqual(user.password_digest, PERSON['user[password]'])

  const rooms = app.store.read((m) => m.db.prepare('SELECT id, name, type, creator_id FROM rooms').all()) as { id: number; name: string; type: string; creator_id: number }[]
  assert.deepEqual(rooms.map(({ name, type, creator_id }) => ({ name, type, creator_id })), [{ name: 'All Talk', type: 'Rooms::Open', creator_id: user.id }])

  const memberships = app.store.read((m) => m.db.prepare('SELECT room_id, user_id FROM memberships').all())
  assert.deepEqual(memberships, [{ room_id: rooms[0]!.id, user_id: user.id }])
})

test('POST /first_run signs the new administrator in, and / then takes them to All Talk', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const response = await postFirstRun(app)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
  const session = response.cookies.find((c) => c.name === 'session_token')
  assert.ok(session, 'a session_token cookie is set')
  assert.equal(count(app, 'sessions'), 1)

  const roomId = app.store.read((m) => m.db.prepare("SELECT id FROM rooms WHERE name = 'All Talk'").pluck().get()) as number
  const home = await inject(app, cookieHeader(response), { method: 'GET', url: '/' })
  assert.equal(home.statusCode, 302)
  assert.equal(home.headers.location, `/rooms/${roomId}`)
})

test('a second POST /first_run once an account exists creates nothing and redirects to /', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  await postFirstRun(app)
  const again = await postFirstRun(app, { 'user[name]': 'Mallory', 'user[email_address]': 'mallory@example.com', 'user[password]': 'takeover' })
  assert.equal(again.statusCode, 302)
  assert.equal(again.headers.location, '/')
  assert.equal(again.cookies.find((c) => c.name === 'session_token'), undefined, 'nobody is signed in')
  assert.equal(count(app, 'accounts'), 1)
  assert.equal(count(app, 'users'), 1)
  assert.equal(count(app, 'rooms'), 1)
  assert.equal(count(app, 'memberships'), 1)
  assert.equal(count(app, 'sessions'), 1)
  assert.equal(app.store.read((m) => m.db.prepare("SELECT COUNT(*) FROM users WHERE email_address = 'mallory@example.com'").pluck().get()), 0)
})

test('two concurrent POST /first_run requests create exactly one account', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const responses = await Promise.all([
    postFirstRun(app, { 'user[name]': 'First', 'user[email_address]': 'first@example.com', 'user[password]': 'password-one' }),
    postFirstRun(app, { 'user[name]': 'Second', 'user[email_address]': 'second@example.com', 'user[password]': 'password-two' }),
  ])
  for (const response of responses) {
    assert.equal(response.statusCode, 302)
    assert.equal(response.headers.location, '/')
  }
  assert.equal(count(app, 'accounts'), 1)
  assert.equal(count(app, 'users'), 1)
  assert.equal(count(app, 'rooms'), 1)
  assert.equal(count(app, 'memberships'), 1)
  assert.equal(responses.filter((r) => r.cookies.some((c) => c.name === 'session_token')).length, 1, 'only the winner is signed in')
})

test('POST /first_run with invalid input answers 422 with the form and creates nothing', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  for (const [what, fields] of [
    ['a blank name', { ...PERSON, 'user[name]': '   ' }],
    ['a bad email address', { ...PERSON, 'user[email_address]': 'not-an-email' }],
    ['a blank password', { ...PERSON, 'user[password]': '' }],
  ] as const) {
    await t.test(`POST /first_run with ${what} answers 422 with the form and creates nothing`, async () => {
      const response = await postFirstRun(app, fields)
      assert.equal(response.statusCode, 422)
      assert.match(String(response.headers['content-type']), /^text\/html/)
      assert.match(response.body, /<form action="\/first_run" method="post"/)
      assert.match(response.body, /role="alert"/)
      assert.equal(response.cookies.find((c) => c.name === 'session_token'), undefined)
      for (const table of ['accounts', 'users', 'rooms', 'memberships', 'sessions']) assert.equal(count(app, table), 0, `no ${table} row`)
    })
  }
})

test('POST /first_run with invalid input keeps what was typed, HTML-escaped, but never the password', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const response = await postFirstRun(app, { 'user[name]': '<b>Ada</b>', 'user[email_address]': 'nope', 'user[password]': 'hunter2-secret' })
  assert.equal(response.statusCode, 422)
  assert.ok(response.body.includes('&lt;b&gt;Ada&lt;/b&gt;'))
  assert.ok(!response.body.includes('<b>Ada</b>'))
  assert.ok(response.body.includes('value="nope"'))
  assert.ok(!response.body.includes('hunter2-secret'))
})

test('GET /first_run redirects to / once an account exists', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  await postFirstRun(app)
  const response = await app.inject({ method: 'GET', url: '/first_run' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
})

test('GET /first_run redirects to / for the fixture account too', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/first_run' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
})
