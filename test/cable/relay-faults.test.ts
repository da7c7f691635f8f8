import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { createClient } from '@redis/client'
import { rooms } from '../fixtures.ts'
import { form, inject } from '../helper.ts'
import { RedisServer } from '../support/redis-server.ts'
import { connect, eventually, identifiers, type CableApp, type CableClient } from './cable-helper.ts'
import { startRelayedApps } from './relay-helper.ts'

const turboHeaders = { accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml' }

async function watch(t: Parameters<typeof connect>[0], cable: CableApp, identifier: string): Promise<CableClient> {
  const client = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  client.subscribe(identifier)
  await client.confirmed(identifier)
  return client
}

function post(cable: CableApp, cookie: string, body: string, clientMessageId: string) {
  const request = form({ 'message[body]': body, 'message[client_message_id]': clientMessageId })
  return inject(cable.app, cookie, { method: 'POST', url: `/rooms/${rooms.hq.id}/messages`, payload: request.payload, headers: { ...request.headers, ...turboHeaders } })
}

// Every line each app logs, parsed.
function logs(): { lines: Record<string, unknown>[]; logger: (index: number) => { level: string; stream: Writable } } {
  const lines: Record<string, unknown>[] = []
  const stream = () =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>)
        done()
      },
    })
  return { lines, logger: () => ({ level: 'info', stream: stream() }) }
}

test('while Redis is down posts are still stored and answered, and afterwards broadcasts cross again and sockets catch up', async (t) => {
  const redis = await RedisServer.start(t)
  const log = logs()
  const [a, b] = await startRelayedApps(t, redis.url, { logger: log.logger })
  const cookie = await a!.cookie('david')
  const identifier = identifiers.roomMessages(b!.app, 'hq')
  const before = await watch(t, b!, identifier)

  await redis.stop('SIGKILL')
  await eventually(() => !a!.app.redis!.isUp && !b!.app.redis!.isListening, 10_000, 'both apps to notice')
  const during = await post(a!, cookie, 'posted while Redis is down', 'down1')
  assert.equal(during.statusCode, 200)
  assert.ok(a!.app.store.read((m) => m.db.prepare("SELECT 1 FROM messages WHERE client_message_id = 'down1'").get()), 'the message is stored')
  await eventually(() => a!.app.redis!.dropped > 0, 5000, 'its broadcast to be dropped, not queued')

  await redis.resume()
  // B's socket could not hear what A sent meanwhile, so it is told to reconnect (and refresh).
  await before.closed(15_000)
  assert.deepEqual(before.frames.find((f) => f.type === 'disconnect'), { type: 'disconnect', reason: 'server_restart', reconnect: true })
  assert.deepEqual(before.messages(identifier), [])

  const after = await watch(t, b!, identifier)
  // A's publishing connection may come back a little after B's listening one.
  for (let n = 1; after.messages(identifier).length === 0; n++) {
    assert.ok(n <= 100, 'a post on A reaches B again')
    assert.equal((await post(a!, cookie, `after ${n}`, `up${n}`)).statusCode, 200)
    await after.until(() => after.messages(identifier).length > 0, 200).catch(() => {})
  }
  assert.match(after.messages(identifier)[0] as string, /after \d+/)
  assert.ok(log.lines.some((line) => line.msg === 'redis: connection failed, retrying'), 'the outage is logged')
  assert.ok(log.lines.some((line) => line.msg === 'redis: connected again'), 'and so is the return')
})

test('garbage on the broadcast channel is ignored and logged, and what follows still arrives', async (t) => {
  const redis = await RedisServer.start(t)
  const log = logs()
  const [, b] = await startRelayedApps(t, redis.url, { logger: log.logger })
  const identifier = identifiers.turbo(b!.app, 'rooms')
  const client = await watch(t, b!, identifier)
  const channel = b!.app.redis!.name('broadcasts')
  assert.equal(channel, 'campfire_production:campfire-ts:broadcasts', "upstream's channel prefix, then ours")
  const intruder = createClient({ url: redis.url }).on('error', () => {})
  await intruder.connect()
  t.after(() => intruder.destroy())

  const garbage = [
    'not json',
    '{"o":"x"}',
    '["x"]',
    '["x","b","rooms"]',
    '["x","b","rooms"]\nnot json',
    '["x","b",42]\n"body"',
    '["x","m",["rooms",7]]\n"body"',
    '["x","m","rooms"]\n"body"',
    '["x","d",4,false,"because"]',
    '["x","d",-4,false,"remote"]',
    '["x","d",4,false,"remote"]\n"body"',
    '["x","u",4]',
    '["x","q",4,3]',
    `["x","b","rooms"]\n"${'x'.repeat(17 * 1024 * 1024)}"`,
    '',
    Buffer.from([0xff, 0xfe, 0x0a, 0x22, 0x22]),
  ]
  for (const message of garbage) await intruder.publish(channel, message)
  await intruder.publish(channel, '["x","b","rooms"]\n"fine"')

  await client.until(() => client.messages(identifier).length > 0)
  assert.deepEqual(client.messages(identifier), ['fine'])
  assert.equal(client.closeCode, null, 'Kevin (user 4) was not disconnected by a malformed control')
  const ignored = log.lines.filter((line) => line.msg === 'cable relay: ignored a message on the channel')
  assert.ok(ignored.length >= 1)
  assert.ok(ignored.every((line) => String(line.start).length <= 120), 'the log quotes only the start of a message')
})

test('a message bearing this process’s origin that it did not send is decoded and checked like any other', async (t) => {
  const redis = await RedisServer.start(t)
  const log = logs()
  const [only] = await startRelayedApps(t, redis.url, { count: 1, logger: log.logger })
  const identifier = identifiers.turbo(only!.app, 'rooms')
  const client = await watch(t, only!, identifier)
  const channel = only!.app.redis!.name('broadcasts')
  const listener = createClient({ url: redis.url }).on('error', () => {})
  const intruder = createClient({ url: redis.url }).on('error', () => {})
  await Promise.all([listener.connect(), intruder.connect()])
  t.after(() => Promise.all([listener.destroy(), intruder.destroy()]))
  const overheard: string[] = []
  await listener.subscribe(channel, (message) => overheard.push(message))

  for (const n of [1, 2, 3]) only!.app.cable.broadcast('rooms', `own ${n}`)
  await client.until(() => client.messages(identifier).length === 3)
  await eventually(() => overheard.length > 0)
  const origin = /^\["([^"]+)",/.exec(overheard[0]!)![1]!

  await intruder.publish(channel, `["${origin}","b","rooms"]\nnot json`)
  await intruder.publish(channel, `["${origin}","b","rooms"]\n"forged with its origin"`)
  for (const n of [4, 5]) only!.app.cable.broadcast('rooms', `own ${n}`)

  await client.until(() => client.messages(identifier).length === 6)
  assert.deepEqual(client.messages(identifier), ['own 1', 'own 2', 'own 3', 'forged with its origin', 'own 4', 'own 5'], 'each once, in the one order Redis gave')
  assert.ok(log.lines.some((line) => line.msg === 'cable relay: ignored a message on the channel' && line.why === 'malformed'), 'the malformed one with its origin was refused')
})
