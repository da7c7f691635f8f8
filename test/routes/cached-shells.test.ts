import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildTestApp, inject, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { seed } from './messages/support.ts'
import { decodeStrictly } from '../support/encodings.ts'
import { foreignWriter } from '../support/foreign-writer.ts'

// The viewer's shell (layout, nav, composer, search form) of the room and search pages is
// cached per person around the shared part, for clients that take gzip. A request without gzip
// renders the shell afresh, so comparing the two is comparing the cache with a fresh render.

const hq = rooms.hq.id
const pets = rooms.pets.id
const pingWithJason = rooms.david_and_jason.id

function shellOutcome(response: LightMyRequestResponse): string | undefined {
  return /(?:^|, )shell;desc="(\w+)"/.exec(String(response.headers['server-timing'] ?? ''))?.[1]
}

// The response with its body decoded (strictly, as curl would).
async function get(app: FastifyInstance, cookie: string, url: string, encoding: 'gzip' | 'identity' = 'gzip'): Promise<LightMyRequestResponse> {
  const response = await inject(app, cookie, { method: 'GET', url, headers: { 'accept-encoding': encoding } })
  const body = decodeStrictly(response).toString('utf8')
  return Object.assign(response, { body })
}

// The page as the shell cache gives it, checked against a fresh render of the same state.
async function cachedAndFresh(app: FastifyInstance, cookie: string, url: string): Promise<LightMyRequestResponse> {
  const cached = await get(app, cookie, url)
  const fresh = await get(app, cookie, url, 'identity')
  assert.equal(cached.statusCode, 200, url)
  assert.equal(cached.headers['content-encoding'], 'gzip', url)
  assert.equal(shellOutcome(fresh), 'bypass', url)
  assert.equal(cached.body, fresh.body, `${url}: the cached page is what a fresh render gives`)
  return cached
}

async function setup(t: TestContext, env: Record<string, string> = {}) {
  const { app } = await buildTestApp(t, { env })
  await seed(app, hq, users.jz.id, 3, 'coffee talk')
  await seed(app, pets, users.kevin.id, 2, 'pets')
  return { app, david: await signIn(app, 'david'), jason: await signIn(app, 'jason'), db: foreignWriter(t, app) }
}

test('a room page’s shell is rendered once for a person, then served from the cache', async (t) => {
  const { app, david } = await setup(t)
  const first = await get(app, david, `/rooms/${hq}`)
  const second = await get(app, david, `/rooms/${hq}`)
  assert.equal(shellOutcome(first), 'miss')
  assert.equal(shellOutcome(second), 'hit')
  assert.equal(second.body, first.body)
  assert.match(second.body, /<meta name="current-user-id" content="1">/)
  assert.match(second.body, /coffee talk/)
})

test('each person gets their own shell around the same cached messages', async (t) => {
  const { app, david, jason } = await setup(t)
  await get(app, david, `/rooms/${hq}`)
  const theirs = await get(app, jason, `/rooms/${hq}`)
  assert.equal(shellOutcome(theirs), 'miss')
  assert.match(theirs.body, /<meta name="current-user-id" content="2">/)
  assert.doesNotMatch(theirs.body, /<meta name="current-user-id" content="1">/)
})

// Each foreign write changes something the room page's shell shows; the next response shows it.
// A room's last activity moves with every post: it is a slot in the cached shell, which stays.
const roomShellChanges: { what: string; url: string; sql: string; params: unknown[]; shows: RegExp; shell?: string }[] = [
  { what: 'the person’s name', url: `/rooms/${hq}`, sql: 'UPDATE users SET name = ? WHERE id = ?', params: ['David Renamed', users.david.id], shows: /<meta name="current-user-name" content="David Renamed">/ },
  { what: 'the person’s role', url: `/rooms/${hq}`, sql: 'UPDATE users SET role = 0 WHERE id = ?', params: [users.david.id], shows: /<body class="sidebar"/ },
  { what: 'the room’s name', url: `/rooms/${hq}`, sql: 'UPDATE rooms SET name = ? WHERE id = ?', params: ['Headquarters', hq], shows: /<h1[^>]*>Headquarters<\/h1>/ },
  { what: 'the account’s custom styles', url: `/rooms/${hq}`, sql: 'UPDATE accounts SET custom_styles = ?', params: [':root { --color-link: teal }'], shows: /--color-link: teal/ },
  { what: 'the join code on the first room’s welcome', url: `/rooms/${pets}`, sql: 'UPDATE accounts SET join_code = ?', params: ['Zz99-Yy88-Xx77'], shows: /\/join\/Zz99-Yy88-Xx77/ },
  { what: 'the other person’s name on a Ping', url: `/rooms/${pingWithJason}`, sql: 'UPDATE users SET name = ? WHERE id = ?', params: ['Jason Renamed', users.jason.id], shows: /Jason Renamed<\/h1>/ },
  { what: 'a room’s last activity (refreshes are asked from it)', url: `/rooms/${hq}`, sql: 'UPDATE rooms SET updated_at = ? WHERE id = ?', params: ['2030-01-01 00:00:00.000000', hq], shows: /data-refresh-room-loaded-at-value="1893456000000"/, shell: 'hit' },
]

for (const change of roomShellChanges) {
  test(`a foreign change to ${change.what} shows on the next room page`, async (t) => {
    const { app, david, db } = await setup(t)
    await get(app, david, change.url)
    const before = await cachedAndFresh(app, david, change.url)
    assert.equal(shellOutcome(before), 'hit')
    assert.doesNotMatch(before.body, change.shows)
    db.prepare(change.sql).run(...change.params)
    const after = await cachedAndFresh(app, david, change.url)
    assert.equal(shellOutcome(after), change.shell ?? 'miss')
    assert.match(after.body, change.shows)
  })
}

test('a post in the room shows on the next room page, around the same cached shell', async (t) => {
  const { app, david } = await setup(t)
  await get(app, david, `/rooms/${hq}`)
  const before = await get(app, david, `/rooms/${hq}`)
  assert.equal(shellOutcome(before), 'hit')
  await seed(app, hq, users.kevin.id, 1, 'a brand new post')
  const after = await cachedAndFresh(app, david, `/rooms/${hq}`)
  assert.equal(shellOutcome(after), 'hit')
  assert.match(after.body, /a brand new post/)
  const loadedAt = (html: string) => /data-refresh-room-loaded-at-value="(\d+)"/.exec(html)?.[1]
  assert.notEqual(loadedAt(after.body), loadedAt(before.body), 'the room’s last activity moved with the post')
})

test('a search page’s shell shows a recent search recorded by a foreign writer', async (t) => {
  const { app, david, db } = await setup(t)
  await get(app, david, '/searches?q=coffee')
  assert.equal(shellOutcome(await cachedAndFresh(app, david, '/searches?q=coffee')), 'hit')
  db.prepare("INSERT INTO searches (user_id, query, created_at, updated_at) VALUES (?, 'espresso machines', '2030-01-01 00:00:00', '2030-01-01 00:00:00')").run(users.david.id)
  const after = await cachedAndFresh(app, david, '/searches?q=coffee')
  assert.equal(shellOutcome(after), 'miss')
  assert.match(after.body, /espresso machines/)
})

test('a page with a flash is rendered for its request, and the flash is shown once', async (t) => {
  const { app, david } = await setup(t)
  await get(app, david, `/rooms/${hq}`)
  const flashed = await get(app, `${david}; flash=${encodeURIComponent(JSON.stringify({ notice: 'Saved the room' }))}`, `/rooms/${hq}`)
  assert.equal(shellOutcome(flashed), 'bypass')
  assert.match(flashed.body, /Saved the room/)
  const next = await get(app, david, `/rooms/${hq}`)
  assert.equal(shellOutcome(next), 'hit')
  assert.doesNotMatch(next.body, /Saved the room/)
})

test('with CAMPFIRE_SHELL_CACHE=off every shell is rendered, and says so', async (t) => {
  const { app, david } = await setup(t, { CAMPFIRE_SHELL_CACHE: 'off' })
  await get(app, david, `/rooms/${hq}`)
  const again = await get(app, david, `/rooms/${hq}`)
  assert.equal(shellOutcome(again), 'off')
  assert.match(String(again.headers['server-timing']), /page;desc="hit"/)
  assert.match(again.body, /coffee talk/)
})

test('a room page a person may no longer see is not served from their cached shell', async (t) => {
  const { app, david, db } = await setup(t)
  await get(app, david, `/rooms/${hq}`)
  assert.equal(shellOutcome(await get(app, david, `/rooms/${hq}`)), 'hit')
  db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(hq, users.david.id)
  const after = await get(app, david, `/rooms/${hq}`)
  assert.equal(after.statusCode, 302)
})
