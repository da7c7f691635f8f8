import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildTestApp, inject, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { seed } from '../routes/messages/support.ts'
import { decodeStrictly } from '../support/encodings.ts'
import { foreignWriter } from '../support/foreign-writer.ts'

// The cached read routes keep their whole response and send it again to the very same request
// while the database is at the same generation. These tests visit a page once (a first visit may
// write: it marks the room read), then ask for it three times (it is kept when its request comes
// a second time at the same generation), then change the database from outside the process, as
// a sqlite3 shell or another worker would, and ask again.

const hq = rooms.hq.id
const pets = rooms.pets.id
const READS = [`/rooms/${hq}`, `/rooms/${hq}/messages`, '/users/me/sidebar', '/searches?q=coffee']

function memoOutcome(response: LightMyRequestResponse): string | undefined {
  return /(?:^|, )memo;desc="(\w+)"/.exec(String(response.headers['server-timing'] ?? ''))?.[1]
}

async function get(app: FastifyInstance, cookie: string, url: string, headers: Record<string, string> = {}) {
  const response = await inject(app, cookie, { method: 'GET', url, headers: { 'accept-encoding': 'gzip', cookie: `${cookie}; last_room=${hq}`, ...headers } })
  return Object.assign(response, { text: response.statusCode === 200 ? decodeStrictly(response).toString('utf8') : '' })
}

// The third of three identical requests after a first visit, which the memo answers.
async function remembered(app: FastifyInstance, cookie: string, url: string) {
  await get(app, cookie, url)
  await get(app, cookie, url)
  await get(app, cookie, url)
  const third = await get(app, cookie, url)
  assert.equal(memoOutcome(third), 'hit', url)
  return third
}

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const { app } = await buildTestApp(t, { env })
  await seed(app, hq, users.jz.id, 3, 'coffee talk')
  await seed(app, pets, users.kevin.id, 2, 'coffee pets')
  return { app, david: await signIn(app, 'david'), jason: await signIn(app, 'jason'), db: foreignWriter(t, app) }
}

test('a cached read is kept once its request comes twice at one generation, and sent again, byte for byte, with its own Server-Timing', async (t) => {
  const { app, david } = await setup(t)
  for (const url of READS) {
    await get(app, david, url)
    const first = await get(app, david, url)
    const second = await get(app, david, url)
    const third = await get(app, david, url)
    // The room page's first visit marked the room read, a write: its request is kept a visit later.
    assert.deepEqual([first, second, third].map(memoOutcome), url === `/rooms/${hq}` ? ['miss', 'miss', 'hit'] : ['miss', 'hit', 'hit'], url)
    assert.equal(third.statusCode, 200, url)
    assert.ok(third.rawPayload.equals(second.rawPayload), `${url}: the same bytes`)
    for (const name of ['content-type', 'content-encoding', 'vary', 'x-frame-options', 'etag', 'last-modified']) assert.equal(third.headers[name], second.headers[name], `${url}: ${name}`)
    assert.match(String(third.headers['server-timing']), /total;dur=/)
  }
})

test('a write from outside the process is seen by the next request', async (t) => {
  const { app, david, db } = await setup(t)
  await remembered(app, david, `/rooms/${hq}`)
  db.prepare("UPDATE rooms SET name = 'Renamed by a shell' WHERE id = ?").run(hq)
  const after = await get(app, david, `/rooms/${hq}`)
  assert.equal(memoOutcome(after), 'miss')
  assert.match(after.text, /Renamed by a shell/)

  await remembered(app, david, '/searches?q=coffee')
  db.prepare('DELETE FROM messages WHERE room_id = ?').run(hq)
  const search = await get(app, david, '/searches?q=coffee')
  assert.equal(memoOutcome(search), 'miss')
  assert.doesNotMatch(search.text, /coffee talk/)
  assert.match(search.text, /coffee pets/)
})

test('a session ended outside the process is not answered from the memo', async (t) => {
  const { app, david, db } = await setup(t)
  await remembered(app, david, `/rooms/${hq}`)
  db.prepare('DELETE FROM sessions WHERE user_id = ?').run(users.david.id)
  const after = await get(app, david, `/rooms/${hq}`)
  assert.equal(after.statusCode, 302)
  assert.equal(after.headers.location, '/session/new')
})

test('someone taken out of a room outside the process no longer gets its page', async (t) => {
  const { app, david, db } = await setup(t)
  await remembered(app, david, `/rooms/${pets}`)
  await remembered(app, david, `/rooms/${pets}/messages`)
  db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(pets, users.david.id)
  assert.equal((await get(app, david, `/rooms/${pets}`)).statusCode, 302)
  assert.equal((await get(app, david, `/rooms/${pets}/messages`)).statusCode, 404)
})

test('a deactivated person is signed out at once, even of a remembered page', async (t) => {
  const { app, david, db } = await setup(t)
  await remembered(app, david, '/users/me/sidebar')
  db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(users.david.id)
  assert.equal((await get(app, david, '/users/me/sidebar')).statusCode, 302)
})

test("one person's remembered page is never another's", async (t) => {
  const { app, david, jason } = await setup(t)
  for (const url of ['/users/me/sidebar', `/rooms/${hq}`, '/searches?q=coffee']) {
    const mine = await remembered(app, david, url)
    const theirs = await get(app, jason, url)
    assert.equal(memoOutcome(theirs), 'miss', url)
    assert.match(mine.text, /<meta name="current-user-id" content="1">/, url)
    assert.doesNotMatch(theirs.text, /<meta name="current-user-id" content="1">/, url)
  }
  // A room of David's that Jason is not in stays refused to him, however often the memo saw it.
  const davidAndKevin = rooms.david_and_kevin.id
  await remembered(app, david, `/rooms/${davidAndKevin}`)
  for (let i = 0; i < 3; i++) assert.equal((await get(app, jason, `/rooms/${davidAndKevin}`)).statusCode, 302)
  for (let i = 0; i < 3; i++) assert.equal((await get(app, jason, `/rooms/${davidAndKevin}/messages`)).statusCode, 404)
})

test('a request that differs in any header is a different request', async (t) => {
  const { app, david } = await setup(t)
  await remembered(app, david, `/rooms/${hq}`)
  const identity = await get(app, david, `/rooms/${hq}`, { 'accept-encoding': 'identity' })
  assert.equal(memoOutcome(identity), 'miss')
  assert.equal(identity.headers['content-encoding'], undefined)
  const otherHost = await get(app, david, `/rooms/${hq}`, { host: 'chat.example.com' })
  assert.equal(memoOutcome(otherHost), 'miss')
  assert.match(otherHost.text, /http:\/\/chat\.example\.com/)
})

test("a response that sets any cookie but the room's own is not kept", async (t) => {
  const { app, david } = await setup(t)
  // Without a last_room cookie the room page sets it (Max-Age, no date): that response is kept.
  const withoutCookie = { cookie: david }
  for (let i = 0; i < 3; i++) await get(app, david, `/rooms/${pets}`, withoutCookie)
  const third = await get(app, david, `/rooms/${pets}`, withoutCookie)
  assert.equal(memoOutcome(third), 'hit')
  assert.match(String(third.headers['set-cookie']), new RegExp(`^last_room=${pets}; Max-Age=\\d+; Path=/; SameSite=Lax$`))
  // A flash is shown once and cleared with an expired cookie: never kept.
  const flash = (await inject(app, david, { method: 'GET', url: '/rooms/999999' })).cookies.find((c) => c.name === 'flash')
  assert.ok(flash, 'a missing room leaves a flash')
  const withFlash = { cookie: `${david}; flash=${flash.value}` }
  for (let i = 0; i < 3; i++) assert.notEqual(memoOutcome(await get(app, david, '/users/me/sidebar', withFlash)), 'hit')
})

test('with CAMPFIRE_RESPONSE_MEMO=off nothing is kept, and Server-Timing says so', async (t) => {
  const { app, david } = await setup(t, { CAMPFIRE_RESPONSE_MEMO: 'off' })
  for (const url of READS) {
    const outcomes = []
    for (let i = 0; i < 3; i++) outcomes.push(memoOutcome(await get(app, david, url)))
    assert.deepEqual(outcomes, ['off', 'off', 'off'], url)
  }
})

test('a request without a session is not remembered, and other routes never say memo', async (t) => {
  const { app, david } = await setup(t)
  for (let i = 0; i < 3; i++) {
    const anonymous = await app.inject({ method: 'GET', url: `/rooms/${hq}` })
    assert.equal(anonymous.statusCode, 302)
  }
  const profile = await get(app, david, '/users/me/profile')
  assert.equal(memoOutcome(profile), undefined)
})

test('in a chat where something is written between any two visits, nothing is kept', async (t) => {
  const { app, david, db } = await setup(t)
  const kept = () => app.responseMemo!.size
  for (let i = 0; i < 4; i++) {
    assert.equal(memoOutcome(await get(app, david, `/rooms/${hq}`)), 'miss')
    db.prepare('UPDATE rooms SET updated_at = ? WHERE id = ?').run(`2026-12-07 10:00:0${i}.000000`, pets)
  }
  assert.equal(kept(), 0)
})
