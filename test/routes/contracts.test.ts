// The benchmark harness's route contracts (harness.md §2), run on the seeded development dataset:
// each route is fetched the way the load generator fetches it, its contract is derived the way the
// preflight derives it (independent SQL on the database file), and every response must pass the
// load validator. Then a series of posts, and the write audit on a read-only connection.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { buildTestApp } from '../helper.ts'
import { busyLabel, seedDatabase, type SeedLabels } from '../load/seed.ts'
import { excerpt, harnessGet, harnessLogin, HARNESS_HOST as HOST, validateRoute as validateHarnessRoute } from '../support/harness-client.ts'
import {
  auditWrites, checkResponse, expectedWindows, fromInject, harnessUrlencode, postRequest, prepareContract, preparePostContract, reasonOf, scrape, writeMark,
  type Acknowledgement, type Expectations, type RouteKind,
} from '../support/harness-validator.ts'


interface Seeded {
  app: FastifyInstance
  db: BetterSqlite3.Database
  labels: SeedLabels
  cookie: string
  expected: Expectations
}

async function seeded(t: TestContext): Promise<Seeded> {
  const { app, config } = await buildTestApp(t, { fixtures: false })
  const labels = seedDatabase(app.store, { secretKeyBase: config.secretKeyBase, cost: 4 })
  // The harness reads the live database with its own sqlite3 process, read-only.
  const db = new BetterSqlite3(config.databasePath, { readonly: true, fileMustExist: true })
  db.pragma('busy_timeout = 10000')
  t.after(() => db.close())
  const cookie = await harnessLogin(app, labels.emails.david!, labels.passwords.all)
  const expected = expectedWindows(db, { watercooler: labels.rooms.watercooler, hq: labels.rooms.hq, busy060: labels.messages.busy_060!, davidEmail: labels.emails.david! })
  return { app, db, labels, cookie, expected }
}

// The preflight and the load check of one route (support/harness-client.ts), on this dataset.
function validateRoute(s: Seeded, kind: Exclude<RouteKind, 'post_message'>, url: string) {
  return validateHarnessRoute(s.app, s.cookie, s.db, s.expected, s.labels.rooms.watercooler, kind, url)
}

const busyIds = (labels: SeedLabels, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => BigInt(labels.messages[busyLabel(from + i)]!))

test('the harness route contracts hold on the seeded dataset', async (t) => {
  const s = await seeded(t)
  const { labels } = s

  await t.test('GET /rooms/<watercooler> shows the 40 newest messages by created_at, oldest first', async () => {
    const contract = await validateRoute(s, 'room_show', `/rooms/${labels.rooms.watercooler}`)
    assert.deepEqual(contract.messageIds!.slice(0, 29), busyIds(labels, 92, 120))
    assert.equal(contract.messageIds!.at(-1), BigInt(labels.messages.bot_in_watercooler!))
  })

  await t.test('GET /rooms/<watercooler>/messages?before=<busy_060> is the bare fragment busy_020…busy_059', async () => {
    const contract = await validateRoute(s, 'messages_page', `/rooms/${labels.rooms.watercooler}/messages?before=${labels.messages.busy_060}`)
    assert.deepEqual(contract.messageIds, busyIds(labels, 20, 59))
  })

  await t.test('GET /users/me/sidebar is a whole document naming every visible open room', async () => {
    const contract = await validateRoute(s, 'sidebar', '/users/me/sidebar')
    assert.deepEqual(contract.required.sort(), ['All Pets', 'HQ', 'Kevin&#39;s Q&amp;A', 'shared_rooms'])
  })

  await t.test('GET /searches?q=coffee shows the newest 100 reachable matches by id, ascending', async (st) => {
    if (!s.app.hasRoute({ method: 'GET', url: '/searches' })) return st.skip('GET /searches is not registered yet (being built concurrently)')
    const contract = await validateRoute(s, 'search', '/searches?q=coffee')
    assert.ok(contract.messageIds!.length > 12, 'the seed has coffee messages outside the busy room')
  })

  await t.test('GET /up answers the health page', async () => {
    await validateRoute(s, 'up', '/up')
  })

  await t.test('the room page and sidebar name a stylesheet and the cable streams, which serve the same bytes every time', async () => {
    const plain = (url: string) => s.app.inject({ method: 'GET', url, headers: { host: HOST, cookie: s.cookie } })
    const html = (await plain(`/rooms/${labels.rooms.watercooler}`)).body + (await plain('/users/me/sidebar')).body
    const scraped = scrape(html)
    assert.ok(scraped.css, 'a /assets/….css href')
    assert.ok(scraped.streams.some((stream) => stream.startsWith('RoomMessagesChannel|')), 'the room messages stream')
    assert.ok(scraped.streams.some((stream) => stream.startsWith('Turbo::StreamsChannel|')), 'the sidebar streams')
    await validateRoute(s, 'static_css', scraped.css!)
  })

  await t.test('GET /users/<avatar_tokens.jason>/avatar serves an image, the same bytes every time', async () => {
    // The harness also decodes it with ffprobe, which is not part of this suite.
    await validateRoute(s, 'avatar', `/users/${labels.avatar_tokens.jason}/avatar`)
  })

  await t.test('POST /rooms/<hq>/messages answers each post with one appended message, and the audit finds every one', async () => {
    const hq = labels.rooms.hq
    const roomPage = await harnessGet(s.app, s.cookie, `/rooms/${hq}`, false)
    const { contract, failures } = preparePostContract(fromInject(roomPage), hq)
    assert.deepEqual(failures, [], excerpt(roomPage))
    const mark = writeMark(s.db, hq)
    const acknowledged: Acknowledgement[] = []
    const post = async (i: number) => {
      // The harness negotiates gzip for every post; one in four here asks for identity as `--gzip 0` does.
      const request = postRequest(hq, s.cookie, i % 4 !== 3)
      const response = await s.app.inject({ method: 'POST', url: request.url, headers: { host: HOST, ...request.headers }, payload: request.payload })
      const verdict = checkResponse(contract!, fromInject(response), request.token)
      assert.deepEqual(verdict.failures, [], `post ${i}: ${excerpt(response)}`)
      acknowledged.push({ id: Number(verdict.messageId), token: request.token })
    }
    for (let i = 0; i < 8; i++) await post(i)
    // Then 16 clients at once, as the timed samples run.
    await Promise.all(Array.from({ length: 16 }, (_, i) => post(8 + i)))
    assert.equal(acknowledged.length, 24)
    assert.deepEqual(auditWrites(s.db, { roomId: hq, ...mark, acknowledged }), [])
    // The same audit fails for a write that was acknowledged but is not there, or one never acknowledged.
    assert.notDeepEqual(auditWrites(s.db, { roomId: hq, ...mark, acknowledged: [...acknowledged.slice(1), { id: labels.messages.busy_001, token: 'bench write ffff' }] }), [])
    assert.notDeepEqual(auditWrites(s.db, { roomId: hq, ...mark, acknowledged: acknowledged.slice(1) }), [])
  })

  await t.test('the derived contracts reject altered copies of real responses', async () => {
    const url = `/rooms/${labels.rooms.watercooler}`
    const response = fromInject(await harnessGet(s.app, s.cookie, url, false))
    const { contract } = prepareContract('room_show', response, s.db, s.expected, labels.rooms.watercooler)
    const text = response.wire.toString('utf8')
    // Altered bodies travel without a Content-Length, so each alteration is judged on its own.
    const altered = (body: string | Buffer, headers: Record<string, string> = {}, judge = contract!) => {
      const { 'content-length': _length, ...rest } = response.headers
      return checkResponse(judge, { ...response, headers: { ...rest, ...headers }, wire: Buffer.from(body) }).failures.map(reasonOf)
    }
    const lastOpener = text.lastIndexOf('<div id="message_')
    const closing = '</turbo-frame>\n</div>'
    assert.deepEqual(altered(text), [])
    const withoutNewest = text.slice(0, lastOpener) + text.slice(text.indexOf(closing, lastOpener) + closing.length)
    // Its DOM id is a required marker, checked first; without the markers the window catches it.
    assert.deepEqual(altered(withoutNewest), ['missing expected content'])
    assert.deepEqual(altered(withoutNewest, {}, { ...contract!, required: [] }), ['incorrect message window'])
    assert.deepEqual(altered(text.replace('Build 1043 passed.', 'Build passed.')), ['missing seeded message content'])
    assert.deepEqual(altered(text.replace(/^<!doctype html>/i, '')), ['incomplete HTML document'])
    assert.deepEqual(altered(text, { 'content-length': String(response.wire.length + 1) }), ['wrong content length'])
    assert.deepEqual(altered(Buffer.concat([gzipSync(text), Buffer.from([0])]), { 'content-encoding': 'gzip' }), ['oversized or trailing gzip data'])
    const fragment = fromInject(await harnessGet(s.app, s.cookie, `/rooms/${labels.rooms.watercooler}/messages?before=${labels.messages.busy_060}`))
    const asRoomPage = { ...contract!, messageIds: s.expected.messages_page, messageContent: null, required: [] }
    assert.deepEqual(checkResponse(asRoomPage, fragment).failures.map(reasonOf), ['incomplete HTML document'], 'a fragment as the room page')
  })

  await t.test('reads stay valid after the writes', async () => {
    await validateRoute(s, 'room_show', `/rooms/${labels.rooms.watercooler}`)
    await validateRoute(s, 'sidebar', '/users/me/sidebar')
  })

  await t.test('GET /searches?q=coffee keeps only the newest 100 once there are more matches', async (st) => {
    if (!s.app.hasRoute({ method: 'GET', url: '/searches' })) return st.skip('GET /searches is not registered yet (being built concurrently)')
    for (let i = 0; i < 110; i++) {
      const room = i % 2 === 0 ? labels.rooms.pets : labels.rooms.archive
      const payload = `message%5Bbody%5D=${harnessUrlencode(`more coffee ${i}`)}&message%5Bclient_message_id%5D=more-coffee-${i}`
      const response = await s.app.inject({ method: 'POST', url: `/rooms/${room}/messages`, headers: { host: HOST, cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, payload })
      assert.ok([200, 303].includes(response.statusCode), excerpt(response))
    }
    s.expected = expectedWindows(s.db, { watercooler: labels.rooms.watercooler, hq: labels.rooms.hq, busy060: labels.messages.busy_060!, davidEmail: labels.emails.david! })
    assert.equal(s.expected.search.length, 100)
    await validateRoute(s, 'search', '/searches?q=coffee')
  })
})
