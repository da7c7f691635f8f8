import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rooms, users } from '../fixtures.ts'
import { startWebhookApp } from '../support/webhook-app.ts'
import { closedPort, startReceiver } from '../support/webhook-receiver.ts'

// Who hears about a new message, what they are sent, and that posting never waits for them.
// The receivers answer 204, which posts nothing back (replies are in webhooks/replies.test.ts).

test('a message in a direct room is POSTed to its bot as upstream’s JSON', async (t) => {
  const { app, post, setWebhook } = await startWebhookApp(t)
  const bot = await startReceiver(t)
  await setWebhook(users.bender.id, `${bot.url}?secret=1`)
  const { status, messageId } = await post('kevin', rooms.bender_and_kevin.id, 'Good news, everyone')
  assert.equal(status, 200)
  const [request] = await bot.received(1)
  assert.equal(request!.method, 'POST')
  assert.equal(request!.url, '/bot?secret=1')
  assert.equal(request!.headers['content-type'], 'application/json')
  assert.deepEqual(request!.json, {
    user: { id: users.kevin.id, name: users.kevin.name },
    room: { id: rooms.bender_and_kevin.id, name: null, path: `/rooms/${rooms.bender_and_kevin.id}/${users.bender.id}-BenderToken1/messages` },
    message: { id: messageId, body: { html: 'Good news, everyone', plain: 'Good news, everyone' }, path: `/rooms/${rooms.bender_and_kevin.id}/@${messageId}` },
  })
  await app.webhooks.idle()
})

test('in a shared room only the mentioned bots hear, their own mention left out of the plain text', async (t) => {
  const { app, post, addBot, mention } = await startWebhookApp(t)
  const bot = await startReceiver(t)
  await app.store.write((m) => m.webhooks.save(users.bender.id, `${bot.url}/bender`))
  const other = await addBot('Marvin', [rooms.hq.id], `${bot.url}/marvin`)
  await post('david', rooms.hq.id, 'Nobody is mentioned here')
  const html = `<p>${mention(users.bender.id)} deploy, and tell ${mention(users.kevin.id)}</p>`
  const { messageId } = await post('david', rooms.hq.id, html)
  const [request] = await bot.received(1)
  await app.webhooks.idle()
  assert.equal(bot.requests.length, 1, 'Marvin was not mentioned, and the first message mentioned nobody')
  assert.equal(request!.url, '/bot/bender')
  const payload = request!.json as { room: { name: string; path: string }; message: { id: number; body: { html: string; plain: string } } }
  assert.equal(payload.message.id, messageId)
  assert.equal(payload.room.name, 'HQ')
  assert.equal(payload.room.path, `/rooms/${rooms.hq.id}/${users.bender.id}-BenderToken1/messages`)
  assert.match(payload.message.body.html, /<action-text-attachment sgid="[^"]+" content-type="application\/vnd.campfire.mention">/)
  assert.equal(payload.message.body.plain, `deploy, and tell @${users.kevin.name}`)
  assert.ok(other.id > 0)
})

test('the creator, inactive bots, bots outside the room and bots without a webhook hear nothing', async (t) => {
  const { app, post, addBot, mention } = await startWebhookApp(t)
  const bot = await startReceiver(t)
  const outside = await addBot('Outsider', [rooms.watercooler.id], `${bot.url}/outside`)
  const retired = await addBot('Retired', [rooms.hq.id], `${bot.url}/retired`)
  const silent = await addBot('Silent', [rooms.hq.id], null)
  await app.store.write((m) => m.db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(retired.id))
  await app.store.write((m) => m.webhooks.save(users.bender.id, `${bot.url}/bender`))
  await post('david', rooms.hq.id, [outside, retired, silent].map((b) => mention(b.id)).join(' '))
  // Bender posting in his own direct room: the creator is never a recipient.
  const own = await app.inject({ method: 'POST', url: `/rooms/${rooms.bender_and_kevin.id}/${users.bender.id}-BenderToken1/messages`, payload: 'talking to myself', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  assert.equal(own.statusCode, 201)
  await app.webhooks.idle()
  assert.deepEqual(bot.requests.map((r) => r.url), [])
})

test('a bot that mentions another bot triggers the other, through the bot API', async (t) => {
  const { app, addBot, mention } = await startWebhookApp(t)
  const bot = await startReceiver(t)
  const other = await addBot('Marvin', [rooms.hq.id], `${bot.url}/marvin`)
  await app.store.write((m) => m.webhooks.save(users.bender.id, `${bot.url}/bender`))
  const response = await app.inject({
    method: 'POST', url: `/rooms/${rooms.hq.id}/${users.bender.id}-BenderToken1/messages`,
    payload: `${mention(other.id)} ${mention(users.bender.id)} your turn`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  assert.equal(response.statusCode, 201)
  const [request] = await bot.received(1)
  await app.webhooks.idle()
  assert.deepEqual(bot.requests.map((r) => r.url), ['/bot/marvin'], 'Bender mentioned himself too, but never hears his own message')
  assert.deepEqual((request!.json as { user: unknown }).user, { id: users.bender.id, name: users.bender.name })
})

test('a mention whose signature the server did not make triggers nothing', async (t) => {
  const { app, post } = await startWebhookApp(t)
  const bot = await startReceiver(t)
  await app.store.write((m) => m.webhooks.save(users.bender.id, bot.url))
  const forged = Buffer.from(JSON.stringify({ _rails: { data: `gid://campfire/User/${users.bender.id}`, pur: 'attachable' } })).toString('base64')
  await post('jz', rooms.hq.id, `<action-text-attachment sgid="${forged}--0000" content-type="application/vnd.campfire.mention"></action-text-attachment> hi`)
  await app.webhooks.idle()
  assert.equal(bot.requests.length, 0)
})

test('the post is answered while the webhook is still held open by the bot', async (t) => {
  const { app, post, setWebhook } = await startWebhookApp(t, { webhooks: { timeoutMs: 60_000 } })
  const held: (() => void)[] = []
  const bot = await startReceiver(t, (_request, response) => held.push(() => response.writeHead(204).end()))
  await setWebhook(users.bender.id, bot.url)
  const { status } = await post('kevin', rooms.bender_and_kevin.id, 'are you there?')
  assert.equal(status, 200, 'answered before the bot answered (it never does until released)')
  await bot.received(1)
  assert.equal(app.webhooks.running, 1, 'the delivery is still waiting on the bot')
  for (const release of held) release()
  await app.webhooks.idle()
})

test('a webhook to a closed port fails at once, is logged as a warning, and posts nothing', async (t) => {
  const { app, log, post, setWebhook, messagesBy } = await startWebhookApp(t, { webhooks: { timeoutMs: 60_000 } })
  await setWebhook(users.bender.id, `http://127.0.0.1:${await closedPort()}/bot?token=secret`)
  assert.equal((await post('kevin', rooms.bender_and_kevin.id, 'anyone?')).status, 200)
  await app.webhooks.idle()
  assert.deepEqual(messagesBy(users.bender.id, rooms.bender_and_kevin.id), [])
  const warning = log.lines.find((line) => line.msg === 'webhook delivery failed')
  assert.equal(warning?.level, 40)
  assert.match(String(warning?.reason), /ECONNREFUSED/)
  assert.doesNotMatch(JSON.stringify(warning), /secret/, 'the URL’s query is not logged')
  assert.deepEqual(log.errors, [])
})

test('a destination that refused a connection is left alone for a while, then tried again', async (t) => {
  const { app, post, setWebhook } = await startWebhookApp(t, { webhooks: { unreachablePauseMs: 400 } })
  const port = await closedPort()
  await setWebhook(users.bender.id, `http://127.0.0.1:${port}/bot`)
  await post('kevin', rooms.bender_and_kevin.id, 'one')
  await app.webhooks.idle()
  const bot = await startReceiver(t, undefined, port)
  await post('kevin', rooms.bender_and_kevin.id, 'two')
  await app.webhooks.idle()
  assert.equal(bot.requests.length, 0, 'skipped while paused')
  await new Promise((resolve) => setTimeout(resolve, 450))
  await post('kevin', rooms.bender_and_kevin.id, 'three')
  const [request] = await bot.received(1)
  assert.equal((request!.json as { message: { body: { plain: string } } }).message.body.plain, 'three')
  await app.webhooks.idle()
})

test('the queue is bounded: beyond it, deliveries are dropped with a warning', async (t) => {
  const { app, log, post, addBot } = await startWebhookApp(t, { webhooks: { concurrency: 1, maxPending: 2, timeoutMs: 60_000 } })
  const held: (() => void)[] = []
  const bot = await startReceiver(t, (_request, response) => held.push(() => response.writeHead(204).end()))
  for (const name of ['One', 'Two', 'Three', 'Four']) await addBot(name, [rooms.bender_and_kevin.id], bot.url)
  await app.store.write((m) => m.webhooks.save(users.bender.id, bot.url))
  await post('kevin', rooms.bender_and_kevin.id, 'hello, all five of you')
  await bot.received(1)
  assert.deepEqual([app.webhooks.running, app.webhooks.pending, app.webhooks.dropped], [1, 2, 2])
  const warning = log.lines.find((line) => line.msg === 'webhook queue is full; deliveries dropped')
  assert.equal(warning?.level, 40)
  assert.equal(warning?.dropped, 2)
  const release = async () => {
    while (app.webhooks.running + app.webhooks.pending > 0) {
      for (const answer of held.splice(0)) answer()
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  await release()
  assert.equal(bot.requests.length, 3)
})

test('private addresses are reached by default, and refused with CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES=deny', async (t) => {
  const bot = await startReceiver(t)
  for (const [env, expected] of [[{}, 1], [{ CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES: 'deny' }, 0]] as const) {
    const { app, log, post, setWebhook } = await startWebhookApp(t, { env })
    const before = bot.requests.length
    await setWebhook(users.bender.id, bot.url)
    await post('kevin', rooms.bender_and_kevin.id, 'hello')
    await app.webhooks.idle()
    assert.equal(bot.requests.length - before, expected, JSON.stringify(env))
    if (expected === 0) assert.match(String(log.lines.find((line) => line.msg === 'webhook delivery failed')?.reason), /non-public/)
  }
})
