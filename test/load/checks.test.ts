// The load profiles' checks catch deliberately wrong responses from a real (fake) HTTP server:
// a page with another room's message, another person's sidebar, a missing acknowledged post, a
// search result from someone else's room, a wrong message window, a broken post answer. And a
// keep-alive connection the server closed is retried once, as a browser does.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import type { Contract } from '../support/harness-validator.ts'
import { hit, newSample, type Target } from './routes.ts'
import { Delivery } from './support/deliveries.ts'
import { HttpClient, isFailure } from './support/http.ts'
import { checkPage, NewestAcknowledged, reasonOf, ROOM_PAGE_SIZE, type Expectation, type Knowledge } from './support/page-checks.ts'
import { parseServerTiming, ServerTiming, serverDurationsMs } from './support/server-timing.ts'
import { startFlags } from './support/server.ts'
import { measureFloor } from './support/socket-floor.ts'

// The cast: David (1) is in rooms 10 and 11; Jason (2) in 11 and 12. Messages 100–104 are in
// room 10 (and 1000–1099, a full page of newer ones), 200 in room 11, 300 in room 12.
const knowledge: Knowledge = {
  roomOfMessage: (id) => ({ 100: 10, 101: 10, 102: 10, 103: 10, 104: 10, 200: 11, 300: 12 })[id] ?? (id >= 1000 && id < 1100 ? 10 : undefined),
  roomsOf: (user) => new Set(user === 1 ? [10, 11] : [11, 12]),
}

const message = (id: number, text: string) =>
  `<div id="message_${id}" class="message" data-message-id="${id}"><turbo-frame id="edit_message_${id}"><div id="presentation_message_${id}">${text}</div></turbo-frame></div>`
const document = (user: number, body: string) =>
  `<!DOCTYPE html>\n<html><head><meta name="current-user-id" content="${user}"></head><body>${body}</body></html>\n`
const roomPage = (user: number, ids: number[]) =>
  document(user, ids.map((id) => message(id, `message ${id}`)).join('') + '<turbo-cable-stream-source channel="RoomMessagesChannel" signed-stream-name="abc--def"></turbo-cable-stream-source>')
const sidebar = (user: number, rooms: number[]) =>
  document(user, `<div id="shared_rooms">${rooms.map((id) => `<a class="room" data-room-id="${id}" href="/rooms/${id}">Room ${id}</a>`).join('')}</div>`)

// A real HTTP server answering from a table of path → body, gzipped as a browser asks.
async function fakeServer(t: TestContext, pages: Record<string, string | ((req: http.IncomingMessage) => { status?: number; type?: string; body: string })>): Promise<string> {
  const server = http.createServer((req, res) => {
    const entry = pages[req.url!]
    const answer = typeof entry === 'function' ? entry(req) : { body: entry ?? 'not found', status: entry === undefined ? 404 : 200 }
    const body = req.headers['accept-encoding'] === 'gzip' ? gzipSync(answer.body) : Buffer.from(answer.body)
    res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'text/html; charset=utf-8', 'content-length': body.length, ...(req.headers['accept-encoding'] === 'gzip' ? { 'content-encoding': 'gzip' } : {}), 'server-timing': 'page;desc="miss", fragments;desc="hits=3 misses=1"' })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function fetchAndCheck(t: TestContext, base: string, path: string, expect: Expectation): Promise<string[]> {
  const client = new HttpClient(base, 4)
  t.after(() => client.close())
  const answer = await client.request({ path, headers: { 'accept-encoding': 'gzip' } })
  if (isFailure(answer)) throw new Error(answer.error)
  const verdict = checkPage(answer.body, expect, knowledge)
  return [...verdict.failures.map(reasonOf), ...verdict.unknown.map((id) => `unknown ${id}`)]
}

test('a correct room page, sidebar and search pass the users profile checks', async (t) => {
  const base = await fakeServer(t, { '/rooms/10': roomPage(1, [100, 101, 102]), '/users/me/sidebar': sidebar(1, [10, 11]), '/searches?q=x': document(1, message(102, 'x') + message(200, 'x')) })
  assert.deepEqual(await fetchAndCheck(t, base, '/rooms/10', { kind: 'room', userId: 1, roomId: 10, newestAcknowledged: 102 }), [])
  assert.deepEqual(await fetchAndCheck(t, base, '/users/me/sidebar', { kind: 'sidebar', userId: 1 }), [])
  assert.deepEqual(await fetchAndCheck(t, base, '/searches?q=x', { kind: 'search', userId: 1 }), [])
})

test("a room page with another room's message fails with that reason", async (t) => {
  const base = await fakeServer(t, { '/rooms/10': roomPage(1, [100, 101, 300]) })
  assert.deepEqual(await fetchAndCheck(t, base, '/rooms/10', { kind: 'room', userId: 1, roomId: 10 }), ['message from another room'])
})

test("another person's sidebar fails as the wrong person listing foreign rooms and missing theirs", async (t) => {
  const base = await fakeServer(t, { '/users/me/sidebar': sidebar(2, [11, 12]) })
  assert.deepEqual(await fetchAndCheck(t, base, '/users/me/sidebar', { kind: 'sidebar', userId: 1 }), [
    'page for the wrong person', 'sidebar lists rooms the person is not in', "sidebar misses the person's rooms",
  ])
})

test('a room page without the newest acknowledged post fails', async (t) => {
  const base = await fakeServer(t, { '/rooms/10': roomPage(1, [100, 101]) })
  assert.deepEqual(await fetchAndCheck(t, base, '/rooms/10', { kind: 'room', userId: 1, roomId: 10, newestAcknowledged: 102 }), ['newest acknowledged post missing'])
})

// A room page shows the newest page of messages: in a busy room, posts written between the
// acknowledgement and the server's read push the acknowledged one off it (issue 17's 57 pages).
test('a full room page whose every message is newer than the acknowledged post passes, counted as pushed off', async (t) => {
  const newer = Array.from({ length: ROOM_PAGE_SIZE }, (_, i) => 1000 + i)
  const older = [101, ...newer.slice(1)]
  const base = await fakeServer(t, { '/rooms/10': roomPage(1, newer), '/rooms/10?stale': roomPage(1, older), '/rooms/10?short': roomPage(1, [103, 104]) })
  const expectation: Expectation = { kind: 'room', userId: 1, roomId: 10, newestAcknowledged: 102 }
  assert.deepEqual(await fetchAndCheck(t, base, '/rooms/10', expectation), [])
  assert.equal(checkPage(Buffer.from(roomPage(1, newer)), expectation, knowledge).pushedOff, true)
  assert.deepEqual(await fetchAndCheck(t, base, '/rooms/10?stale', expectation), ['newest acknowledged post missing'])
  assert.deepEqual(await fetchAndCheck(t, base, '/rooms/10?short', expectation), ['newest acknowledged post missing'], 'a short page cannot have been pushed off')
})

test('the newest acknowledged post of a room stays the highest id when an older answer is handled last', () => {
  const newest = new NewestAcknowledged()
  newest.acknowledge(10, 104)
  newest.acknowledge(10, 102)
  newest.acknowledge(11, 200)
  assert.equal(newest.get(10), 104)
  assert.equal(newest.get(11), 200)
  assert.equal(newest.get(12), undefined)
})

test("a search showing a message from someone else's room fails; an unknown id is left for the database", async (t) => {
  const base = await fakeServer(t, { '/searches?q=x': document(1, message(300, 'x') + message(999, 'x')) })
  assert.deepEqual(await fetchAndCheck(t, base, '/searches?q=x', { kind: 'search', userId: 1 }), ['search found a message from a room the person is not in', 'unknown 999'])
})

test('a scrolled-back history fragment with a foreign message fails', async (t) => {
  const base = await fakeServer(t, { '/rooms/10/messages?before=102': message(100, 'a') + message(200, 'b') })
  assert.deepEqual(await fetchAndCheck(t, base, '/rooms/10/messages?before=102', { kind: 'messages', userId: 1, roomId: 10 }), ['message from another room'])
})

// ---------------------------------------------------------------------------------------------
// The routes profile validates with the harness's contract.

const target = (base: string): Target => ({ baseUrl: base, dbPath: '', labels: { 'rooms.watercooler': 10, 'rooms.hq': 11, 'messages.busy_060': 101 }, cookie: 'session_token=x', server: null, storage: null })
const roomContract: Contract = { kind: 'room_show', contentType: 'text/html', required: [], messageIds: [100n, 101n], messageContent: [['message', '100'], ['message', '101']], exactBody: null }
const postContract: Contract = { kind: 'post_message', contentType: 'text/vnd.turbo-stream.html', required: ['action="append"', 'target="messages_room_11"'], messageIds: null, messageContent: null, exactBody: null }

test('the routes profile counts a right room page and rejects a wrong message window', async (t) => {
  let wrong = false
  const base = await fakeServer(t, { '/rooms/10': () => ({ body: roomPage(1, wrong ? [100, 300] : [100, 101]) }) })
  const client = new HttpClient(base, 2)
  t.after(() => client.close())
  const sample = newSample()
  await hit(client, 'room_show', roomContract, target(base), true, sample, [])
  assert.equal(sample.ok, 1)
  wrong = true
  await hit(client, 'room_show', roomContract, target(base), true, sample, [])
  assert.equal(sample.ok, 1)
  assert.deepEqual(sample.invalid.counts, { 'incorrect message window': 1 })
})

test('the routes profile acknowledges a right post answer and rejects one with two message ids', async (t) => {
  let copies = 1
  // The post's text is only known from the request body, so this server echoes it back.
  const echo = http.createServer((req, res) => {
    let data = ''
    req.on('data', (chunk) => (data += chunk))
    req.on('end', () => {
      const text = new URLSearchParams(data).get('message[body]')!
      const messages = Array.from({ length: copies }, (_, i) => `<div id="message_${500 + i}" data-message-id="${500 + i}">${text}</div>`).join('')
      res.writeHead(200, { 'content-type': 'text/vnd.turbo-stream.html; charset=utf-8' })
      res.end(`<turbo-stream action="append" target="messages_room_11"><template>${messages}</template></turbo-stream>`)
    })
  })
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => echo.close(() => resolve())))
  const echoBase = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`
  const client = new HttpClient(echoBase, 2)
  t.after(() => client.close())
  const sample = newSample()
  const acks: { id: unknown; token: unknown }[] = []
  await hit(client, 'post_message', postContract, target(echoBase), false, sample, acks)
  assert.equal(sample.ok, 1)
  assert.equal(acks.length, 1)
  assert.equal(acks[0]!.id, 500)
  copies = 2
  await hit(client, 'post_message', postContract, target(echoBase), false, sample, acks)
  assert.equal(acks.length, 1)
  assert.deepEqual(sample.invalid.counts, { 'invalid message Turbo Stream': 1 })
})

// ---------------------------------------------------------------------------------------------

test('Server-Timing hit rates are read per metric, and a missing header reads n/a', () => {
  assert.deepEqual(parseServerTiming('page;desc="hit", records;desc="hits=2 misses=1", total;dur=1.2'), [
    ['page', { hits: 1, misses: 0 }], ['records', { hits: 2, misses: 1 }], ['total', { hits: 0, misses: 0 }],
  ])
  const timing = new ServerTiming()
  assert.deepEqual(timing.summary(), { server_timing: 'n/a' })
  timing.add('page;desc="miss", fragments;desc="hits=38 misses=2"')
  timing.add('page;desc=hit')
  assert.deepEqual(timing.summary(), {
    page: { hits: 1, misses: 1, hit_rate_percent: 50 },
    fragments: { hits: 38, misses: 2, hit_rate_percent: 95 },
  })
})

test('a post that never reaches someone still viewing the room is undelivered; one who left at once is excused', () => {
  // People 0, 1, 2 and 3 view the room when post 7 is sent at t = 1000 ms; person 4 does not.
  const delivery = new Delivery(7, 10, 1000, [0, 1, 2, 3], 5)
  assert.equal(delivery.received(0, 1040), 40)
  assert.equal(delivery.received(0, 1050), null, 'counted once')
  assert.equal(delivery.received(4, 1060), null, 'not viewing when it was sent')
  delivery.left(1, 1200) // within 500 ms: excused
  delivery.left(2, 2000) // later, without it: missed
  assert.deepEqual(delivery.tally(), { expected: 3, missed: 2, excused: 1, undelivered: 1 })
  assert.equal(delivery.received(3, 1700), 700, 'late, but delivered')
  assert.deepEqual(delivery.tally(), { expected: 3, missed: 1, excused: 1, undelivered: 0 })
})

test('the node flags a benchmark starts the server with are read from the checkout’s own npm start', (t) => {
  const root = fileURLToPath(new URL('../..', import.meta.url))
  const ours = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }
  const flags = startFlags(root)
  assert.ok(flags && flags.length > 0)
  assert.ok(ours.scripts.start.endsWith(`node ${flags.join(' ')} dist/main.js`))
  const other = mkdtempSync(join(tmpdir(), 'campfire-start-flags-'))
  t.after(() => rmSync(other, { recursive: true, force: true }))
  const startingWith = (start: string) => {
    writeFileSync(join(other, 'package.json'), JSON.stringify({ scripts: { start } }))
    return startFlags(other)
  }
  assert.deepEqual(startingWith('npm run build && node --max-old-space-size=512 --trace-gc dist/main.js'), ['--max-old-space-size=512', '--trace-gc'])
  assert.deepEqual(startingWith('node dist/main.js'), [])
  assert.deepEqual(startingWith('node server/build/start.mjs build -- node --enable-source-maps --max-semi-space-size=8 dist/main.js'), ['--enable-source-maps', '--max-semi-space-size=8'], 'through the launcher')
  assert.equal(startingWith('NODE_ENV=x node -r ./hook.js dist/main.js'), null, 'a shape it cannot read is said to be one')
})

test('a post answer’s Server-Timing durations are read in order, stages then total, and a header without any as none', () => {
  assert.deepEqual(serverDurationsMs('fragments;desc="hits=0 misses=1", write;dur=0.8, render;dur=0.61, total;dur=3.42'), [['write', 0.8], ['render', 0.61], ['total', 3.42]])
  assert.deepEqual(serverDurationsMs('page;desc="hit"'), [])
  assert.deepEqual(serverDurationsMs(undefined), [])
})

test('the floor phase delivers every post to every client, with the bytes per post it was asked for', async () => {
  for (const bytes of [300, 9839]) {
    const floor = await measureFloor({ clients: 5, bytesPerPost: bytes, posts: 3, intervalMs: 20, core: null, connectTimeoutMs: 10_000, drainSecs: 5 })
    assert.equal(floor.ready, 5)
    assert.equal(floor.complete, 3)
    assert.equal(floor.bytes_per_post, bytes)
    assert.equal(floor.all_clients.n, 3)
    assert.equal(floor.write_loop.n, 3)
  }
})

test("bench:fanout's floor sends one frame per post, as big as an unread notice", async () => {
  const floor = await measureFloor({ clients: 5, bytesPerPost: 97, singleFrame: true, posts: 3, intervalMs: 20, core: null, connectTimeoutMs: 10_000, drainSecs: 5 })
  assert.equal(floor.complete, 3)
  assert.equal(floor.bytes_per_post, 97)
  assert.equal(floor.all_clients.n, 3)
})
