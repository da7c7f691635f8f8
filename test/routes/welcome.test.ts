import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, cookieHeader, form, inject, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'

test('/ redirects to the room in the last_room cookie when the person is a member of it', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  for (const room of [rooms.watercooler, rooms.hq, rooms.david_and_kevin, rooms.bender_and_kevin]) {
    const response = await inject(app, `${cookie}; last_room=${room.id}`, { method: 'GET', url: '/' })
    assert.equal(response.statusCode, 302)
    assert.equal(response.headers.location, `/rooms/${room.id}`)
  }
})

test('/ ignores a last_room the person is not in and redirects to their oldest room instead', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  for (const room of [rooms.watercooler, rooms.david_and_jason, rooms.david_and_kevin]) {
    const response = await inject(app, `${cookie}; last_room=${room.id}`, { method: 'GET', url: '/' })
    assert.equal(response.statusCode, 302)
    assert.equal(response.headers.location, `/rooms/${rooms.pets.id}`, `last_room=${room.id} (${room.type}) is ignored`)
  }
})

test('/ ignores a last_room that is not a room id and redirects to the oldest room', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  for (const value of ['999', '0', '-1', 'abc', '1e3', '2.5', '']) {
    await t.test(`/ ignores a last_room of "${value}"`, async () => {
      const response = await inject(app, `${cookie}; last_room=${value}`, { method: 'GET', url: '/' })
      assert.equal(response.statusCode, 302)
      assert.equal(response.headers.location, `/rooms/${rooms.pets.id}`)
    })
  }
})

test('/ without a last_room cookie redirects to the oldest room the person is in', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  app.store.writeNow((m) => m.db.prepare('DELETE FROM memberships WHERE user_id = ? AND room_id = ?').run(users.david.id, rooms.pets.id))
  const response = await inject(app, cookie, { method: 'GET', url: '/' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${rooms.hq.id}`)
})

test('/ shows "No rooms yet" to someone with no memberships', async (t) => {
  const { app } = await buildTestApp(t)
  const joined = await app.inject({
    method: 'POST',
    url: '/join/Ab12-Cd34-Ef56',
    ...form({ 'user[name]': 'Lonely Person', 'user[email_address]': 'lonely@example.com', 'user[password]': 'all-alone-here' }),
  })
  assert.equal(joined.statusCode, 302)
  const userId = app.store.read((m) => m.db.prepare("SELECT id FROM users WHERE email_address = 'lonely@example.com'").pluck().get()) as number
  const removed = app.store.writeNow((m) => m.db.prepare('DELETE FROM memberships WHERE user_id = ?').run(userId).changes)
  assert.equal(removed, 2, 'the join flow had granted the two open rooms')

  const response = await inject(app, cookieHeader(joined), { method: 'GET', url: '/' })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.ok(response.body.includes('No rooms yet'))
  assert.ok(response.body.includes('<meta name="current-user-name" content="Lonely Person">'))

  const withLastRoom = await inject(app, `${cookieHeader(joined)}; last_room=${rooms.pets.id}`, { method: 'GET', url: '/' })
  assert.equal(withLastRoom.statusCode, 200, 'a last_room cookie for a room they left does not redirect')
  assert.ok(withLastRoom.body.includes('No rooms yet'))
})

test('/ without a session redirects to /session/new', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/', headers: { cookie: `last_room=${rooms.pets.id}` } })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/session/new')
})
