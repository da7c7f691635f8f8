import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { blobPath } from '../../../server/lib/files.ts'
import { MAX_TEXT_REPLY_LENGTH, planReply, timeoutNotice } from '../../../server/plugins/webhooks/replies.ts'
import type { WebhookOutcome } from '../../../server/lib/webhook-request.ts'
import type { WebhookOptions } from '../../../server/plugins/webhooks.ts'
import { rooms, users } from '../../fixtures.ts'
import { connect, identifiers } from '../../cable/cable-helper.ts'
import { startWebhookApp } from '../../support/webhook-app.ts'
import { startReceiver, type Answer } from '../../support/webhook-receiver.ts'

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
const direct = rooms.bender_and_kevin.id

// Kevin writes to Bender in their direct room while watching it on a real socket; Bender's
// webhook answers as the test says. Resolves once every delivery has finished.
async function conversation(t: TestContext, answer: Answer, webhooks: WebhookOptions = {}) {
  const setup = await startWebhookApp(t, { webhooks: { timeoutMs: 2000, ...webhooks } })
  const bot = await startReceiver(t, answer)
  await setup.setWebhook(users.bender.id, bot.url)
  const watcher = await connect(t, setup.cable, { cookie: await setup.cable.cookie('kevin') })
  const stream = identifiers.roomMessages(setup.app, 'bender_and_kevin')
  watcher.subscribe(stream)
  await watcher.confirmed(stream)
  assert.equal((await setup.post('kevin', direct, 'Bender?')).status, 200)
  await bot.received(1)
  await setup.app.webhooks.idle()
  const broadcasts = () => watcher.messages(stream) as string[]
  return { ...setup, bot, watcher, broadcasts, replies: setup.messagesBy(users.bender.id, direct) }
}

test('a 200 text/plain reply is posted as Bender’s message, as text, and broadcast to the room', async (t) => {
  const { replies, watcher, broadcasts } = await conversation(t, (_r, res) => res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Bite my <b>shiny</b> metal app\nbye'))
  assert.equal(replies.length, 1)
  assert.equal(replies[0]!.body, 'Bite my &lt;b&gt;shiny&lt;/b&gt; metal app<br>bye')
  await watcher.until(() => broadcasts().length === 2)
  assert.match(broadcasts()[1]!, new RegExp(`data-message-id="${replies[0]!.id}"[\\s\\S]*Bite my &lt;b&gt;shiny&lt;/b&gt; metal app`))
  assert.match(broadcasts()[1]!, new RegExp(`data-user-id="${users.bender.id}"`))
})

test('a 200 text/html reply is posted as sanitised rich text', async (t) => {
  const { replies } = await conversation(t, (_r, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Deployed <strong>v2</strong></p><script>alert(1)</script><img src=x onerror=alert(1)>'))
  assert.equal(replies.length, 1)
  assert.match(replies[0]!.body!, /<strong>v2<\/strong>/)
  assert.doesNotMatch(replies[0]!.body!, /script|onerror/)
})

test('a 200 image/png reply is posted as attachment.png, its file stored and broadcast', async (t) => {
  const { replies, watcher, broadcasts, app, config } = await conversation(t, (_r, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG))
  assert.equal(replies.length, 1)
  assert.deepEqual({ ...replies[0], id: 0, body: null }, { id: 0, body: null, filename: 'attachment.png', content_type: 'image/png', byte_size: PNG.length })
  const key = app.store.read((m) => m.db.prepare("SELECT key FROM active_storage_blobs WHERE filename = 'attachment.png'").pluck().get()) as string
  assert.ok(existsSync(blobPath(config.filesPath, key)!), 'the file is on disk')
  await watcher.until(() => broadcasts().length === 2)
  assert.match(broadcasts()[1]!, /attachment\.png/)
})

test('any other 200 reply with a content type is a file named after Rails’ symbol for the type', async (t) => {
  const { replies } = await conversation(t, (_r, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'))
  assert.deepEqual(replies.map((r) => r.filename), ['attachment.json'])
})

test('a 500 reply posts nothing, even an HTML error page (bug 4), and is logged below error level', async (t) => {
  const { replies, log, broadcasts } = await conversation(t, (_r, res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal Server Error</h1>'))
  assert.deepEqual(replies, [])
  assert.equal(broadcasts().length, 1, 'only Kevin’s message')
  assert.equal(log.lines.find((line) => line.msg === 'webhook answered without success; nothing posted')?.status, 500)
  assert.deepEqual(log.errors, [])
})

test('a 200 reply without a content type posts nothing', async (t) => {
  const { replies } = await conversation(t, (_r, res) => res.writeHead(200).end('something'))
  assert.deepEqual(replies, [])
})

test('a bot slower than the timeout gets "Failed to respond within …" posted in its name', async (t) => {
  const { replies } = await conversation(t, (_r, res) => void setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('too late'), 1500), { timeoutMs: 300 })
  assert.deepEqual(replies.map((r) => r.body), ['Failed to respond within 0.3 seconds'])
  assert.equal(timeoutNotice(7000), 'Failed to respond within 7 seconds', 'upstream’s words at the default 7 s')
})

test('a reply over the limit posts nothing', async (t) => {
  const { replies, log } = await conversation(t, (_r, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([PNG, Buffer.alloc(5000)])), { maxReplyBytes: 1000 })
  assert.deepEqual(replies, [])
  assert.match(String(log.lines.find((line) => line.msg === 'webhook delivery failed')?.reason), /limit/)
})

// Were replies to trigger webhooks, the two bots of the direct room would answer each other
// for ever: the timeout turns that into a failure.
test('replies never trigger webhooks, not even one mentioning another bot', { timeout: 30_000 }, async (t) => {
  const { app, post, addBot, mention, messagesBy } = await startWebhookApp(t)
  const bot = await startReceiver(t, (request, res) => {
    if (request.url === '/bot/marvin') return res.writeHead(200, { 'content-type': 'text/plain' }).end('Marvin here')
    res.writeHead(200, { 'content-type': 'text/html' }).end(`Over to you, ${mention(marvin.id)}`)
  })
  const marvin = await addBot('Marvin', [rooms.hq.id, direct], `${bot.url}/marvin`)
  await app.store.write((m) => m.webhooks.save(users.bender.id, `${bot.url}/bender`))
  await post('david', rooms.hq.id, `${mention(users.bender.id)} status?`)
  await post('kevin', direct, 'hello both')
  await bot.received(3)
  await app.webhooks.idle()
  await new Promise((resolve) => setTimeout(resolve, 100))
  await app.webhooks.idle()
  assert.deepEqual(bot.requests.map((r) => r.url).sort(), ['/bot/bender', '/bot/bender', '/bot/marvin'])
  assert.equal(messagesBy(users.bender.id, rooms.hq.id).length, 1)
  assert.match(messagesBy(users.bender.id, rooms.hq.id)[0]!.body!, /action-text-attachment/, 'the reply does mention Marvin')
  assert.deepEqual(messagesBy(marvin.id, rooms.hq.id), [])
  assert.equal(messagesBy(marvin.id, direct).length, 1)
})

test('a bot that left the room while its webhook ran posts nothing', async (t) => {
  const held: (() => void)[] = []
  const setup = await startWebhookApp(t)
  const bot = await startReceiver(t, (_r, res) => held.push(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('late')))
  await setup.setWebhook(users.bender.id, bot.url)
  await setup.post('kevin', direct, 'still there?')
  await bot.received(1)
  await setup.app.store.write((m) => m.db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(direct, users.bender.id))
  for (const release of held) release()
  await setup.app.webhooks.idle()
  assert.deepEqual(setup.messagesBy(users.bender.id, direct), [])
})

const reply = (status: number, contentType: string | null, body: string | Buffer = 'hi'): WebhookOutcome => ({ kind: 'reply', status, contentType, body: Buffer.from(body) })
const noMentions = () => null

test('a reply’s plan follows its status and content type', () => {
  const plan = (outcome: WebhookOutcome) => planReply(outcome, 'Failed to respond within 7 seconds', noMentions)
  assert.equal(plan(reply(200, 'TEXT/PLAIN; charset=utf-8')).kind, 'text')
  assert.equal(plan(reply(200, 'image/jpeg', PNG)).kind === 'file' && (plan(reply(200, 'image/jpeg', PNG)) as { filename: string }).filename, 'attachment.jpeg')
  assert.equal((plan(reply(200, 'application/pdf; x=y')) as { filename: string }).filename, 'attachment.pdf')
  assert.equal((plan(reply(200, 'application/x-unheard-of')) as { filename: string }).filename, 'attachment', 'a type Rails does not know has no extension')
  for (const status of [201, 204, 301, 404, 500]) assert.equal(plan(reply(status, 'text/plain')).kind, 'none', `status ${status}`)
  assert.equal(plan(reply(200, 'text/plain', '   ')).kind, 'none', 'a blank text')
  assert.equal(plan(reply(200, 'application/json', '')).kind, 'none', 'an empty file')
  assert.equal(plan(reply(200, 'text/plain', 'x'.repeat(MAX_TEXT_REPLY_LENGTH + 1))).kind, 'none', 'longer than a message may be')
  assert.deepEqual(plan({ kind: 'timeout', phase: 'connect' }), { kind: 'text', html: 'Failed to respond within 7 seconds', plainText: 'Failed to respond within 7 seconds' })
  assert.equal(plan({ kind: 'failed', reason: 'ECONNREFUSED' }).kind, 'none')
})
