import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { serverDurationsMs } from '../load/support/server-timing.ts'
import {
  all,
  dbTimeAgo,
  elementContent,
  exec,
  get,
  messageIdsInAnyTag,
  messageIdsInDivs,
  one,
  post,
  seed,
  send,
  sleep,
  TURBO_ACCEPT,
  value,
} from './messages/support.ts'

const hq = rooms.hq.id
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

type MessageRecord = { id: number; room_id: number; creator_id: number; client_message_id: string; created_at: string; updated_at: string }

function messageByClientId(app: Parameters<typeof one>[0], clientMessageId: string): MessageRecord | undefined {
  return one<MessageRecord>(app, 'SELECT id, client_message_id, created_at, creator_id, room_id, updated_at FROM messages WHERE client_message_id = ?', clientMessageId)
}

function richText(app: Parameters<typeof one>[0], messageId: number) {
  return one<{ body: string; record_type: string; name: string }>(
    app,
    "SELECT body, record_type, name FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id = ?",
    messageId,
  )
}

function searchBody(app: Parameters<typeof one>[0], messageId: number): string | undefined {
  return value<string>(app, 'SELECT body FROM message_search_index WHERE rowid = ?', messageId)
}

const counts = (app: Parameters<typeof one>[0]) => ({
  messages: value<number>(app, 'SELECT count(*) FROM messages'),
  richTexts: value<number>(app, "SELECT count(*) FROM action_text_rich_texts WHERE record_type = 'Message'"),
  searchRows: value<number>(app, 'SELECT count(*) FROM message_search_index'),
})

// ---------------------------------------------------------------------------------------------
// Creating

test('a post answers 200 with a turbo-stream that appends exactly one message, holding the text verbatim, to the room', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const text = 'bench write 17a2b3c4d5e6f7'
  const response = await post(app, cookie, hq, text, 'cafe01beef')

  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'text/vnd.turbo-stream.html; charset=utf-8')
  assert.ok(response.body.startsWith('<turbo-stream'), `starts with: ${JSON.stringify(response.body.slice(0, 40))}`)
  assert.ok(response.body.trimEnd().endsWith('</turbo-stream>'))
  assert.equal(response.body.match(/<turbo-stream\b/g)?.length, 1)
  assert.match(response.body, /<turbo-stream action="append" target="messages_rooms_open_2"><template>/)
  assert.ok(response.body.includes('</template>'))
  const ids = messageIdsInAnyTag(response.body)
  assert.equal(ids.length, 1, 'exactly one data-message-id')
  assert.deepEqual(messageIdsInDivs(response.body), ids)
  assert.ok(response.body.includes(text))
  const stored = messageByClientId(app, 'cafe01beef')
  assert.equal(ids[0], stored?.id, 'the acknowledged id is the stored message')
  assert.match(response.body, /id="message_cafe01beef"/)
  assert.match(response.body, /id="presentation_message_cafe01beef"/)
})

test('a post’s turbo-stream answer says in Server-Timing how long the server took before answering, stage by stage', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await post(app, cookie, hq, 'timed', 'timed01')
  assert.equal(response.statusCode, 200)
  const timing = String(response.headers['server-timing'])
  assert.match(timing, /(^|, )total;dur=\d+(\.\d+)?$/)
  const phases = serverDurationsMs(timing)
  assert.deepEqual(phases.map(([name]) => name), ['hooks', 'body', 'write', 'render', 'messages', 'unread', 'total'])
  const stages = phases.slice(0, -1).reduce((sum, [, ms]) => sum + ms, 0)
  assert.ok(stages <= phases.at(-1)![1] + 0.05, `the stages (${stages} ms) fit in the total (${phases.at(-1)![1]} ms)`)
})

test('when the post is answered, the message, its rich-text body and its search row are already stored', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await post(app, await signIn(app, 'jz'), hq, 'Lunch at noon?', 'lunch1')
  assert.equal(response.statusCode, 200)
  const message = messageByClientId(app, 'lunch1')
  assert.ok(message)
  assert.equal(message.room_id, hq)
  assert.equal(message.creator_id, users.jz.id)
  assert.equal(message.created_at, message.updated_at)
  const body = richText(app, message.id)
  assert.deepEqual({ record_type: body?.record_type, name: body?.name }, { record_type: 'Message', name: 'body' })
  assert.ok(body?.body.includes('Lunch at noon?'))
  assert.equal(searchBody(app, message.id), 'Lunch at noon?')
  assert.equal(value<number>(app, "SELECT rowid FROM message_search_index WHERE message_search_index MATCH 'lunch'"), message.id)
})

test('a post marks the other visible, disconnected members unread, but not the sender, invisible members or members connected in the last minute', async (t) => {
  const { app } = await buildTestApp(t)
  await exec(app, "UPDATE memberships SET involvement = 'invisible' WHERE room_id = ? AND user_id = ?", hq, users.jz.id)
  await exec(app, 'UPDATE memberships SET connections = 1, connected_at = ? WHERE room_id = ? AND user_id = ?', dbTimeAgo(5_000), hq, users.kevin.id)
  await exec(app, 'UPDATE memberships SET connections = 0, connected_at = ? WHERE room_id = ? AND user_id = ?', dbTimeAgo(120_000), hq, users.jason.id)

  const response = await post(app, await signIn(app, 'david'), hq, 'Anyone around?', 'around1')
  assert.equal(response.statusCode, 200)
  const message = messageByClientId(app, 'around1')!
  const unread = Object.fromEntries(
    all<{ user_id: number; unread_at: string | null }>(app, 'SELECT user_id, unread_at FROM memberships WHERE room_id = ?', hq).map((row) => [row.user_id, row.unread_at]),
  )
  assert.equal(unread[users.david.id], null, 'the sender')
  assert.equal(unread[users.jz.id], null, 'invisible')
  assert.equal(unread[users.kevin.id], null, 'connected 5 s ago')
  assert.equal(unread[users.jason.id], message.created_at, 'connected two minutes ago is disconnected')
  assert.equal(unread[users.bender.id], message.created_at, 'never connected')
  assert.equal(value(app, 'SELECT count(*) FROM memberships WHERE room_id != ? AND unread_at IS NOT NULL', hq), 0, 'other rooms are untouched')
})

test("a post moves the room's updated_at to the message's creation time", async (t) => {
  const { app } = await buildTestApp(t)
  const before = value<string>(app, 'SELECT updated_at FROM rooms WHERE id = ?', hq)!
  await post(app, await signIn(app, 'david'), hq, 'touch the room', 'touch1')
  const after = value<string>(app, 'SELECT updated_at FROM rooms WHERE id = ?', hq)!
  assert.ok(after > before, `${after} > ${before}`)
  assert.equal(after, messageByClientId(app, 'touch1')!.created_at)
})

test('posting to a room you are not in answers 404 and writes nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const before = counts(app)
  const unreadBefore = value<number>(app, 'SELECT count(*) FROM memberships WHERE unread_at IS NOT NULL')
  const roomBefore = value<string>(app, 'SELECT updated_at FROM rooms WHERE id = ?', rooms.watercooler.id)
  const response = await post(app, await signIn(app, 'jz'), rooms.watercooler.id, 'let me in', 'sneaky1')
  assert.equal(response.statusCode, 404)
  assert.ok(!response.body.includes('let me in'))
  assert.match(response.body, /<turbo-frame id="composer-frame">[\s\S]*This room was deleted\./, 'the composer frame says so')
  assert.deepEqual(counts(app), before)
  assert.equal(value<number>(app, 'SELECT count(*) FROM memberships WHERE unread_at IS NOT NULL'), unreadBefore)
  assert.equal(value<string>(app, 'SELECT updated_at FROM rooms WHERE id = ?', rooms.watercooler.id), roomBefore)
})

test('posting to a room that does not exist, or to a non-numeric room id, answers 404', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  for (const id of ['999', 'abc', '0', '-1', '1e3', '99999999999999999999999']) {
    const response = await send(app, cookie, 'POST', `/rooms/${id}/messages`, { 'message[body]': 'hi', 'message[client_message_id]': 'x1' }, TURBO_ACCEPT)
    assert.equal(response.statusCode, 404, id)
  }
  assert.equal(counts(app).messages, 0)
})

test('a blank body, or none at all, is refused with 422 and nothing is written', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  for (const body of ['', '   ', '\n\t ', '<p></p>', '<p> </p><br>', undefined]) {
    const response = await post(app, cookie, hq, body, 'blank1')
    assert.equal(response.statusCode, 422, JSON.stringify(body))
  }
  assert.deepEqual(counts(app), { messages: 0, richTexts: 0, searchRows: 0 })
})

test('a body longer than 100,000 characters is refused with 422; exactly 100,000 is accepted', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  assert.equal((await post(app, cookie, hq, 'a'.repeat(100_001), 'long1')).statusCode, 422)
  assert.equal(counts(app).messages, 0)
  assert.equal((await post(app, cookie, hq, 'a'.repeat(100_000), 'long2')).statusCode, 200)
  assert.equal(counts(app).messages, 1)
})

test('a malformed client_message_id is refused with 422 and nothing is written', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  for (const id of ['<x>', 'a b', '"quoted"', 'x'.repeat(101), 'ünïcode', 'a/b']) {
    const response = await post(app, cookie, hq, 'hello', id)
    assert.equal(response.statusCode, 422, id)
  }
  assert.deepEqual(counts(app), { messages: 0, richTexts: 0, searchRows: 0 })
})

test('a post without a client_message_id is given a UUID, which its DOM id uses', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  for (const clientMessageId of [undefined, '']) {
    const response = await post(app, cookie, hq, 'no id given', clientMessageId)
    assert.equal(response.statusCode, 200)
    const id = messageIdsInDivs(response.body)[0]!
    const stored = value<string>(app, 'SELECT client_message_id FROM messages WHERE id = ?', id)!
    assert.match(stored, UUID)
    assert.ok(response.body.includes(`id="message_${stored}"`))
  }
})

test('hostile HTML is stored sanitized and rendered without scripts, event handlers, javascript: links or styles', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const hostile = [
    '<script>alert("s1")</script>',
    '<img src="x" onerror="alert(\'s2\')">',
    '<a href="javascript:alert(\'s3\')">click here</a>',
    '<p style="position:fixed;top:0" onclick="alert(\'s4\')">styled words</p>',
    '<style>body { display: none }</style>',
    '<iframe src="https://evil.example/"></iframe>',
    '<svg><script>alert("s5")</script></svg>',
    'plain ending',
  ].join('')
  const response = await post(app, cookie, hq, hostile, 'hostile1')
  assert.equal(response.statusCode, 200)
  const stored = richText(app, messageByClientId(app, 'hostile1')!.id)!.body
  const presentation = elementContent(response.body, 'presentation_message_hostile1')
  assert.ok(presentation !== null, 'the presentation div is there')
  for (const [label, html] of [['stored body', stored], ['rendered presentation', presentation]] as const) {
    assert.doesNotMatch(html, /<script/i, label)
    assert.doesNotMatch(html, /\sonerror\s*=|\sonclick\s*=/i, label)
    assert.doesNotMatch(html, /javascript:/i, label)
    assert.doesNotMatch(html, /<style|\sstyle\s*=/i, label)
    assert.doesNotMatch(html, /<iframe|<svg|<img/i, label)
    assert.doesNotMatch(html, /alert\(/, label)
    assert.match(html, /click here/, label)
    assert.match(html, /styled words/, label)
    assert.match(html, /plain ending/, label)
  }
  assert.doesNotMatch(response.body, /<script|javascript:|onerror=|onclick=/i, 'nowhere in the stream')
})

// ---------------------------------------------------------------------------------------------
// History pages

test('?before=<id> answers the 40 messages before it, oldest first, as a bare fragment', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 100)
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/messages?before=${seeded[59]!.id}`)
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.deepEqual(messageIdsInDivs(response.body), seeded.slice(19, 59).map((m) => m.id))
  assert.deepEqual(messageIdsInAnyTag(response.body), messageIdsInDivs(response.body))
  assert.doesNotMatch(response.body, /<!doctype|<html|<head|<body|<nav|id="sidebar"/i)
  assert.ok(response.body.trimStart().startsWith('<div'), 'starts with the first message')
})

test('?after=<id> answers the 40 messages after it, oldest first', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 100)
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/messages?after=${seeded[9]!.id}`)
  assert.equal(response.statusCode, 200)
  assert.deepEqual(messageIdsInDivs(response.body), seeded.slice(10, 50).map((m) => m.id))
  assert.doesNotMatch(response.body, /<!doctype|<html/i)
})

test('a short last page has only what there is: ?after= the 95th of 100 gives five', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 100)
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/messages?after=${seeded[94]!.id}`)
  assert.deepEqual(messageIdsInDivs(response.body), seeded.slice(95).map((m) => m.id))
})

test('a history page orders by created_at, not by id', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 50)
  // The 50 messages' creation times run backwards: the highest id is the oldest.
  await app.store.write((m) => {
    const update = m.db.prepare('UPDATE messages SET created_at = ? WHERE id = ?')
    seeded.forEach((message, index) => update.run(seeded[seeded.length - 1 - index]!.created_at, message.id))
  })
  const anchor = seeded[0]! // now the newest
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/messages?before=${anchor.id}`)
  const expected = seeded.slice(1, 41).map((m) => m.id).reverse()
  assert.deepEqual(messageIdsInDivs(response.body), expected)
})

test('a history page answers 204 with no body when there is nothing before or after', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 5)
  const cookie = await signIn(app, 'kevin')
  for (const query of [`before=${seeded[0]!.id}`, `after=${seeded[4]!.id}`]) {
    const response = await get(app, cookie, `/rooms/${hq}/messages?${query}`)
    assert.equal(response.statusCode, 204, query)
    assert.equal(response.body, '')
  }
})

test('an anchor message from another room answers 404, even one in a room you are in', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, hq, users.jason.id, 5)
  const [pets] = await seed(app, rooms.pets.id, users.jason.id, 1, 'pets')
  const [secret] = await seed(app, rooms.designers.id, users.jason.id, 1, 'secret')
  const cookie = await signIn(app, 'kevin')
  for (const query of [`before=${pets!.id}`, `after=${pets!.id}`, `before=${secret!.id}`, `after=${secret!.id}`]) {
    const response = await get(app, cookie, `/rooms/${hq}/messages?${query}`)
    assert.equal(response.statusCode, 404, query)
    assert.ok(!response.body.includes('secret 1'))
  }
})

test('a non-numeric, empty, negative or oversized anchor answers 404, never 500', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, hq, users.jason.id, 5)
  const cookie = await signIn(app, 'kevin')
  const anchors = ['abc', '', '-1', '0', '1.5', '1e3', '0x10', '99999999999999999999999', '%00', "1'%20OR%201=1"]
  for (const anchor of anchors) {
    for (const key of ['before', 'after']) {
      const response = await get(app, cookie, `/rooms/${hq}/messages?${key}=${anchor}`)
      assert.equal(response.statusCode, 404, `${key}=${anchor}`)
    }
  }
  for (const query of ['before[]=1', 'before[a]=1', 'before=1&before=2']) {
    const response = await get(app, cookie, `/rooms/${hq}/messages?${query}`)
    assert.ok(response.statusCode < 500, `${query} → ${response.statusCode}`)
  }
})

test('history of a room you are not in answers 404', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, rooms.watercooler.id, users.jason.id, 5, 'cooler')
  const response = await get(app, await signIn(app, 'jz'), `/rooms/${rooms.watercooler.id}/messages?before=${seeded[4]!.id}`)
  assert.equal(response.statusCode, 404)
  assert.ok(!response.body.includes('cooler 1'))
})

// ---------------------------------------------------------------------------------------------
// Showing and editing

test('GET a message in your room renders it alone, and 404 for rooms you are not in', async (t) => {
  const { app } = await buildTestApp(t)
  const [mine] = await seed(app, hq, users.jz.id, 1, 'showme')
  const [secret] = await seed(app, rooms.watercooler.id, users.jason.id, 1, 'secret')
  const ok = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/messages/${mine!.id}`)
  assert.equal(ok.statusCode, 200)
  assert.deepEqual(messageIdsInDivs(ok.body), [mine!.id])
  const jz = await signIn(app, 'jz')
  assert.equal((await get(app, jz, `/rooms/${rooms.watercooler.id}/messages/${secret!.id}`)).statusCode, 404)
  assert.equal((await get(app, jz, `/rooms/${hq}/messages/${secret!.id}`)).statusCode, 404, 'a message addressed through the wrong room')
})

test('the edit form is shown to the creator and to administrators, 403 to other members', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jz.id, 1, 'editable')
  const url = `/rooms/${hq}/messages/${message!.id}/edit`
  for (const name of ['jz', 'david', 'jason'] as const) {
    const response = await get(app, await signIn(app, name), url)
    assert.equal(response.statusCode, 200, name)
    assert.match(response.body, new RegExp(`<turbo-frame id="edit_message_${message!.client_message_id}">`))
    assert.match(response.body, new RegExp(`action="/rooms/${hq}/messages/${message!.id}"`))
    assert.match(response.body, /name="_method" value="patch"/)
    assert.ok(response.body.includes('editable 1'))
  }
  const kevin = await get(app, await signIn(app, 'kevin'), url)
  assert.equal(kevin.statusCode, 403)
  assert.ok(!kevin.body.includes('name="_method" value="patch"'))
})

test('the edit form keeps the author, the time and the boosts in view, and asks in the page before deleting', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jz.id, 1, 'kept')
  await send(app, await signIn(app, 'kevin'), 'POST', `/messages/${message!.id}/boosts`, { 'boost[content]': '🎉' })
  const response = await get(app, await signIn(app, 'jz'), `/rooms/${hq}/messages/${message!.id}/edit`)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, new RegExp(`<strong>${users.jz.name}</strong>`))
  assert.match(response.body, /<time class="message__timestamp" datetime="[^"]+"/)
  assert.match(response.body, /class="boost[ "][^>]*>[\s\S]*🎉/)
  assert.doesNotMatch(response.body, /data-turbo-confirm/, 'no browser confirm()')
  assert.match(response.body, /<form id="delete_confirmation_\d+"[^>]*hidden[^>]*>[\s\S]*name="_method" value="delete"[\s\S]*Delete message/)
})

test('the edit form carries the stored body HTML-escaped in the editor value', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  await post(app, cookie, hq, '<p class="x">a "quoted" &amp; <strong>bold</strong> word</p>', 'escape1')
  const message = messageByClientId(app, 'escape1')!
  const response = await get(app, cookie, `/rooms/${hq}/messages/${message.id}/edit`)
  const editor = /<lexxy-editor [^>]*>/.exec(response.body)![0]
  const stored = richText(app, message.id)!.body
  const escaped = stored.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
  assert.ok(editor.includes(`value="${escaped}"`), editor)
  assert.doesNotMatch(editor, /<strong>/)
})

test('the edit form of a message in a room you are not in answers 404, even to an administrator', async (t) => {
  const { app } = await buildTestApp(t)
  await exec(app, 'DELETE FROM memberships WHERE room_id = ? AND user_id = ?', rooms.designers.id, users.david.id)
  const [message] = await seed(app, rooms.designers.id, users.jz.id, 1, 'secret')
  const url = `/rooms/${rooms.designers.id}/messages/${message!.id}/edit`
  assert.equal((await get(app, await signIn(app, 'kevin'), url)).statusCode, 404)
  assert.equal((await get(app, await signIn(app, 'david'), url)).statusCode, 404)
})

test('PATCH by the creator revises the body, the rich text and the search row, and moves updated_at', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  await post(app, cookie, hq, 'original wording', 'rev1')
  const before = messageByClientId(app, 'rev1')!
  const roomBefore = value<string>(app, 'SELECT updated_at FROM rooms WHERE id = ?', hq)!
  await sleep(2)
  const response = await send(app, cookie, 'PATCH', `/rooms/${hq}/messages/${before.id}`, { 'message[body]': 'revised phrasing' })
  assert.ok([302, 303].includes(response.statusCode), String(response.statusCode))
  assert.equal(response.headers.location, `/rooms/${hq}/messages/${before.id}`)
  const after = messageByClientId(app, 'rev1')!
  assert.ok(after.updated_at > before.updated_at)
  assert.equal(after.created_at, before.created_at)
  assert.ok(value<string>(app, 'SELECT updated_at FROM rooms WHERE id = ?', hq)! > roomBefore, 'the room is touched')
  const body = richText(app, before.id)!.body
  assert.ok(body.includes('revised phrasing'))
  assert.ok(!body.includes('original wording'))
  assert.equal(value<number>(app, "SELECT count(*) FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id = ?", before.id), 1)
  assert.equal(searchBody(app, before.id), 'revised phrasing')
  assert.equal(value(app, "SELECT count(*) FROM message_search_index WHERE message_search_index MATCH 'original'"), 0)
  assert.equal(value(app, "SELECT rowid FROM message_search_index WHERE message_search_index MATCH 'revised'"), before.id)

  const shown = await get(app, cookie, response.headers.location!)
  assert.equal(shown.statusCode, 200)
  assert.ok(shown.body.includes('revised phrasing'))
})

test('an administrator may revise with PUT, or a form POST with _method=patch', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jz.id, 1, 'admin')
  const cookie = await signIn(app, 'david')
  assert.ok([302, 303].includes((await send(app, cookie, 'PUT', `/rooms/${hq}/messages/${message!.id}`, { 'message[body]': 'put wording' })).statusCode))
  assert.equal(searchBody(app, message!.id), 'put wording')
  const viaForm = await send(app, cookie, 'POST', `/rooms/${hq}/messages/${message!.id}`, { _method: 'patch', 'message[body]': 'form wording' })
  assert.ok([302, 303].includes(viaForm.statusCode))
  assert.equal(searchBody(app, message!.id), 'form wording')
})

test('a revision to a blank body is refused with 422 and the message is unchanged', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jz.id, 1, 'keep')
  const response = await send(app, await signIn(app, 'jz'), 'PATCH', `/rooms/${hq}/messages/${message!.id}`, { 'message[body]': '  ' })
  assert.equal(response.statusCode, 422)
  assert.equal(searchBody(app, message!.id), 'keep 1')
})

test('a member who is neither the creator nor an administrator gets 403 for PATCH and DELETE, and nothing changes', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jz.id, 1, 'untouchable')
  const cookie = await signIn(app, 'kevin')
  const url = `/rooms/${hq}/messages/${message!.id}`
  assert.equal((await send(app, cookie, 'PATCH', url, { 'message[body]': 'defaced' })).statusCode, 403)
  assert.equal((await send(app, cookie, 'PUT', url, { 'message[body]': 'defaced' })).statusCode, 403)
  assert.equal((await send(app, cookie, 'POST', url, { _method: 'patch', 'message[body]': 'defaced' })).statusCode, 403)
  assert.equal((await send(app, cookie, 'DELETE', url, {}, TURBO_ACCEPT)).statusCode, 403)
  assert.equal((await send(app, cookie, 'POST', url, { _method: 'delete' }, TURBO_ACCEPT)).statusCode, 403)
  assert.deepEqual(messageByClientId(app, message!.client_message_id), message)
  assert.equal(searchBody(app, message!.id), 'untouchable 1')
  assert.ok(richText(app, message!.id)!.body.includes('untouchable 1'))
})

test('PATCH and DELETE of a message in a room you are not in answer 404', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, rooms.watercooler.id, users.kevin.id, 1, 'cooler')
  const cookie = await signIn(app, 'jz')
  const url = `/rooms/${rooms.watercooler.id}/messages/${message!.id}`
  assert.equal((await send(app, cookie, 'PATCH', url, { 'message[body]': 'defaced' })).statusCode, 404)
  assert.equal((await send(app, cookie, 'DELETE', url, {}, TURBO_ACCEPT)).statusCode, 404)
  assert.equal(searchBody(app, message!.id), 'cooler 1')
})

test('DELETE by the creator removes the message, its rich text, search row and boosts, and answers a turbo-stream remove', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  await post(app, cookie, hq, 'doomed words', 'doomed1')
  await post(app, cookie, hq, 'surviving words', 'keeper1')
  const doomed = messageByClientId(app, 'doomed1')!
  const keeper = messageByClientId(app, 'keeper1')!
  for (const id of [doomed.id, keeper.id]) {
    await send(app, await signIn(app, 'kevin'), 'POST', `/messages/${id}/boosts`, { 'boost[content]': '👍' })
  }
  assert.equal(value(app, 'SELECT count(*) FROM boosts WHERE message_id = ?', doomed.id), 1)

  const response = await send(app, cookie, 'DELETE', `/rooms/${hq}/messages/${doomed.id}`, {}, TURBO_ACCEPT)
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'text/vnd.turbo-stream.html; charset=utf-8')
  assert.equal(response.body.trim(), '<turbo-stream action="remove" target="message_doomed1"></turbo-stream>')
  assert.equal(messageByClientId(app, 'doomed1'), undefined)
  assert.equal(richText(app, doomed.id), undefined)
  assert.equal(searchBody(app, doomed.id), undefined)
  assert.equal(value(app, 'SELECT count(*) FROM boosts WHERE message_id = ?', doomed.id), 0)
  // The other message is untouched.
  assert.ok(messageByClientId(app, 'keeper1'))
  assert.equal(searchBody(app, keeper.id), 'surviving words')
  assert.equal(value(app, 'SELECT count(*) FROM boosts WHERE message_id = ?', keeper.id), 1)
})

test('an administrator may delete anyone’s message with a form POST carrying _method=delete', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jz.id, 1, 'moderated')
  const response = await send(app, await signIn(app, 'jason'), 'POST', `/rooms/${hq}/messages/${message!.id}`, { _method: 'delete' }, TURBO_ACCEPT)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, new RegExp(`<turbo-stream action="remove" target="message_${message!.client_message_id}">`))
  assert.equal(value(app, 'SELECT count(*) FROM messages WHERE id = ?', message!.id), 0)
})

// ---------------------------------------------------------------------------------------------
// Permalinks

test('GET /messages/:id redirects a member to the message in its room', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, rooms.watercooler.id, users.jason.id, 1, 'perma')
  const response = await get(app, await signIn(app, 'kevin'), `/messages/${message!.id}`)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${rooms.watercooler.id}/@${message!.id}`)
})

test('GET /messages/:id answers 404 to someone not in the room, and for unknown or malformed ids', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, rooms.watercooler.id, users.jason.id, 1, 'perma')
  const cookie = await signIn(app, 'jz')
  for (const id of [String(message!.id), '999999', 'abc', '0', '-1', '1e2']) {
    const response = await get(app, cookie, `/messages/${id}`)
    assert.equal(response.statusCode, 404, id)
    assert.equal(response.headers.location, undefined)
  }
})
