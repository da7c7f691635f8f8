import { test } from 'node:test'
import assert from 'node:assert/strict'
import { postWebhook, type WebhookRequestOptions } from '../../server/lib/webhook-request.ts'
import { closedPort, startReceiver } from '../support/webhook-receiver.ts'

const options: WebhookRequestOptions = { timeoutMs: 2000, maxBytes: 1024, privateAddresses: 'allow' }

test('the JSON is POSTed and the reply comes back as status, content type and bytes', async (t) => {
  const bot = await startReceiver(t, (_request, response) => response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Hi!'))
  const outcome = await postWebhook(`${bot.url}?token=abc`, '{"hello":"bot"}', options)
  assert.deepEqual(outcome, { kind: 'reply', status: 200, contentType: 'text/plain; charset=utf-8', body: Buffer.from('Hi!') })
  const [request] = bot.requests
  assert.equal(request!.method, 'POST')
  assert.equal(request!.url, '/bot?token=abc')
  assert.equal(request!.headers['content-type'], 'application/json')
  assert.deepEqual(request!.json, { hello: 'bot' })
})

test('a redirect is a reply like any other: it is never followed', async (t) => {
  const elsewhere = await startReceiver(t)
  const bot = await startReceiver(t, (_request, response) => response.writeHead(307, { location: elsewhere.url }).end())
  const outcome = await postWebhook(bot.url, '{}', options)
  assert.equal(outcome.kind === 'reply' && outcome.status, 307)
  assert.equal(elsewhere.requests.length, 0)
})

test('a closed port fails at once, as a failure and not a timeout', async () => {
  const outcome = await postWebhook(`http://127.0.0.1:${await closedPort()}/bot`, '{}', { ...options, timeoutMs: 60_000 })
  assert.equal(outcome.kind, 'failed')
  assert.match(outcome.kind === 'failed' ? outcome.reason : '', /ECONNREFUSED/)
})

test('a bot that takes the request but never answers times out reading', async (t) => {
  const bot = await startReceiver(t, () => {})
  const outcome = await postWebhook(bot.url, '{}', { ...options, timeoutMs: 200 })
  assert.deepEqual(outcome, { kind: 'timeout', phase: 'read' })
  assert.equal(bot.requests.length, 1)
})

test('a reply that starts but never finishes also times out reading', async (t) => {
  const bot = await startReceiver(t, (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).write('partial'))
  assert.deepEqual(await postWebhook(bot.url, '{}', { ...options, timeoutMs: 200 }), { kind: 'timeout', phase: 'read' })
})

test('a host that never resolves times out connecting', async () => {
  const outcome = await postWebhook('http://bot.invalid/hook', '{}', { ...options, timeoutMs: 200, lookup: () => new Promise(() => {}) })
  assert.deepEqual(outcome, { kind: 'timeout', phase: 'connect' })
})

test('a reply over the limit is a failure, whether its length is declared or not', async (t) => {
  const declared = await startReceiver(t, (_request, response) => response.writeHead(200, { 'content-type': 'image/png', 'content-length': '4096' }).end(Buffer.alloc(4096)))
  const chunked = await startReceiver(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'image/png' })
    for (let i = 0; i < 8; i++) response.write(Buffer.alloc(512))
    response.end()
  })
  for (const bot of [declared, chunked]) {
    const outcome = await postWebhook(bot.url, '{}', options)
    assert.equal(outcome.kind, 'failed')
    assert.match(outcome.kind === 'failed' ? outcome.reason : '', /over the 1024-byte limit/)
  }
})

test('with private addresses denied, loopback is refused before any connection, by address or by name', async (t) => {
  const bot = await startReceiver(t, (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('no'))
  for (const url of [bot.url, `http://localhost:${bot.port}/bot`, `http://[::ffff:127.0.0.1]:${bot.port}/bot`]) {
    const outcome = await postWebhook(url, '{}', { ...options, privateAddresses: 'deny' })
    assert.equal(outcome.kind, 'failed', url)
    assert.match(outcome.kind === 'failed' ? outcome.reason : '', /non-public/)
  }
  assert.equal(bot.requests.length, 0)
})

test('a URL that is not http(s) or carries credentials is never requested', async () => {
  for (const url of ['ftp://127.0.0.1/', 'http://user:pw@127.0.0.1:9/', 'nonsense']) {
    const outcome = await postWebhook(url, '{}', options)
    assert.equal(outcome.kind, 'failed', url)
  }
})

test('an aborted delivery stops at once', async (t) => {
  const bot = await startReceiver(t, () => {})
  const controller = new AbortController()
  const delivery = postWebhook(bot.url, '{}', { ...options, timeoutMs: 60_000, signal: controller.signal })
  await bot.received(1)
  controller.abort()
  assert.equal((await delivery).kind, 'failed')
})
