import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, inject, sameOrigin, signIn } from '../../helper.ts'
import { users } from '../../fixtures.ts'
import { botCookie, memberIds } from '../rooms/support.ts'

function setStatus(app: FastifyInstance, id: number, status: number) {
  return app.store.write((m) => m.db.prepare('UPDATE users SET status = ? WHERE id = ?').run(status, id))
}

function setBio(app: FastifyInstance, id: number, bio: string) {
  return app.store.write((m) => m.db.prepare('UPDATE users SET bio = ? WHERE id = ?').run(bio, id))
}

test('a member sees someone’s avatar, name, bio and a Ping button, but not their email, sign-in link or a ban button', async (t) => {
  const { app } = await buildTestApp(t)
  await setBio(app, users.kevin.id, 'Ships <things>')
  const response = await inject(app, await signIn(app, 'jz'), { url: `/users/${users.kevin.id}` })
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<title>Kevin McConnell<\/title>/)
  assert.match(response.body, /<img src="\/users\/[^"]+\/avatar\?v=\d+" alt="Profile avatar"/)
  assert.match(response.body, /<h1 class="txt-x-large margin-none">Kevin McConnell<\/h1>/)
  assert.match(response.body, /Ships &lt;things&gt;/)
  assert.match(response.body, /<form class="button_to" method="post" action="\/rooms\/directs\?user_ids%5B%5D=4">/)
  assert.doesNotMatch(response.body, /kevin@37signals\.com/)
  assert.doesNotMatch(response.body, /session_transfer_url/)
  assert.doesNotMatch(response.body, /\/ban"/)
  assert.doesNotMatch(response.body, /Edit my profile/)
})

test('an administrator also sees the email, the person’s sign-in link and the ban button', async (t) => {
  const { app } = await buildTestApp(t)
  const body = (await inject(app, await signIn(app, 'david'), { url: `/users/${users.kevin.id}` })).body
  assert.match(body, /<a href="mailto:kevin@37signals.com">kevin@37signals.com<\/a>/)
  assert.match(body, /<input type="text" class="input[^"]*" value="http:\/\/localhost:80\/session\/transfers\/[^"]+" id="session_transfer_url" readonly>/)
  assert.match(body, /Share to get them back into their account/)
  assert.match(body, /<form class="button_to" method="post" action="\/users\/4\/ban">/)
  assert.match(body, /Ban Kevin McConnell/)
})

test('your own profile links to your settings; an administrator gets no ban button for themselves', async (t) => {
  const { app } = await buildTestApp(t)
  const body = (await inject(app, await signIn(app, 'david'), { url: `/users/${users.david.id}` })).body
  assert.match(body, /<a href="\/users\/me\/profile" class="btn"><span class="icon icon--pencil" aria-hidden="true"><\/span><span class="for-screen-reader">Edit my profile<\/span><\/a>/)
  assert.doesNotMatch(body, /\/ban"/)
  assert.match(body, /Use this link to log in automatically on another device/)
})

test('a bot shows only its avatar and a Ping button', async (t) => {
  const { app } = await buildTestApp(t)
  const body = (await inject(app, await signIn(app, 'david'), { url: `/users/${users.bender.id}` })).body
  assert.match(body, /action="\/rooms\/directs\?user_ids%5B%5D=5"/)
  assert.doesNotMatch(body, /<h1/)
  assert.doesNotMatch(body, /session_transfer_url|\/ban"|mailto:/)
})

test('a deactivated person’s profile says they are no longer on this account, with no Ping', async (t) => {
  const { app } = await buildTestApp(t)
  await setStatus(app, users.kevin.id, 1)
  await setStatus(app, users.bender.id, 1)
  const cookie = await signIn(app, 'david')
  const body = (await inject(app, cookie, { url: `/users/${users.kevin.id}` })).body
  assert.match(body, /Kevin McConnell is no longer on this account/)
  assert.doesNotMatch(body, /\/rooms\/directs|session_transfer_url|\/ban"|mailto:/)
  assert.match((await inject(app, cookie, { url: `/users/${users.bender.id}` })).body, /Bender Bot is no longer on this account/)
})

test('a banned person still shows their name and bio, with no Ping, and administrators see Remove ban', async (t) => {
  const { app } = await buildTestApp(t)
  await setStatus(app, users.kevin.id, 2)
  await setBio(app, users.kevin.id, 'Was here')
  const body = (await inject(app, await signIn(app, 'david'), { url: `/users/${users.kevin.id}` })).body
  assert.match(body, /<div class="flex flex-column gap banned">/)
  assert.match(body, /Kevin McConnell/)
  assert.match(body, /Was here/)
  assert.match(body, /Remove ban/)
  assert.doesNotMatch(body, /\/rooms\/directs|session_transfer_url/)
})

test('an unknown or malformed id is a 404', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  for (const id of ['999', '0', 'abc', '1e3', '-1', '%00']) {
    assert.equal((await inject(app, cookie, { url: `/users/${id}` })).statusCode, 404, id)
  }
})

test('profiles are for people who are signed in: sign-in first, and bots get 403', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ url: `/users/${users.kevin.id}` })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/session/new')
  assert.equal((await inject(app, await botCookie(app), { url: `/users/${users.kevin.id}` })).statusCode, 403)
})

test('the Ping button opens a direct room with that person, from the ids in its URL', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const response = await inject(app, cookie, { method: 'POST', url: `/rooms/directs?user_ids%5B%5D=${users.kevin.id}`, headers: sameOrigin })
  assert.equal(response.statusCode, 302)
  const roomId = Number(/^\/rooms\/(\d+)$/.exec(response.headers.location as string)![1])
  assert.deepEqual(memberIds(app, roomId), [users.jz.id, users.kevin.id])
  const again = await inject(app, cookie, { method: 'POST', url: `/rooms/directs?user_ids%5B%5D=${users.kevin.id}`, headers: sameOrigin })
  assert.equal(again.headers.location, `/rooms/${roomId}`)
})

test('every avatar link in a room page leads to a profile that answers', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  await inject(app, await signIn(app, 'kevin'), { method: 'POST', url: '/rooms/2/messages', payload: 'message%5Bbody%5D=hello', headers: { 'content-type': 'application/x-www-form-urlencoded', ...sameOrigin } })
  const page = (await inject(app, cookie, { url: '/rooms/2' })).body
  const links = [...new Set([...page.matchAll(/href="(\/users\/\d+)"/g)].map((m) => m[1]!))]
  assert.ok(links.length > 0)
  for (const link of links) assert.equal((await inject(app, cookie, { url: link })).statusCode, 200, link)
})
