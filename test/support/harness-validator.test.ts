import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { gzipSync } from 'node:zlib'
import { buildTestApp } from '../helper.ts'
import { seedDatabase } from '../load/seed.ts'
import {
  auditWrites, checkResponse, contractProblems, expectedWindows, gunzipExactly, harnessUrlencode, missingToken, prepareContract, preparePostContract,
  reasonOf, scrape, ValidResponses, writeMark, type Contract, type Expectations, type WireResponse,
} from './harness-validator.ts'

// Synthetic markup in the shape the harness expects (and Rails renders): an opener carrying the id,
// a heading, then the presentation div inside the edit turbo-frame.
function message(id: number, body: string, options: { identity?: string; heading?: string } = {}): string {
  const identity = options.identity ?? `client-${id}`
  return `<div id="message_${identity}" class="message" data-message-id="${id}">
  <h3 class="message__heading">${options.heading ?? 'Jason Fried'}</h3>
  <turbo-frame id="edit_message_${identity}"><div class="message__body"><div id="presentation_message_${identity}" dir="auto">
${body}
  </div></div></turbo-frame>
</div>
`
}

const page = (body: string) => `<!DOCTYPE html>\n<html><head><title>All Talk</title></head><body>${body}</body></html>\n`

function contract(kind: Contract['kind'], ids: number[] = [], content: string[][] = []): Contract {
  const messageRoute = ['room_show', 'messages_page', 'search'].includes(kind)
  return {
    kind,
    contentType: kind === 'post_message' ? 'text/vnd.turbo-stream.html' : 'text/html',
    required: [],
    messageIds: messageRoute ? ids.map(BigInt) : null,
    messageContent: messageRoute ? content : null,
    exactBody: null,
  }
}

function respond(body: string | Buffer, headers: WireResponse['headers'] = {}, status = 200): WireResponse {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers }, wire: Buffer.isBuffer(body) ? body : Buffer.from(body) }
}

function reasons(verdict: { failures: string[] }): string[] {
  return verdict.failures.map(reasonOf)
}

const COFFEE = ['001', 'Coffee', 'machine', 'is', 'fixed']
const STAPLER = ['002', 'Who', 'moved', 'my', 'stapler']
const roomShow = () => contract('room_show', [42, 43], [COFFEE, STAPLER])
const goodPage = () => page(message(42, '<p>001. Coffee <strong>machine</strong> is fixed!</p>') + message(43, '<p>002. Who moved my stapler?</p>'))

test('a well-formed room page passes, identity or gzip', () => {
  assert.deepEqual(checkResponse(roomShow(), respond(goodPage())).failures, [])
  const gzipped = gzipSync(goodPage())
  assert.deepEqual(checkResponse(roomShow(), respond(gzipped, { 'content-encoding': 'gzip', 'content-length': String(gzipped.length) })).failures, [])
})

test('a page missing an expected message fails the window', () => {
  const body = page(message(42, '<p>001. Coffee machine is fixed!</p>'))
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(body))), ['incorrect message window'])
})

test('messages in the wrong order fail the window', () => {
  const body = page(message(43, '<p>002. Who moved my stapler?</p>') + message(42, '<p>001. Coffee machine is fixed!</p>'))
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(body))), ['incorrect message window'])
})

test('an extra data-message-id div fails the window; any extra tag fails the preflight', (t) => {
  const extraDiv = goodPage().replace('</body>', '<div class="reply" data-message-id="44"></div></body>')
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(extraDiv))), ['incorrect message window'])
  // The load check only counts <div> openers; the preflight counts every tag.
  const extraSpan = goodPage().replace('</body>', '<span data-message-id="42"></span></body>')
  assert.deepEqual(checkResponse(roomShow(), respond(extraSpan)).failures, [])
  const { db, expectations } = tinyDatabase(t)
  const preflight = prepareContract('room_show', respond(extraSpan), db, expectations, 7)
  assert.match(preflight.failures.join('\n'), /room_show: differs from seed SQL/)
  assert.deepEqual(prepareContract('room_show', respond(goodPage()), db, expectations, 7).failures, [])
})

test('zero, overflowing or non-ASCII message ids are invalid', () => {
  for (const id of ['0', '18446744073709551616', '٤٢']) {
    const body = goodPage().replace('data-message-id="42"', `data-message-id="${id}"`)
    assert.deepEqual(reasons(checkResponse(roomShow(), respond(body))), ['invalid message ID'], id)
  }
})

test('a presentation missing a word, or with words out of order, fails the content check', () => {
  for (const body of ['<p>001. Coffee is fixed!</p>', '<p>001. fixed is machine Coffee</p>', '<p>001. Coffee machines is fixed!</p>', '<p>Coffee machine is fixed!</p>']) {
    const html = page(message(42, body) + message(43, '<p>002. Who moved my stapler?</p>'))
    assert.deepEqual(reasons(checkResponse(roomShow(), respond(html))), ['missing seeded message content'], body)
  }
})

test('words in the heading, in attributes or in the next message do not count', () => {
  const heading = page(message(42, '<p></p>', { heading: '001 Coffee machine is fixed' }) + message(43, '<p>002. Who moved my stapler?</p>'))
  const attribute = page(message(42, '<p title="001 Coffee machine is fixed"></p>') + message(43, '<p>002. Who moved my stapler?</p>'))
  const next = page(message(42, '') + message(43, '<p>001 Coffee machine is fixed 002 Who moved my stapler</p>'))
  for (const body of [heading, attribute, next]) assert.deepEqual(reasons(checkResponse(roomShow(), respond(body))), ['missing seeded message content'])
})

test('a missing, unbalanced or misnamed presentation div is named as such', () => {
  const missing = goodPage().replace('id="presentation_message_client-42"', 'id="body_message_client-42"')
  const unbalanced = page(message(42, '<div><p>001. Coffee machine is fixed!</p>').replace(/<\/div><\/div><\/turbo-frame>/, '</turbo-frame>') + message(43, '<p>002. Who moved my stapler?</p>'))
  const misnamed = goodPage().replace('presentation_message_client-42', 'presentation_message_client-43')
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(missing))), ['missing message presentation'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(unbalanced))), ['incomplete message presentation'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(misnamed))), ['incorrect message presentation identity'])
  // The numeric id is an accepted identity too.
  const numeric = goodPage().replace('presentation_message_client-42', 'presentation_message_42')
  assert.deepEqual(checkResponse(roomShow(), respond(numeric)).failures, [])
})

test('nested divs inside the presentation are counted', () => {
  const nested = page(message(42, '<div><div>001.</div> Coffee</div><div>machine is fixed!</div>') + message(43, '<p>002. Who moved my stapler?</p>'))
  assert.deepEqual(checkResponse(roomShow(), respond(nested)).failures, [])
})

test('a fragment given where a document is expected fails', () => {
  const fragment = message(42, '<p>001. Coffee machine is fixed!</p>') + message(43, '<p>002. Who moved my stapler?</p>')
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(fragment))), ['incomplete HTML document'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(goodPage().replace('</html>', '')))), ['incomplete HTML document'])
  assert.deepEqual(checkResponse(roomShow(), respond(`\n  ${goodPage().replace('<!DOCTYPE html>', '<!doctype HTML>')}  \n`)).failures, [])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(`\ufeff${goodPage()}`))), ['incomplete HTML document'])
})

test('the messages page must be bare messages, each ending in </turbo-frame></div>', () => {
  const page = contract('messages_page', [42, 43], [COFFEE, STAPLER])
  const fragment = message(42, '<p>001. Coffee machine is fixed!</p>') + message(43, '<p>002. Who moved my stapler?</p>')
  assert.deepEqual(checkResponse(page, respond(fragment)).failures, [])
  assert.deepEqual(reasons(checkResponse(page, respond(fragment + '<div class="pagination"></div>'))), ['incomplete paginated message'])
  assert.deepEqual(reasons(checkResponse(page, respond(fragment.replace(/<\/div>\n$/, '')))), ['incomplete paginated message'])
  assert.deepEqual(reasons(checkResponse(page, respond(fragment.replace('</turbo-frame>', '')))), ['incomplete paginated message'])
})

test('generic rules: status, content type, length, encoding, UTF-8', () => {
  const body = goodPage()
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(body, {}, 500))), ['unsuccessful or empty response'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(''))), ['unsuccessful or empty response'])
  assert.deepEqual(reasons(checkResponse(roomShow(), { status: 200, headers: {}, wire: Buffer.from(body) })), ['missing content type'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(body, { 'content-type': 'text/plain' }))), ['wrong content type'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(body, { 'content-length': String(Buffer.byteLength(body) + 1) }))), ['wrong content length'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(body, { 'content-length': String(body.length - 1) }))), ['wrong content length'])
  assert.deepEqual(checkResponse(roomShow(), respond(body, { 'content-length': String(Buffer.byteLength(body)) })).failures, [])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(body, { 'content-encoding': 'br' }))), ['unsupported content encoding'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(body, { 'content-encoding': 'GZIP' }))), ['unsupported content encoding'])
  assert.deepEqual(checkResponse(roomShow(), respond(body, { 'content-encoding': 'identity' })).failures, [])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(Buffer.concat([Buffer.from(body), Buffer.from([0xc3, 0x28])])))), ['invalid UTF-8'])
})

test('bad gzip is caught: corrupt checksum, truncation, trailing bytes, a second member, oversize', () => {
  const gz = gzipSync(goodPage())
  const gzip = { 'content-encoding': 'gzip' }
  const corrupt = Buffer.from(gz)
  corrupt[corrupt.length - 8]! ^= 1
  const wrongSize = Buffer.from(gz)
  wrongSize[wrongSize.length - 1]! ^= 1
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(corrupt, gzip))), ['invalid gzip stream'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(wrongSize, gzip))), ['invalid gzip stream'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(gz.subarray(0, gz.length - 1), gzip))), ['invalid gzip stream'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(gz.subarray(0, gz.length - 20), gzip))), ['invalid gzip stream'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(Buffer.from(goodPage()), gzip))), ['invalid gzip stream'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(Buffer.concat([gz, Buffer.from([0])]), gzip))), ['oversized or trailing gzip data'])
  assert.deepEqual(reasons(checkResponse(roomShow(), respond(Buffer.concat([gz, gzipSync('more')]), gzip))), ['oversized or trailing gzip data'])
  assert.deepEqual(reasons(gunzipExactly(gzipSync(Buffer.alloc(8 * 1024 * 1024 + 1, 32)))), ['oversized or trailing gzip data'])
  assert.deepEqual(gunzipExactly(gzipSync(Buffer.alloc(8 * 1024 * 1024, 32))).failures, [])
})

test('required markers must all be present', () => {
  const withMarkers = { ...roomShow(), required: ['id="message_client-42"', 'id="message_client-43"'] }
  assert.deepEqual(checkResponse(withMarkers, respond(goodPage())).failures, [])
  assert.deepEqual(reasons(checkResponse(withMarkers, respond(goodPage().replace('id="message_client-43"', 'id="msg_client-43"')))), ['missing expected content'])
})

const streamContract = () => ({ ...contract('post_message'), required: ['action="append"', 'target="messages_rooms_open_2"'] })
const stream = (body = 'bench write abc1') => `<turbo-stream action="append" target="messages_rooms_open_2"><template>${message(155, `<p>${body}</p>`)}</template></turbo-stream>`
const streamResponse = (text: string) => respond(text, { 'content-type': 'text/vnd.turbo-stream.html; charset=utf-8' })

test('a post answer passes with exactly one message carrying the posted text', () => {
  const verdict = checkResponse(streamContract(), streamResponse(stream()), 'bench write abc1')
  assert.deepEqual(verdict.failures, [])
  assert.equal(verdict.messageId, 155n)
  assert.deepEqual(checkResponse(streamContract(), streamResponse(`${stream()}\n`), 'bench write abc1').failures, [])
})

test('a post answer with leading whitespace, a BOM or a missing template is not a Turbo Stream', () => {
  for (const text of [` ${stream()}`, `\n${stream()}`, `\ufeff${stream()}`, stream().replace('<template>', '<templat>'), stream().replace('</turbo-stream>', '')]) {
    assert.deepEqual(reasons(checkResponse(streamContract(), streamResponse(text), 'bench write abc1')), ['invalid message Turbo Stream'], JSON.stringify(text.slice(0, 20)))
  }
})

test('a post answer with no message, two messages, another body or the wrong target fails', () => {
  const empty = '<turbo-stream action="append" target="messages_rooms_open_2"><template>This room was deleted.</template></turbo-stream>'
  const two = stream().replace('</template>', `${message(156, '<p>bench write abc1</p>')}</template>`)
  assert.deepEqual(reasons(checkResponse(streamContract(), streamResponse(empty), 'bench write abc1')), ['invalid message Turbo Stream'])
  assert.deepEqual(reasons(checkResponse(streamContract(), streamResponse(two), 'bench write abc1')), ['invalid message Turbo Stream'])
  assert.deepEqual(reasons(checkResponse(streamContract(), streamResponse(stream()), 'bench write abc2')), ['POST did not render the requested message'])
  assert.deepEqual(reasons(checkResponse(streamContract(), streamResponse(stream().replace('messages_rooms_open_2', 'messages_2')), 'bench write abc1')), ['missing expected content'])
  assert.deepEqual(reasons(checkResponse(streamContract(), respond(stream()), 'bench write abc1')), ['wrong content type'])
})

test('the post target is the one messages_<room key>_<id> element on the room page', () => {
  const roomPage = (ids: string[]) => respond(page(ids.map((id) => `<div id="${id}"></div>`).join('')))
  assert.equal(preparePostContract(roomPage(['messages_rooms_open_2', 'messages_rooms_open_20', 'message_area']), 2).target, 'messages_rooms_open_2')
  assert.equal(preparePostContract(roomPage(['messages_room_2']), 2).target, 'messages_room_2')
  assert.match(preparePostContract(roomPage([]), 2).failures[0]!, /missing or ambiguous write-room DOM target/)
  assert.match(preparePostContract(roomPage(['messages_rooms_open_2', 'messages_room_2']), 2).failures[0]!, /missing or ambiguous/)
  assert.match(preparePostContract(roomPage(['messages_rooms_open_2']), 3).failures[0]!, /missing or ambiguous/)
})

test('the scrape reads cable streams only with channel first, one space before signed-stream-name', () => {
  const html = `<link rel="stylesheet" href="/assets/app-1a2b.css"><script src="/assets/app-3c4d.js"></script>
    <turbo-cable-stream-source channel="RoomMessagesChannel" signed-stream-name="a&amp;b--c"></turbo-cable-stream-source>
    <turbo-cable-stream-source signed-stream-name="x" channel="Turbo::StreamsChannel"></turbo-cable-stream-source>
    <turbo-cable-stream-source channel="Turbo::StreamsChannel"  signed-stream-name="y"></turbo-cable-stream-source>
    <turbo-cable-stream-source channel="RoomMessagesChannel" signed-stream-name="a&amp;b--c"></turbo-cable-stream-source>`
  assert.deepEqual(scrape(html), { streams: ['RoomMessagesChannel|a&b--c'], css: '/assets/app-1a2b.css', js: '/assets/app-3c4d.js' })
})

test('the harness form encoding keeps unreserved characters only', () => {
  assert.equal(harnessUrlencode('message[body]'), 'message%5Bbody%5D')
  assert.equal(harnessUrlencode('bench write 1a-2_b.c~'), 'bench%20write%201a-2_b.c~')
  assert.equal(harnessUrlencode('é'), '%C3%A9')
})

test('thin or malformed contracts fail closed', () => {
  assert.deepEqual(contractProblems(roomShow()), [])
  assert.deepEqual(contractProblems(contract('room_show')), ['message route needs expected IDs'])
  assert.deepEqual(contractProblems({ ...roomShow(), messageContent: null }), ['message route needs expected content'])
  assert.deepEqual(contractProblems({ ...roomShow(), messageContent: [COFFEE] }), ['message content must match expected IDs'])
  assert.deepEqual(contractProblems({ ...roomShow(), messageContent: [COFFEE, []] }), ['empty message content tokens'])
  assert.deepEqual(contractProblems({ ...roomShow(), messageContent: [COFFEE, ['a b']] }), ['invalid message content token'])
  assert.deepEqual(contractProblems({ ...roomShow(), messageIds: [42n, 0n] }), ['invalid message ID'])
})

test('a response equal in status, checked headers and every body byte to one that passed under the same contract matches it; nothing else does', () => {
  const memo = new ValidResponses(2)
  const gzipped = gzipSync(goodPage())
  const valid = respond(gzipped, { 'content-encoding': 'gzip', 'content-length': String(gzipped.length), 'server-timing': 'page;desc="hit"' })
  const contract = roomShow()
  assert.deepEqual(checkResponse(contract, valid).failures, [])
  assert.equal(memo.matches(contract, valid), false, 'not before it is remembered')
  memo.remember(contract, valid)
  const copy = { ...valid, headers: { ...valid.headers, 'server-timing': 'page;desc="miss"', date: 'now' }, wire: Buffer.from(gzipped) }
  assert.equal(memo.matches(contract, copy), true, 'the same bytes in another buffer, other headers aside')
  const flipped = Buffer.from(gzipped)
  flipped[flipped.length - 9]! ^= 1
  const differing: [string, WireResponse][] = [
    ['one body byte', { ...valid, wire: flipped }],
    ['the status', { ...valid, status: 203 }],
    ['the content type', { ...valid, headers: { ...valid.headers, 'content-type': 'text/plain' } }],
    ['the content encoding', { ...valid, headers: { ...valid.headers, 'content-encoding': undefined } }],
    ['the content length', { ...valid, headers: { ...valid.headers, 'content-length': String(gzipped.length + 1) } }],
  ]
  for (const [what, response] of differing) assert.equal(memo.matches(contract, response), false, what)
  assert.equal(memo.matches(roomShow(), valid), false, 'another contract (a changed expectation) starts empty')
  memo.forget(contract)
  assert.equal(memo.matches(contract, valid), false, 'forgotten')
  // Only the last `size` are kept.
  const others = [1, 2].map((n) => ({ ...valid, wire: gzipSync(goodPage() + ' '.repeat(n)) }))
  memo.remember(contract, valid)
  for (const other of others) memo.remember(contract, other)
  assert.equal(memo.matches(contract, valid), false)
  assert.ok(others.every((other) => memo.matches(contract, other)))
  // A post's verdict depends on the posted text: never remembered.
  const post = contract.kind === 'room_show' ? { ...contract, kind: 'post_message' as const } : contract
  memo.remember(post, valid)
  assert.equal(memo.matches(post, valid), false)
})

test('tokens are matched as whole words, in order', () => {
  assert.equal(missingToken('<p>001. Coffee <b>machine</b> is fixed!</p>', COFFEE), null)
  assert.equal(missingToken('<p>001. Coffeemachine is fixed!</p>', COFFEE), 'Coffee')
  assert.equal(missingToken('<p>001.Coffee machine is</p>', COFFEE), 'fixed')
  assert.equal(missingToken('<p>Tom &amp; Jerry</p>', ['Tom', 'Jerry']), null)
})

// Two indexed messages, enough for the preflight's SQL.
function tinyDatabase(t: TestContext): { db: BetterSqlite3.Database; expectations: Expectations } {
  const db = new BetterSqlite3(':memory:')
  t.after(() => db.close())
  db.exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY, room_id INTEGER, client_message_id TEXT, created_at TEXT);
    CREATE VIRTUAL TABLE message_search_index USING fts5 (body, tokenize=porter);
    INSERT INTO messages VALUES (42, 7, 'client-42', '2026-03-01 10:00:00'), (43, 7, 'client-43', '2026-03-01 10:01:00');
    INSERT INTO message_search_index (rowid, body) VALUES (42, '001. Coffee machine is fixed!'), (43, '002. Who moved my stapler?');`)
  return { db, expectations: { room_show: [42n, 43n], messages_page: [], search: [], sidebarNames: [] } }
}

test('the preflight derives tokens from the search index and identities from the page', (t) => {
  const { db, expectations } = tinyDatabase(t)
  const { contract: derived, failures } = prepareContract('room_show', respond(goodPage()), db, expectations, 7)
  assert.deepEqual(failures, [])
  assert.deepEqual(derived!.messageContent, [COFFEE, STAPLER])
  assert.deepEqual(derived!.required.sort(), ['id="message_client-42"', 'id="message_client-43"'])
  const anonymous = goodPage().replace('id="message_client-43"', 'id="msg-43"')
  assert.match(prepareContract('room_show', respond(anonymous), db, expectations, 7).failures.join(), /missing message DOM identity 43/)
  assert.match(prepareContract('room_show', respond(goodPage(), {}, 404), db, expectations, 7).failures.join(), /HTTP 404/)
})

test('the write audit catches lost, extra, duplicated and unpersisted acknowledgements', async (t) => {
  const { app, config } = await buildTestApp(t, { fixtures: false })
  const labels = seedDatabase(app.store, { secretKeyBase: config.secretKeyBase, cost: 4 })
  const db = new BetterSqlite3(config.databasePath, { readonly: true, fileMustExist: true })
  t.after(() => db.close())
  const hq = labels.rooms.hq
  const mark = writeMark(db, hq)
  const posted = await app.store.write((m) =>
    ['bench write a1', 'bench write b2'].map((token, i) => ({
      id: m.messages.create({ roomId: hq, creatorId: labels.users.david, clientMessageId: `audit-${i}`, body: token, plainText: token }).id,
      token,
    })),
  )
  const audit = (acknowledged: { id: unknown; token: unknown }[], expected?: number) => auditWrites(db, { roomId: hq, ...mark, acknowledged, expected }).map(reasonOf)
  assert.deepEqual(audit(posted), [])
  assert.deepEqual(audit(posted.slice(0, 1)), ['acknowledged HTTP write count mismatch', 'acknowledged message body missing'])
  assert.deepEqual(audit([posted[0]!, posted[0]!]), ['A message was acknowledged more than once'])
  assert.deepEqual(audit([posted[0]!, { ...posted[1]!, token: posted[0]!.token }]), ['Request bodies were not unique'])
  assert.deepEqual(audit([posted[0]!, { ...posted[1]!, token: 'bench write c3' }]), ['1 acknowledged messages lack their exact body or search entry'])
  assert.deepEqual(audit([posted[0]!, { ...posted[1]!, id: labels.messages.busy_001 }]), ['1 acknowledged messages lack their exact body or search entry'])
  assert.deepEqual(audit([posted[0]!, { ...posted[1]!, id: '7' }]), ['Invalid acknowledgement'])
  assert.deepEqual(audit(posted, 3), ['acknowledged HTTP write count mismatch', 'acknowledged message body missing', 'Wrong acknowledgement count'])

  await app.store.write((m) => m.db.prepare('DELETE FROM message_search_index WHERE rowid = ?').run(posted[1]!.id))
  assert.deepEqual(audit(posted), ['FTS entry missing', '1 acknowledged messages lack their exact body or search entry'])
  await app.store.write((m) => m.db.prepare("DELETE FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id = ?").run(posted[0]!.id))
  assert.deepEqual(audit(posted), ['FTS entry missing', 'rich text entry missing', 'acknowledged message body missing', '2 acknowledged messages lack their exact body or search entry'])
})

test('expected windows come from SQL on the seeded database', async (t) => {
  const { app, config } = await buildTestApp(t, { fixtures: false })
  const labels = seedDatabase(app.store, { secretKeyBase: config.secretKeyBase, cost: 4 })
  const db = new BetterSqlite3(config.databasePath, { readonly: true, fileMustExist: true })
  t.after(() => db.close())
  const expected = expectedWindows(db, { watercooler: labels.rooms.watercooler, hq: labels.rooms.hq, busy060: labels.messages.busy_060!, davidEmail: labels.emails.david! })
  const busy = (n: number) => BigInt(labels.messages[`busy_${String(n).padStart(3, '0')}`]!)
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => busy(from + i))
  assert.deepEqual(expected.messages_page, range(20, 59))
  assert.deepEqual(expected.room_show.slice(0, 29), range(92, 120))
  assert.equal(expected.room_show.length, 40)
  assert.equal(expected.room_show.at(-1), BigInt(labels.messages.bot_in_watercooler!))
  assert.deepEqual(expected.sidebarNames.sort(), ['All Pets', 'HQ', 'Kevin&#39;s Q&amp;A'])
  // Every "coffee" message David can reach, in any room and at any involvement; kevin's direct room is not his.
  assert.ok(expected.search.includes(BigInt(labels.messages.archive_notes!)))
  assert.ok(!expected.search.includes(BigInt(labels.messages.direct_bender!)))
  assert.deepEqual(expected.search, [...expected.search].sort((a, b) => (a < b ? -1 : 1)))
})
