import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, inject, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { TURBO_STREAM_TYPE } from '../../../server/rendering/turbo-streams.ts'
import { addPeople, botCookie, get, query, send } from './support.ts'

const role = (app: FastifyInstance, id: number) => query<number>(app, 'SELECT role FROM users WHERE id = ?', id)
const status = (app: FastifyInstance, id: number) => query<number>(app, 'SELECT status FROM users WHERE id = ?', id)
const rows = (app: FastifyInstance, table: string, userId: number) => query<number>(app, `SELECT count(*) FROM ${table} WHERE user_id = ?`, userId)
const listedIds = (html: string) => [...html.matchAll(/<li class="account-person[^"]*">\s*<figure[^>]*>\s*<a href="\/users\/(\d+)"/g)].map((match) => Number(match[1]))

test('an administrator makes a member an administrator with the ticked box (hidden member, then administrator)', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'david'), 'PATCH', `/account/users/${users.jz.id}`, [['user[role]', 'member'], ['user[role]', 'administrator']])
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/account/edit')
  assert.equal(role(app, users.jz.id), 1)
  const page = (await get(app, await signIn(app, 'david'), '/account/edit')).body
  assert.match(page, new RegExp(`id="role_user_${users.jz.id}" value="administrator" class="for-screen-reader" data-action="form#submit" checked>`))
})

test('an administrator makes another administrator a member with the unticked box, over PUT and POST with _method', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  assert.equal((await send(app, cookie, 'PUT', `/account/users/${users.jason.id}`, [['user[role]', 'member']])).statusCode, 302)
  assert.equal(role(app, users.jason.id), 0)
  assert.equal((await send(app, cookie, 'POST', `/account/users/${users.jason.id}`, [['_method', 'patch'], ['user[role]', 'administrator']])).statusCode, 302)
  assert.equal(role(app, users.jason.id), 1)
})

for (const value of ['bot', '2', 'owner', '']) {
  test(`a role of "${value}" makes the person a member, never a bot`, async (t) => {
    const { app } = await buildTestApp(t)
    assert.equal((await send(app, await signIn(app, 'david'), 'PATCH', `/account/users/${users.jason.id}`, [['user[role]', value]])).statusCode, 302)
    assert.equal(role(app, users.jason.id), 0)
  })
}

test('nobody changes their own role, not even through the server', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'david'), 'PATCH', `/account/users/${users.david.id}`, [['user[role]', 'member']])
  assert.equal(response.statusCode, 403)
  assert.equal(role(app, users.david.id), 1)
})

test('members and bots may not change roles or remove people', async (t) => {
  const { app } = await buildTestApp(t)
  for (const cookie of [await signIn(app, 'jz'), await botCookie(app)]) {
    assert.equal((await send(app, cookie, 'PATCH', `/account/users/${users.kevin.id}`, [['user[role]', 'administrator']])).statusCode, 403)
    assert.equal((await send(app, cookie, 'DELETE', `/account/users/${users.kevin.id}`)).statusCode, 403)
  }
  assert.equal(role(app, users.kevin.id), 0)
  assert.equal(status(app, users.kevin.id), 0)
})

test('unknown ids, bots and people who are no longer active answer 404 to role changes and removal', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare('UPDATE users SET status = 2 WHERE id = ?').run(users.kevin.id))
  addPeople(app, 1, 1)
  const gone = query<number>(app, 'SELECT max(id) FROM users')
  const cookie = await signIn(app, 'david')
  for (const id of ['999', 'abc', '0', '-1', '1e3', String(users.bender.id), String(users.kevin.id), String(gone)]) {
    assert.equal((await send(app, cookie, 'PATCH', `/account/users/${id}`, [['user[role]', 'administrator']])).statusCode, 404, id)
    assert.equal((await send(app, cookie, 'DELETE', `/account/users/${id}`)).statusCode, 404, id)
  }
  assert.equal(role(app, users.bender.id), 2)
  assert.equal(status(app, users.bender.id), 0)
})

test('a role change without a user form answers 400', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  assert.equal((await send(app, cookie, 'PATCH', `/account/users/${users.jz.id}`, [['role', 'administrator']])).statusCode, 400)
  assert.equal((await send(app, cookie, 'PATCH', `/account/users/${users.jz.id}`, [['user', 'administrator']])).statusCode, 400)
  assert.equal(role(app, users.jz.id), 0)
})

// Kevin, with something in every table deactivation touches.
async function kevinEverywhere(app: FastifyInstance): Promise<string> {
  const cookie = await signIn(app, 'kevin')
  app.store.writeNow((m) => {
    m.db.prepare("INSERT INTO push_subscriptions (user_id, endpoint, p256dh_key, auth_key, created_at, updated_at) VALUES (?, 'https://push.example/1', 'k', 'a', '2026-03-01', '2026-03-01')").run(users.kevin.id)
    m.db.prepare("INSERT INTO searches (user_id, query, created_at, updated_at) VALUES (?, 'coffee', '2026-03-01', '2026-03-01')").run(users.kevin.id)
    m.db.prepare("INSERT INTO messages (room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, ?, 'kevin-said-hi', '2026-03-01', '2026-03-01')").run(rooms.pets.id, users.kevin.id)
  })
  return cookie
}

test('removing a person deactivates them: shared rooms, push subscriptions, searches and sessions go; pings and messages stay', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await kevinEverywhere(app)
  const disconnected: [number, unknown][] = []
  const disconnect = app.cable.disconnectUser
  app.cable.disconnectUser = (id, options) => (disconnected.push([id, options]), disconnect(id, options))
  const response = await send(app, await signIn(app, 'david'), 'DELETE', `/account/users/${users.kevin.id}`)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/account/edit')
  assert.equal(status(app, users.kevin.id), 1)
  assert.match(query<string>(app, 'SELECT email_address FROM users WHERE id = ?', users.kevin.id), /^kevin-deactivated-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}@37signals\.com$/)
  const roomsLeft = app.store.read((m) => m.db.prepare('SELECT room_id FROM memberships WHERE user_id = ? ORDER BY room_id').pluck().all(users.kevin.id))
  assert.deepEqual(roomsLeft, [rooms.david_and_kevin.id, rooms.bender_and_kevin.id], 'only the pings are kept')
  for (const table of ['push_subscriptions', 'searches', 'sessions']) assert.equal(rows(app, table, users.kevin.id), 0, table)
  assert.equal(query<number>(app, 'SELECT count(*) FROM messages WHERE creator_id = ?', users.kevin.id), 1, 'their messages stay')
  assert.deepEqual(disconnected, [[users.kevin.id, { reconnect: false }]], 'their sockets close for good')
  const after = await get(app, kevin, `/rooms/${rooms.pets.id}`)
  assert.equal(after.statusCode, 302, 'their old session no longer signs them in')
  assert.equal(after.headers.location, '/session/new')
})

test('nobody removes themselves', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal((await send(app, await signIn(app, 'david'), 'DELETE', `/account/users/${users.david.id}`)).statusCode, 403)
  assert.equal(status(app, users.david.id), 0)
})

test('a removed person leaves other sidebars, the account page and room member lists on the next request', async (t) => {
  const { app } = await buildTestApp(t)
  const jz = await signIn(app, 'jz')
  const david = await signIn(app, 'david')
  const placeholder = `action="/rooms/directs?user_ids%5B%5D=${users.kevin.id}"`
  for (let i = 0; i < 2; i++) assert.ok((await get(app, jz, '/users/me/sidebar')).body.includes(placeholder), 'kevin is a ping placeholder in JZ’s sidebar')
  assert.ok((await get(app, david, '/account/edit')).body.includes(`<strong>${users.kevin.name}</strong>`))
  await send(app, david, 'DELETE', `/account/users/${users.kevin.id}`)
  assert.ok(!(await get(app, jz, '/users/me/sidebar')).body.includes(placeholder), 'the cached sidebar was rebuilt without him')
  assert.ok(!(await get(app, david, '/account/edit')).body.includes(`<strong>${users.kevin.name}</strong>`))
  assert.ok(!(await get(app, david, `/rooms/closeds/${rooms.watercooler.id}/edit`)).body.includes(users.kevin.name))
})

test('the account page lists 500 people and a list item holding a lazy frame for the next page, which carries on without repeats', async (t) => {
  const { app } = await buildTestApp(t)
  addPeople(app, 600)
  const cookie = await signIn(app, 'jz')
  const first = (await get(app, cookie, '/account/edit')).body
  assert.equal(listedIds(first).length, 500)
  assert.match(first, /<li id="next_page_container" class="account-people__more"><turbo-frame id="next_page" loading="lazy" src="\/account\/users.turbo_stream\?page=2" class="flex center">/)
  const next = await get(app, cookie, '/account/users.turbo_stream?page=2')
  assert.equal(next.statusCode, 200)
  assert.equal(next.headers['content-type'], TURBO_STREAM_TYPE)
  assert.match(next.body, /^<turbo-stream action="replace" target="next_page_container"><template>/)
  assert.ok(!next.body.includes('action="append"'), 'page 2 is the last one')
  assert.ok(!next.body.includes('id="next_page_container"'), 'and brings no further frame')
  const all = [...listedIds(first), ...listedIds(next.body)]
  assert.equal(new Set(all).size, all.length, 'no one twice')
  const everyone = app.store.read((m) => m.db.prepare('SELECT id FROM users WHERE role != 2 AND status = 0').pluck().all()) as number[]
  assert.deepEqual([...all].sort((a, b) => a - b), everyone.sort((a, b) => a - b))
})

test('a middle page replaces its frame’s list item and appends the item for the page after it', async (t) => {
  const { app } = await buildTestApp(t)
  addPeople(app, 1100)
  const response = await get(app, await signIn(app, 'jz'), '/account/users?page=2', { accept: 'text/vnd.turbo-stream.html, text/html' })
  assert.equal(response.statusCode, 200)
  assert.equal(listedIds(response.body).length, 500)
  assert.match(response.body, /<turbo-stream action="append" target="account_users"><template>\s*<li id="next_page_container" class="account-people__more"><turbo-frame id="next_page" loading="lazy" src="\/account\/users.turbo_stream\?page=3"/)
  const beyond = await get(app, await signIn(app, 'jz'), '/account/users.turbo_stream?page=9')
  assert.equal(beyond.statusCode, 200)
  assert.equal(listedIds(beyond.body).length, 0)
})

test('the next pages are turbo streams only, and the page must be a number; a person opening the address lands on the account page', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const opened = await inject(app, cookie, { method: 'GET', url: '/account/users?page=2', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } })
  assert.equal(opened.statusCode, 302)
  assert.equal(opened.headers.location, '/account/edit')
  assert.equal((await inject(app, cookie, { method: 'GET', url: '/account/users?page=2', headers: { accept: 'application/json' } })).statusCode, 406)
  for (const page of ['0', '-1', 'two', '1.5', '9999999']) assert.equal((await get(app, cookie, `/account/users.turbo_stream?page=${page}`)).statusCode, 400, page)
  assert.equal((await get(app, await botCookie(app), '/account/users.turbo_stream?page=1')).statusCode, 403)
})

test('administrators see banned people greyed out and without controls; members do not see them at all', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare('UPDATE users SET status = 2 WHERE id = ?').run(users.kevin.id))
  const admin = (await get(app, await signIn(app, 'david'), '/account/edit')).body
  const kevin = admin.split('</li>').find((item) => item.includes(`<a href="/users/${users.kevin.id}"`))!
  assert.match(kevin, /<li class="account-person flex align-center gap margin-none banned">/)
  assert.ok(!kevin.includes('user[role]') && !kevin.includes('delete'), 'no controls for a banned person')
  const member = (await get(app, await signIn(app, 'jz'), '/account/edit')).body
  assert.ok(!member.includes(users.kevin.name))
})

test('an administrator sees a role switch for everyone, their own disabled, and a remove button for everyone else', async (t) => {
  const { app } = await buildTestApp(t)
  const html = (await get(app, await signIn(app, 'jason'), '/account/edit')).body
  assert.match(html, new RegExp(`<input name="user\\[role\\]" type="hidden" value="member" disabled>\\s*<input type="checkbox" name="user\\[role\\]" id="role_user_${users.jason.id}"[^>]* checked disabled>`))
  for (const person of [users.david, users.jz, users.kevin]) {
    assert.match(html, new RegExp(`<form class="button_to" method="post" action="/account/users/${person.id}">`))
    assert.ok(html.includes(`Delete ${person.name}</span>`), person.name)
  }
  assert.ok(!html.includes(`action="/account/users/${users.jason.id}">\n            <input type="hidden" name="_method" value="delete">`), 'no remove button for themselves')
  assert.ok(!html.includes(`Delete ${users.jason.name}`))
})
