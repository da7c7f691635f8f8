import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildTestApp, inject, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { seed } from './messages/support.ts'
import { decodeStrictly } from '../support/encodings.ts'
import { foreignWriter } from '../support/foreign-writer.ts'

const hq = rooms.hq.id
const pets = rooms.pets.id

function timing(response: LightMyRequestResponse): Record<string, string> {
  const header = String(response.headers['server-timing'] ?? '')
  return Object.fromEntries(header.split(/,\s*/).map((metric) => {
    const [name, ...params] = metric.split(';')
    const desc = params.find((p) => p.startsWith('desc='))
    const dur = params.find((p) => p.startsWith('dur='))
    return [name!.trim(), desc ? desc.slice(6, -1) : (dur ?? '')]
  }))
}

// The page's own shell names the person who asked for it.
function assertShellFor(response: LightMyRequestResponse, userId: number): void {
  assert.match(response.body, new RegExp(`<meta name="current-user-id" content="${userId}">`))
}

// David's request renders the page and Jason's is served from the cache: each gets their own
// shell around the same cached part (cut out of the body by `cachedPart`).
async function sharedBetweenViewers(app: FastifyInstance, david: string, jason: string, url: string, cachedPart: (html: string) => string) {
  const first = await get(app, david, url)
  const second = await get(app, jason, url)
  assert.equal(timing(first).page, 'miss')
  assert.equal(timing(second).page, 'hit')
  assertShellFor(first, users.david.id)
  assertShellFor(second, users.jason.id)
  assert.equal(cachedPart(first.body), cachedPart(second.body))
  return { first, second }
}

function get(app: FastifyInstance, cookie: string, url: string, headers: Record<string, string> = {}) {
  return inject(app, cookie, { method: 'GET', url, headers })
}

// The page cache itself, under test here, without the response memo in front of it (which
// answers the third identical request: test/plugins/response-memo.test.ts).
async function setup(t: TestContext, env: Record<string, string> = {}) {
  const { app } = await buildTestApp(t, { env: { CAMPFIRE_RESPONSE_MEMO: 'off', ...env } })
  const messages = await seed(app, hq, users.jz.id, 45, 'coffee talk')
  await seed(app, pets, users.kevin.id, 3, 'pets')
  const david = await signIn(app, 'david')
  const jason = await signIn(app, 'jason')
  return { app, messages, david, jason }
}

test('a room page is cached once for every viewer, and each viewer still gets their own shell', async (t) => {
  const { app, david, jason } = await setup(t)
  const messagesOf = (html: string) => html.slice(html.indexOf('<div id="messages_'), html.indexOf('<turbo-cable-stream-source channel="RoomMessagesChannel"'))
  const { first, second } = await sharedBetweenViewers(app, david, jason, `/rooms/${hq}`, messagesOf)
  assert.equal(first.statusCode, 200)
  assert.equal(timing(first).fragments, 'hits=0 misses=40')
  assert.equal(timing(second).fragments, 'hits=0 misses=0')
  assert.match(String(second.headers['server-timing']), /total;dur=\d+\.\d\d/)
})

test('with the page cache off the fragments are shared between viewers', async (t) => {
  const { app, david, jason } = await setup(t, { CAMPFIRE_PAGE_CACHE: 'off' })
  assert.equal(timing(await get(app, david, `/rooms/${hq}`)).fragments, 'hits=0 misses=40')
  const again = await get(app, jason, `/rooms/${hq}`)
  assert.equal(timing(again).page, 'off')
  assert.equal(timing(again).fragments, 'hits=40 misses=0')
  assert.equal(timing(again).records, 'hits=40 misses=0')
})

test('per-viewer fragment keys and content keys are the baselines', async (t) => {
  const viewer = await setup(t, { CAMPFIRE_PAGE_CACHE: 'off', CAMPFIRE_FRAGMENT_KEYS: 'viewer' })
  await get(viewer.app, viewer.david, `/rooms/${hq}`)
  assert.equal(timing(await get(viewer.app, viewer.jason, `/rooms/${hq}`)).fragments, 'hits=0 misses=40')
  assert.equal(timing(await get(viewer.app, viewer.jason, `/rooms/${hq}`)).fragments, 'hits=40 misses=0')
  const content = await setup(t, { CAMPFIRE_PAGE_CACHE: 'off', CAMPFIRE_FRAGMENT_KEY_SOURCE: 'content' })
  await get(content.app, content.david, `/rooms/${hq}`)
  const hit = await get(content.app, content.jason, `/rooms/${hq}`)
  assert.equal(timing(hit).fragments, 'hits=40 misses=0')
  assert.equal(timing(hit).records, 'hits=0 misses=40', 'content keys load every message to hash it')
})

test('a foreign SQL edit of a message shows on the next request of every cached page', async (t) => {
  const { app, messages, david } = await setup(t)
  const newest = messages[messages.length - 1]!
  const oldest = messages[0]!
  for (const url of [`/rooms/${hq}`, `/rooms/${hq}/messages?before=${messages[42]!.id}`, '/searches?q=coffee']) {
    await get(app, david, url)
    if (url.startsWith('/searches')) await get(app, david, url) // stored when asked for a second time
    assert.equal(timing(await get(app, david, url)).page, 'hit', url)
  }
  const db = foreignWriter(t, app)
  db.prepare("UPDATE action_text_rich_texts SET body = '<p>coffee edited by a foreign writer</p>' WHERE record_type = 'Message' AND record_id = ?").run(newest.id)
  db.prepare("UPDATE action_text_rich_texts SET body = '<p>coffee rewritten in history</p>' WHERE record_type = 'Message' AND record_id = ?").run(messages[10]!.id)
  const room = await get(app, david, `/rooms/${hq}`)
  assert.equal(timing(room).page, 'miss')
  assert.equal(timing(room).fragments, 'hits=38 misses=2')
  assert.match(room.body, /coffee edited by a foreign writer/)
  const history = await get(app, david, `/rooms/${hq}/messages?before=${messages[42]!.id}`)
  assert.equal(timing(history).page, 'miss')
  assert.match(history.body, /coffee rewritten in history/)
  const search = await get(app, david, '/searches?q=coffee')
  assert.equal(timing(search).page, 'miss')
  assert.match(search.body, /coffee edited by a foreign writer/)
  db.prepare('DELETE FROM boosts WHERE message_id = ?').run(oldest.id)
  assert.equal(timing(await get(app, david, `/rooms/${hq}`)).page, 'hit', 'a change to a message not on the page leaves it valid')
})

test('presence and writes in other rooms leave cached pages valid; the naive commit setting loses them', async (t) => {
  for (const [invalidation, expected] of [['relevant', 'hit'], ['commit', 'miss']] as const) {
    const { app, david } = await setup(t, { CAMPFIRE_PAGE_CACHE_INVALIDATION: invalidation })
    const urls = [`/rooms/${hq}`, '/users/me/sidebar']
    for (const url of urls) await get(app, david, url)
    const db = foreignWriter(t, app)
    db.prepare("UPDATE memberships SET connections = 1, connected_at = '2030-01-01 00:00:00', updated_at = '2030-01-01 00:00:00' WHERE room_id = ? AND user_id = ?").run(hq, users.jz.id)
    db.prepare("UPDATE rooms SET updated_at = '2030-01-01 00:00:00' WHERE id = ?").run(rooms.watercooler.id)
    for (const url of urls) assert.equal(timing(await get(app, david, url)).page, expected, `${invalidation}: ${url}`)
  }
})

test('a sidebar shows a foreign change to its unread state, room names and people', async (t) => {
  const { app, david } = await setup(t)
  await get(app, david, '/users/me/sidebar')
  assert.equal(timing(await get(app, david, '/users/me/sidebar')).page, 'hit')
  const db = foreignWriter(t, app)
  const tile = (id: number) => new RegExp(`id="list_rooms_\\w+_${id}" class="[^"]*"`)
  const classOf = (body: string, id: number) => tile(id).exec(body)?.[0] ?? 'no tile'
  db.prepare('UPDATE memberships SET unread_at = NULL WHERE user_id = ?').run(users.david.id)
  db.prepare("UPDATE memberships SET unread_at = '2030-01-01 00:00:00' WHERE room_id = ? AND user_id = ?").run(rooms.watercooler.id, users.david.id)
  for (const encoding of ['identity', 'gzip']) {
    const unread = await get(app, david, '/users/me/sidebar', { 'accept-encoding': encoding })
    assert.equal(timing(unread).page, 'hit', 'unread state is filled into the cached sidebar')
    const body = encoding === 'gzip' ? decodeStrictly(unread).toString('utf8') : unread.body
    assert.match(classOf(body, rooms.watercooler.id), / unread"$/)
    assert.doesNotMatch(classOf(body, hq), /unread/)
    assert.doesNotMatch(body, /campfire:unread/)
  }
  db.prepare('UPDATE memberships SET unread_at = NULL WHERE room_id = ? AND user_id = ?').run(rooms.watercooler.id, users.david.id)
  assert.doesNotMatch(classOf((await get(app, david, '/users/me/sidebar')).body, rooms.watercooler.id), /unread/)
  db.prepare("UPDATE rooms SET name = 'Espresso Bar' WHERE id = ?").run(rooms.watercooler.id)
  assert.match((await get(app, david, '/users/me/sidebar')).body, /Espresso Bar/)
  db.prepare("UPDATE users SET name = 'Kevin Mc' WHERE id = ?").run(users.kevin.id)
  const renamed = await get(app, david, '/users/me/sidebar')
  assert.equal(timing(renamed).page, 'miss')
})

test('authentication and membership are checked on every request, cached or not', async (t) => {
  const { app, david } = await setup(t)
  await get(app, david, `/rooms/${hq}`)
  await get(app, david, `/rooms/${hq}/messages`)
  const db = foreignWriter(t, app)
  db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(hq, users.david.id)
  assert.equal((await get(app, david, `/rooms/${hq}`)).statusCode, 302)
  assert.equal((await get(app, david, `/rooms/${hq}/messages`)).statusCode, 404)
  await get(app, david, '/users/me/sidebar')
  db.prepare('DELETE FROM sessions WHERE user_id = ?').run(users.david.id)
  const signedOut = await get(app, david, '/users/me/sidebar')
  assert.equal(signedOut.statusCode, 302)
  assert.equal(signedOut.headers.location, '/session/new')
})

test('concurrent misses on the same page build it once', async (t) => {
  const { app, david, jason } = await setup(t)
  const builds = app.pageCache!.stats.builds
  const responses = await Promise.all([david, jason, david, jason].map((cookie) => get(app, cookie, `/rooms/${hq}/messages`)))
  assert.equal(app.pageCache!.stats.builds - builds, 1)
  assert.deepEqual(responses.map((r) => timing(r).page).sort(), ['hit', 'hit', 'hit', 'miss'])
  assert.equal(new Set(responses.map((r) => r.body)).size, 1)
})

test('cached pages go out with the bytes compressed once, and uncompressed to clients without gzip', async (t) => {
  const { app, david } = await setup(t)
  for (const url of [`/rooms/${hq}`, `/rooms/${hq}/messages`, '/users/me/sidebar', '/searches?q=coffee']) {
    const plain = await get(app, david, url)
    assert.equal(plain.headers['content-encoding'], undefined)
    for (const round of ['miss', 'hit']) {
      const zipped = await get(app, david, url, { 'accept-encoding': 'gzip, deflate, br' })
      assert.equal(zipped.headers['content-encoding'], 'gzip', `${url} ${round}`)
      assert.equal(Number(zipped.headers['content-length']), zipped.rawPayload.length)
      assert.equal(decodeStrictly(zipped).toString('utf8'), plain.body, `${url} ${round}`)
    }
  }
})

test('a small Turbo Stream answer to a post goes out uncompressed', async (t) => {
  const { app, david } = await setup(t)
  await get(app, david, `/rooms/${hq}`)
  const response = await inject(app, david, {
    method: 'POST',
    url: `/rooms/${hq}/messages`,
    payload: new URLSearchParams({ 'message[body]': 'hello there' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', accept: 'text/vnd.turbo-stream.html', 'accept-encoding': 'gzip' },
  })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-encoding'], undefined)
  const room = await get(app, david, `/rooms/${hq}`)
  assert.equal(timing(room).page, 'miss')
  assert.equal(timing(room).fragments, 'hits=39 misses=1', 'the first page to show the new message renders it (a post does not keep its fragment)')
})

test('under interleaved posts and page loads, every room page shows every post acknowledged before it was requested', async (t) => {
  const { app, david, jason } = await setup(t)
  let newestAck = 0
  const failures: string[] = []
  const poster = async (cookie: string, n: number) => {
    for (let i = 0; i < n; i++) {
      const response = await inject(app, cookie, {
        method: 'POST',
        url: `/rooms/${hq}/messages`,
        payload: new URLSearchParams({ 'message[body]': `race ${i}` }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', accept: 'text/vnd.turbo-stream.html' },
      })
      const id = Number(/data-message-id="(\d+)"/.exec(response.body)?.[1])
      newestAck = Math.max(newestAck, id)
    }
  }
  const reader = async (cookie: string, n: number) => {
    for (let i = 0; i < n; i++) {
      const expected = newestAck
      const response = await get(app, cookie, `/rooms/${hq}`, { 'accept-encoding': 'gzip' })
      const html = decodeStrictly(response).toString('utf8')
      if (expected > 0 && !html.includes(`data-message-id="${expected}"`)) failures.push(`${expected} missing (${timing(response).page})`)
    }
  }
  await Promise.all([poster(david, 30), poster(jason, 30), reader(david, 60), reader(jason, 60), reader(david, 60)])
  assert.deepEqual(failures, [])
})

test('search results are stored once asked for twice, then shared by people who reach the same matches', async (t) => {
  const { app, david, jason } = await setup(t)
  const results = (html: string) => html.slice(html.indexOf('<div id="search-results"'), html.indexOf('<footer id="footer">'))
  const once = await get(app, jason, '/searches?q=coffee')
  assert.equal(timing(once).page, 'miss')
  await sharedBetweenViewers(app, david, jason, '/searches?q=coffee', results)
  assert.equal(results(once.body), results((await get(app, david, '/searches?q=coffee')).body), 'the first answer, not stored, was the same')
  const other = await get(app, david, '/searches?q=pets')
  assert.equal(timing(other).page, 'miss', 'other matches are other results')
})

test('a repeated search is not run again while nothing the person can reach has changed', async (t) => {
  const { app, david } = await setup(t)
  const db = foreignWriter(t, app)
  const runs = () => Object.values({ ...app.store.read((m) => m.searchable.paths) }).reduce((sum, n) => sum + n, 0)
  await get(app, david, '/searches?q=coffee')
  await get(app, david, '/searches?q=coffee') // stored when asked for a second time
  const before = runs()
  const again = await get(app, david, '/searches?q=coffee')
  assert.equal(timing(again).page, 'hit')
  assert.equal(runs(), before, 'the search was not run')
  // A foreign post that matches, in a room David is in, is found by the next search.
  const [hqMessage] = db.prepare('SELECT id FROM messages WHERE room_id = ? ORDER BY id DESC LIMIT 1').all(hq) as { id: number }[]
  db.prepare("UPDATE action_text_rich_texts SET body = '<p>coffee brewed by a foreign writer</p>' WHERE record_type = 'Message' AND record_id = ?").run(hqMessage!.id)
  db.prepare("UPDATE message_search_index SET body = 'coffee brewed by a foreign writer' WHERE rowid = ?").run(hqMessage!.id)
  const edited = await get(app, david, '/searches?q=coffee')
  assert.ok(runs() > before, 'the search ran again')
  assert.match(edited.body, /coffee brewed by a foreign writer/)
  // Leaving the room (a foreign delete of the membership) takes its messages out of the results.
  db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(hq, users.david.id)
  const left = await get(app, david, '/searches?q=coffee')
  assert.doesNotMatch(left.body, /coffee brewed by a foreign writer/)
  assert.doesNotMatch(left.body, /coffee talk/)
})
