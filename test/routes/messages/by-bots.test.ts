import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { promisify } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { blobPath } from '../../../server/lib/files.ts'
import { postMessage } from '../../../server/models/message/posting.ts'
import type { CreatedMessage } from '../../../server/plugins/message-listeners.ts'
import { postAsBot } from '../../../server/routes/messages/bot-posting.ts'
import { RAW_BODY_LIMIT } from '../../../server/routes/messages/bot-scoped.ts'
import { connect, identifiers, startCableApp } from '../../cable/cable-helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { buildTestApp, inject, signIn } from '../../helper.ts'
import { multipart } from '../../support/multipart.ts'
import { BENDER_KEY, botMessagesUrl, botRequest, CURL_FORM, locationId, messageCount, storedMessage } from './bot-support.ts'
import { seed } from './support.ts'

const run = promisify(execFile)
// A valid 1×1 PNG (a corrupt one would be kept as a plain file, with no preview).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

function listen(app: FastifyInstance): CreatedMessage[] {
  const heard: CreatedMessage[] = []
  app.messageListeners.add((created) => void heard.push(created))
  return heard
}

test('a bot posts the raw body of a form-encoded POST (what curl -d sends): 201, the message Location and an empty body', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'Hello!')
  assert.equal(response.statusCode, 201)
  assert.equal(response.body, '')
  const id = locationId(response)
  assert.equal(response.headers.location, `http://localhost:80/messages/${id}`)
  assert.deepEqual(storedMessage(app, id), { room_id: rooms.pets.id, creator_id: users.bender.id, body: 'Hello!', search: 'Hello!' })
})

test('the Location leads someone in the room to the message (bug 5), and nobody else', async (t) => {
  const { app } = await buildTestApp(t)
  const id = locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'Where am I?'))
  const shown = await inject(app, await signIn(app, 'kevin'), { url: `/messages/${id}` })
  assert.equal(shown.statusCode, 302)
  assert.equal(shown.headers.location, `/rooms/${rooms.pets.id}/@${id}`)
  const page = await inject(app, await signIn(app, 'kevin'), { url: String(shown.headers.location) })
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /Where am I\?/)

  const closed = locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.bender_and_kevin.id), 'Just us'))
  assert.equal((await inject(app, await signIn(app, 'jz'), { url: `/messages/${closed}` })).statusCode, 404)
})

test('form-looking, JSON-looking and untyped bodies are all the message as sent, never parsed', async (t) => {
  const { app } = await buildTestApp(t)
  for (const [payload, headers] of [
    ['message[body]=forged&_method=delete', CURL_FORM],
    ['a=1&b=2', CURL_FORM],
    ['{"message":"json"}', { 'content-type': 'application/json' }],
    ['plain text', { 'content-type': 'text/plain; charset=utf-8' }],
    ['no type at all', {}],
  ] as const) {
    const response = await botRequest(app, 'POST', botMessagesUrl(rooms.hq.id), payload, headers)
    assert.equal(response.statusCode, 201, payload)
    assert.equal(storedMessage(app, locationId(response))?.search, payload)
  }
})

test('UTF-8 bodies are kept as they are; bytes that are not UTF-8 are a 400 and post nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), Buffer.from('Hello 👋 ünïcode!', 'utf8'))
  assert.equal(storedMessage(app, locationId(response))?.search, 'Hello 👋 ünïcode!')
  const before = messageCount(app)
  for (const bytes of [Buffer.from([0xff, 0xfe, 0x41]), Buffer.from([0x48, 0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80])]) {
    assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), bytes)).statusCode, 400)
  }
  assert.equal(messageCount(app), before)
})

test('the body is rich text, sanitised as any message: markup kept, scripts dropped, text escaped', async (t) => {
  const { app } = await buildTestApp(t)
  const bold = storedMessage(app, locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'Deploy <b>done</b> & <script>alert(1)</script>ok')))
  assert.equal(bold?.body, 'Deploy <b>done</b> &amp; ok')
  assert.equal(bold?.search, 'Deploy done & ok')
})

test('an empty or blank body is a 422 and posts nothing', async (t) => {
  const { app } = await buildTestApp(t)
  for (const payload of [undefined, '', '   ', '\n\t \u00a0\u2003']) {
    const response = await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), payload)
    assert.equal(response.statusCode, 422, JSON.stringify(payload))
  }
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), '<div> </div>')).statusCode, 422)
  assert.equal(messageCount(app), 0)
})

test('bodies are bounded: past the byte limit a 413, past the message length a 422, and nothing is posted', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'x'.repeat(RAW_BODY_LIMIT + 1))).statusCode, 413)
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'x'.repeat(100_001))).statusCode, 422)
  assert.equal(messageCount(app), 0)
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'x'.repeat(100_000))).statusCode, 201)
})

test('a multipart attachment is posted as a file message named after the file', async (t) => {
  const { app, config } = await buildTestApp(t)
  const upload = multipart([{ name: 'attachment', filename: 'moon.png', type: 'image/png', data: PNG }], {})
  const response = await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), upload.payload, { 'content-type': upload.headers['content-type']! })
  assert.equal(response.statusCode, 201)
  const id = locationId(response)
  assert.equal(storedMessage(app, id)?.search, 'moon.png')
  const blob = app.store.read((m) => m.db.prepare("SELECT b.key, b.filename, b.content_type, b.byte_size FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id WHERE a.record_type = 'Message' AND a.record_id = ?").get(id)) as { key: string; filename: string; content_type: string; byte_size: number }
  assert.deepEqual({ ...blob, key: undefined }, { key: undefined, filename: 'moon.png', content_type: 'image/png', byte_size: PNG.length })
  assert.ok(existsSync(blobPath(config.filesPath, blob.key)!))
  const [json] = JSON.parse((await botRequest(app, 'GET', botMessagesUrl(rooms.pets.id))).body) as { body: { plain_text: string } }[]
  assert.equal(json!.body.plain_text, 'moon.png')
})

test('a multipart post without an attachment file is a 422; a broken one a 400; a file over the limit a 413', async (t) => {
  const { app } = await buildTestApp(t, { env: { CAMPFIRE_MAX_UPLOAD_MB: '1' } })
  const fieldsOnly = multipart([{ name: 'body', value: 'not a file' }, { name: 'attachment', value: 'nor this' }])
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), fieldsOnly.payload, { 'content-type': fieldsOnly.headers['content-type']! })).statusCode, 422)
  const cut = multipart([{ name: 'attachment', filename: 'a.txt', type: 'text/plain', data: Buffer.from('abc') }])
  const truncated = cut.payload.subarray(0, cut.payload.length - 20)
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), truncated, { 'content-type': cut.headers['content-type']! })).statusCode, 400)
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'x', { 'content-type': 'multipart/form-data' })).statusCode, 400)
  const big = multipart([{ name: 'attachment', filename: 'big.bin', type: 'application/octet-stream', data: Buffer.alloc(1024 * 1024 + 1, 1) }])
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), big.payload, { 'content-type': big.headers['content-type']! })).statusCode, 413)
  assert.equal(messageCount(app), 0)
})

test('bad keys are sent to sign in and change nothing: unknown, wrong token, a person’s id, blank, a deactivated bot’s', async (t) => {
  const { app } = await buildTestApp(t)
  const id = locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'mine'))
  await app.store.write((m) => m.boosts.create(id, users.bender.id, '👍'))
  await app.store.write((m) => {
    const botId = Number(m.db.prepare("INSERT INTO users (name, role, status, bot_token, created_at, updated_at) VALUES ('Gone Bot', 2, 1, 'GoneBotToken', '2026-03-01', '2026-03-01')").run().lastInsertRowid)
    m.memberships.grant(rooms.pets.id, botId)
  })
  const gone = app.store.read((m) => m.db.prepare("SELECT id FROM users WHERE name = 'Gone Bot'").pluck().get()) as number
  const keys = ['invalid-bot-key', `${users.bender.id}-BenderToken2`, `${users.bender.id}-benderToken1`, `${users.bender.id}-BenderToken1x`, `${users.bender.id}-`, `${users.kevin.id}-`, `${users.kevin.id}-BenderToken1`, '-BenderToken1', '0-BenderToken1', `${gone}-GoneBotToken`, 'x'.repeat(500), '%00', '5-Bender%2FToken1']
  const before = messageCount(app)
  for (const key of keys) {
    for (const [method, rest, payload] of [['GET', '', undefined], ['POST', '', 'forged'], ['PATCH', `/${id}`, 'forged'], ['PUT', `/${id}`, 'forged'], ['DELETE', `/${id}`, undefined], ['POST', `/${id}/boosts`, '😈'], ['DELETE', `/${id}/boosts/1`, undefined]] as const) {
      const response = await botRequest(app, method, botMessagesUrl(rooms.pets.id, key, rest), payload)
      assert.equal(response.statusCode, 302, `${method} ${key}${rest}`)
      assert.equal(response.headers.location, '/session/new')
    }
  }
  assert.equal(messageCount(app), before)
  assert.equal(storedMessage(app, id)?.search, 'mine')
  assert.equal(app.store.read((m) => m.boosts.forMessage(id)).length, 1)
})

test('the key is read as upstream reads it: surrounding spaces are stripped', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id, encodeURIComponent(` ${BENDER_KEY} `)), 'spaced')).statusCode, 201)
})

test('a room the bot is not in, or that does not exist, is a 404 for every verb; its pings work', async (t) => {
  const { app } = await buildTestApp(t)
  const [theirs] = await seed(app, rooms.designers.id, users.jz.id, 1)
  for (const roomId of ['4', '999', 'abc', '0', '-1', '1e3']) {
    for (const [method, rest, payload] of [['GET', '', undefined], ['POST', '', 'hello'], ['PATCH', `/${theirs!.id}`, 'x'], ['DELETE', `/${theirs!.id}`, undefined], ['POST', `/${theirs!.id}/boosts`, '👀']] as const) {
      const response = await botRequest(app, method, `/rooms/${roomId}/${BENDER_KEY}/messages${rest}`, payload)
      assert.equal(response.statusCode, 404, `${method} room ${roomId}${rest}`)
    }
  }
  assert.equal(storedMessage(app, theirs!.id)?.search, 'history 1')
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.bender_and_kevin.id), 'Hi Kevin')).statusCode, 201)
})

test('no forgery protection: a post from another site, with a foreign Origin, still goes through; session cookies count for nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const crossSite = { ...CURL_FORM, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }
  const response = await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'from afar', crossSite)
  assert.equal(response.statusCode, 201)
  const david = await signIn(app, 'david')
  const asBender = await inject(app, david, { method: 'POST', url: botMessagesUrl(rooms.pets.id), payload: 'who am I', headers: CURL_FORM })
  assert.equal(storedMessage(app, locationId(asBender))?.creator_id, users.bender.id, 'the key decides who posts')
  const badKey = await inject(app, david, { method: 'POST', url: botMessagesUrl(rooms.pets.id, 'nope-nope'), payload: 'x', headers: CURL_FORM })
  assert.equal(badKey.statusCode, 302, 'a session does not stand in for a key')
})

test('bots get 403 everywhere else: with a working ?bot_key= and with a session of their own', async (t) => {
  const { app } = await buildTestApp(t)
  for (const url of [`/rooms/${rooms.pets.id}/messages?bot_key=${BENDER_KEY}`, `/rooms/${rooms.pets.id}?bot_key=${BENDER_KEY}`, `/account/bots?bot_key=${BENDER_KEY}`, `/searches?bot_key=${BENDER_KEY}`]) {
    assert.equal((await app.inject({ url })).statusCode, 403, url)
  }
  assert.equal((await app.inject({ method: 'POST', url: `/rooms/${rooms.pets.id}/messages?bot_key=${BENDER_KEY}`, payload: 'message[body]=x', headers: CURL_FORM })).statusCode, 403)
  assert.equal((await app.inject({ url: `/rooms/${rooms.pets.id}/messages?bot_key=wrong-key` })).statusCode, 302, 'a key that does not work is no one')
  const token = await app.store.write((m) => m.sessions.start(users.bender.id, '127.0.0.1', 'test'))
  const cookie = `session_token=${app.signing.signCookie('session_token', token)}`
  for (const url of ['/', `/rooms/${rooms.pets.id}`, `/rooms/${rooms.pets.id}/messages`, '/searches', `/users/${users.bender.id}/sidebar`, '/autocompletable/users']) {
    assert.equal((await inject(app, cookie, { url })).statusCode, 403, url)
  }
})

test('the index is the room’s newest 40 messages, oldest first, as upstream’s JSON', async (t) => {
  const { app } = await buildTestApp(t)
  const id = locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'Hello from <b>Bender</b>!'))
  const response = await botRequest(app, 'GET', botMessagesUrl(rooms.pets.id))
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^application\/json; charset=utf-8/)
  assert.equal(response.headers['x-total-count'], '1')
  assert.equal(response.headers.link, undefined)
  const [message] = JSON.parse(response.body) as Record<string, unknown>[]
  const createdAt = app.store.read((m) => m.messages.find(id)!.created_at)
  const avatar = app.helpers.avatarPath({ id: users.bender.id, updated_at: app.store.read((m) => m.users.find(users.bender.id)!.updated_at) })
  assert.deepEqual(message, {
    id,
    created_at: new Date(`${createdAt.replace(' ', 'T').slice(0, 23)}Z`).toISOString(),
    body: { plain_text: 'Hello from Bender!', html: '<div class="trix-content">\n  Hello from <b>Bender</b>!\n</div>\n' },
    creator: { id: users.bender.id, name: 'Bender Bot', role: 'bot', avatar_url: `http://localhost:80${avatar}` },
    room: { id: rooms.pets.id },
    url: `http://localhost:80/rooms/${rooms.pets.id}/messages/${id}`,
  })
  assert.match(String(message!.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
})

test('the index names people by role and mentions by name in the plain text', async (t) => {
  const { app } = await buildTestApp(t)
  const sgid = app.signing.signedGlobalId('User', users.kevin.id, 'attachable')
  await app.store.write((m) => postMessage(m, { roomId: rooms.hq.id, creatorId: users.david.id, clientMessageId: 'mention1', body: `<div>Hi <action-text-attachment sgid="${sgid}" content-type="application/vnd.campfire.mention"></action-text-attachment> there</div>`, plainText: 'Hi @Kevin there' }))
  const [message] = JSON.parse((await botRequest(app, 'GET', botMessagesUrl(rooms.hq.id))).body) as { body: { plain_text: string; html: string }; creator: { role: string } }[]
  assert.equal(message!.creator.role, 'administrator')
  assert.equal(message!.body.plain_text, `Hi @${users.kevin.name} there`)
  assert.match(message!.body.html, new RegExp(`class="mention"[^>]*data-user-id="${users.kevin.id}"`))
})

test('the index pages back with before and forward with after, with X-Total-Count and a Link to the next page', async (t) => {
  const { app } = await buildTestApp(t)
  const rows = await seed(app, rooms.hq.id, users.jason.id, 85)
  const ids = rows.map((row) => row.id)
  const first = await botRequest(app, 'GET', botMessagesUrl(rooms.hq.id))
  assert.equal(first.headers['x-total-count'], '85')
  assert.deepEqual((JSON.parse(first.body) as { id: number }[]).map((m) => m.id), ids.slice(45))
  assert.equal(first.headers.link, `<http://localhost:80${botMessagesUrl(rooms.hq.id)}?before=${ids[45]}>; rel="next"`)

  const second = await botRequest(app, 'GET', /<http:\/\/localhost:80([^>]+)>/.exec(String(first.headers.link))![1]!)
  assert.deepEqual((JSON.parse(second.body) as { id: number }[]).map((m) => m.id), ids.slice(5, 45))
  const third = await botRequest(app, 'GET', /<http:\/\/localhost:80([^>]+)>/.exec(String(second.headers.link))![1]!)
  assert.deepEqual((JSON.parse(third.body) as { id: number }[]).map((m) => m.id), ids.slice(0, 5))
  assert.equal(third.headers.link, undefined)

  const after = await botRequest(app, 'GET', `${botMessagesUrl(rooms.hq.id)}?after=${ids[2]}`)
  assert.deepEqual((JSON.parse(after.body) as { id: number }[]).map((m) => m.id), ids.slice(3, 43))
  assert.equal(after.headers.link, `<http://localhost:80${botMessagesUrl(rooms.hq.id)}?after=${ids[42]}>; rel="next"`)
  const next = await botRequest(app, 'GET', /<http:\/\/localhost:80([^>]+)>/.exec(String(after.headers.link))![1]!)
  assert.deepEqual((JSON.parse(next.body) as { id: number }[]).map((m) => m.id), ids.slice(43, 83))
  const last = await botRequest(app, 'GET', /<http:\/\/localhost:80([^>]+)>/.exec(String(next.headers.link))![1]!)
  assert.deepEqual((JSON.parse(last.body) as { id: number }[]).map((m) => m.id), ids.slice(83))
  assert.equal(last.headers.link, undefined)
})

test('an empty room is an empty list with a count of 0; an anchor outside the room, or not an id, is a 404', async (t) => {
  const { app } = await buildTestApp(t)
  const empty = await botRequest(app, 'GET', botMessagesUrl(rooms.bender_and_kevin.id))
  assert.equal(empty.body, '[]')
  assert.equal(empty.headers['x-total-count'], '0')
  assert.equal(empty.headers.link, undefined)
  const [elsewhere] = await seed(app, rooms.designers.id, users.jz.id, 1)
  for (const query of [`before=${elsewhere!.id}`, `after=${elsewhere!.id}`, 'before=abc', 'after=-1', 'before=99999']) {
    assert.equal((await botRequest(app, 'GET', `${botMessagesUrl(rooms.pets.id)}?${query}`)).statusCode, 404, query)
  }
  assert.equal((await botRequest(app, 'GET', `${botMessagesUrl(rooms.pets.id)}?before=&after=`)).statusCode, 200, 'blank anchors are no anchors')
  assert.equal((await botRequest(app, 'GET', `${botMessagesUrl(rooms.pets.id)}?before[]=1`)).statusCode, 200)
})

test('PATCH and PUT revise the bot’s own message from the raw body and answer its JSON', async (t) => {
  const { app } = await buildTestApp(t)
  const id = locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'Deploying...'))
  const patched = await botRequest(app, 'PATCH', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${id}`), 'Deployed 🚀!')
  assert.equal(patched.statusCode, 200)
  const json = JSON.parse(patched.body) as { id: number; body: { plain_text: string }; creator: { id: number }; url: string }
  assert.deepEqual([json.id, json.body.plain_text, json.creator.id, json.url], [id, 'Deployed 🚀!', users.bender.id, `http://localhost:80/rooms/${rooms.pets.id}/messages/${id}`])
  assert.equal(storedMessage(app, id)?.search, 'Deployed 🚀!')
  assert.equal((await botRequest(app, 'PUT', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${id}`), 'a=b&c=d')).statusCode, 200)
  assert.equal(storedMessage(app, id)?.search, 'a=b&c=d')
})

test('a revision must be text: blank is a 422, bytes that are not UTF-8 a 400, and the message stays', async (t) => {
  const { app } = await buildTestApp(t)
  const id = locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'Keep me'))
  assert.equal((await botRequest(app, 'PATCH', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${id}`), '  ')).statusCode, 422)
  assert.equal((await botRequest(app, 'PATCH', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${id}`))).statusCode, 422)
  assert.equal((await botRequest(app, 'PATCH', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${id}`), Buffer.from([0xc3]))).statusCode, 400)
  assert.equal(storedMessage(app, id)?.search, 'Keep me')
})

test('someone else’s message cannot be revised or deleted (403); one in another room, or none, is a 404', async (t) => {
  const { app } = await buildTestApp(t)
  const [theirs] = await seed(app, rooms.pets.id, users.jz.id, 1)
  const mine = locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.hq.id), 'in HQ'))
  assert.equal((await botRequest(app, 'PATCH', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${theirs!.id}`), 'Hijacked!')).statusCode, 403)
  assert.equal((await botRequest(app, 'PUT', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${theirs!.id}`), 'Hijacked!')).statusCode, 403)
  assert.equal((await botRequest(app, 'DELETE', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${theirs!.id}`))).statusCode, 403)
  assert.equal(storedMessage(app, theirs!.id)?.search, 'history 1')
  for (const rest of [`/${mine}`, '/99999', '/abc']) {
    assert.equal((await botRequest(app, 'PATCH', botMessagesUrl(rooms.pets.id, BENDER_KEY, rest), 'moved?')).statusCode, 404, rest)
    assert.equal((await botRequest(app, 'DELETE', botMessagesUrl(rooms.pets.id, BENDER_KEY, rest))).statusCode, 404, rest)
  }
  assert.equal(storedMessage(app, mine)?.search, 'in HQ')
})

test('DELETE removes the bot’s own message (and its attachment’s file) with a 204', async (t) => {
  const { app, config } = await buildTestApp(t)
  const id = locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'Deploying...'))
  const deleted = await botRequest(app, 'DELETE', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${id}`))
  assert.equal(deleted.statusCode, 204)
  assert.equal(deleted.body, '')
  assert.equal(storedMessage(app, id), undefined)

  const upload = multipart([{ name: 'attachment', filename: 'moon.png', type: 'image/png', data: PNG }])
  const file = locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), upload.payload, { 'content-type': upload.headers['content-type']! }))
  const key = app.store.read((m) => m.db.prepare("SELECT b.key FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id WHERE a.record_id = ? AND a.record_type = 'Message'").pluck().get(file)) as string
  assert.equal((await botRequest(app, 'DELETE', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${file}`))).statusCode, 204)
  assert.equal(existsSync(blobPath(config.filesPath, key)!), false)
})

test('a bot’s message is a message: counted unread for the others, on the room page, and handed to the listeners', async (t) => {
  const { app } = await buildTestApp(t)
  const heard = listen(app)
  const kevin = await signIn(app, 'kevin')
  await inject(app, kevin, { url: `/rooms/${rooms.pets.id}` })
  const id = locationId(await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'Build 42 passed'))
  const unread = (userId: number) => app.store.read((m) => m.memberships.find(rooms.pets.id, userId)!.unread_at)
  assert.notEqual(unread(users.kevin.id), null)
  assert.equal(unread(users.bender.id), null)
  const page = await inject(app, kevin, { url: `/rooms/${rooms.pets.id}` })
  assert.match(page.body, new RegExp(`data-message-id="${id}"[\\s\\S]*Build 42 passed`))
  assert.equal(heard.length, 1)
  assert.deepEqual([heard[0]!.message.id, heard[0]!.creator.id, heard[0]!.room.id, heard[0]!.triggersWebhooks, heard[0]!.origin], [id, users.bender.id, rooms.pets.id, true, 'http://localhost:80'])
})

test('postAsBot without a request posts and broadcasts a reply that tells the listeners not to fire webhooks', async (t) => {
  const { app } = await buildTestApp(t)
  const heard = listen(app)
  const bot = app.store.read((m) => m.users.find(users.bender.id)!)
  const room = app.store.read((m) => m.rooms.find(rooms.bender_and_kevin.id)!)
  const message = await postAsBot(app, bot, room, { text: 'A <i>reply</i>' }, { origin: 'https://chat.example', triggersWebhooks: false })
  assert.equal(storedMessage(app, message.id)?.search, 'A reply')
  assert.deepEqual([heard[0]!.message.id, heard[0]!.triggersWebhooks, heard[0]!.origin], [message.id, false, 'https://chat.example'])
  await assert.rejects(postAsBot(app, bot, room, { text: '   ' }, { origin: 'https://chat.example' }), /needs a body/)
})

test('a bot’s post, edit and deletion reach the people watching the room over a real socket', async (t) => {
  const cable = await startCableApp(t)
  const watcher = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  const messagesId = identifiers.roomMessages(cable.app, 'pets')
  watcher.subscribe(messagesId)
  watcher.subscribe(identifiers.unreads)
  await watcher.confirmed(messagesId)
  await watcher.confirmed(identifiers.unreads)
  const id = locationId(await botRequest(cable.app, 'POST', botMessagesUrl(rooms.pets.id), 'Live from the bot'))
  await watcher.until(() => watcher.messages(messagesId).length === 1 && watcher.messages(identifiers.unreads).length === 1)
  assert.match(String(watcher.messages(messagesId)[0]), new RegExp(`^<turbo-stream action="append" target="messages_[^"]*">[\\s\\S]*data-message-id="${id}"[\\s\\S]*Live from the bot`))
  assert.equal((watcher.messages(identifiers.unreads)[0] as { roomId: number }).roomId, rooms.pets.id)
  await botRequest(cable.app, 'PATCH', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${id}`), 'Edited by the bot')
  await watcher.until(() => watcher.messages(messagesId).length === 2)
  assert.match(String(watcher.messages(messagesId)[1]), /action="replace"[\s\S]*Edited by the bot/)
  await botRequest(cable.app, 'DELETE', botMessagesUrl(rooms.pets.id, BENDER_KEY, `/${id}`))
  await watcher.until(() => watcher.messages(messagesId).length === 3)
  assert.match(String(watcher.messages(messagesId)[2]), /^<turbo-stream action="remove"/)
})

test('a real curl -d process posts to a listening server, and the message is stored and broadcast', async (t) => {
  const cable = await startCableApp(t)
  const watcher = await connect(t, cable, { cookie: await cable.cookie('david') })
  const messagesId = identifiers.roomMessages(cable.app, 'hq')
  watcher.subscribe(messagesId)
  await watcher.confirmed(messagesId)
  const url = `${cable.origin}${botMessagesUrl(rooms.hq.id)}`
  const { stdout } = await run('curl', ['--silent', '--show-error', '--include', '-d', 'Hello!', url])
  assert.match(stdout, /^HTTP\/1\.1 201 Created\r\n/)
  const location = /\r\nlocation: (\S+)\r\n/i.exec(stdout)?.[1]
  assert.match(location ?? '', new RegExp(`^${cable.origin}/messages/\\d+$`))
  const id = Number(location!.split('/').pop())
  assert.deepEqual(storedMessage(cable.app, id), { room_id: rooms.hq.id, creator_id: users.bender.id, body: 'Hello!', search: 'Hello!' })
  await watcher.until(() => watcher.messages(messagesId).length === 1)
  assert.match(String(watcher.messages(messagesId)[0]), /Hello!/)

  const { stdout: json } = await run('curl', ['--silent', '--show-error', url])
  assert.deepEqual((JSON.parse(json) as { id: number }[]).map((m) => m.id), [id])
})
