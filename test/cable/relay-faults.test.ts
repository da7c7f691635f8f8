import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { createClient } from '@redis/client'
import type { CableRelay } from '../../server/cable/relay.ts'
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

test('garbage on the broadcast channels is ignored and logged, and what follows still arrives', async (t) => {
  const redis = await RedisServer.start(t)
  const log = logs()
  const [, b] = await startRelayedApps(t, redis.url, { logger: log.logger })
  const identifier = identifiers.turbo(b!.app, 'rooms')
  const client = await watch(t, b!, identifier)
  assert.equal(b!.app.redis!.name('broadcasts'), 'campfire_production:campfire-ts:broadcasts', "upstream's channel prefix, then ours")
  // Another process's channel, as the relay names them: the prefix, then a 12-digit origin.
  const channel = `campfire_production:campfire-ts:broadcasts:${otherOrigin(b!)}`
  const intruder = createClient({ url: redis.url }).on('error', () => {})
  await intruder.connect()
  t.after(() => intruder.destroy())

  const garbage = [
    'not json',
    '{"o":"x"}',
    '["s"]',
    '["s","rooms"]\nfine',
    '["s","rooms",5]\nfine but longer than it says',
    '["s","rooms",50]\ntoo short',
    '["s","rooms",-1]\n',
    '["s",42,4]\nbody',
    '["s",["rooms",7],4]\nbody',
    '["j","rooms"]\nnot json',
    '["j","rooms"]',
    '["j",{"rooms":1}]\n{}',
    '["d",4,false,"because"]',
    '["d",-4,false,"remote"]',
    '["d",4,false,"remote"]\n"body"',
    '["u",4]',
    '["q",4,3]',
    '["n",2,1.5,true]',
    '["n",2,1.5,"yes",[4]]',
    '["n",2,"soon",true,[4]]',
    '["n",2,1.5,true,[4,-1]]',
    '["n",0,1.5,false,[4]]',
    '["r",4]',
    '["r",4,"hq"]',
    `["s","rooms",${17 * 1024 * 1024}]\n${'x'.repeat(17 * 1024 * 1024)}`,
    '',
    Buffer.from([0xff, 0xfe, 0x0a, 0x22, 0x22]),
  ]
  for (const message of garbage) await intruder.publish(channel, message)
  await intruder.publish(channel, '["s","rooms",4]\nfine')

  await client.until(() => client.messages(identifier).length > 0)
  assert.deepEqual(client.messages(identifier), ['fine'])
  assert.equal(client.closeCode, null, 'Kevin (user 4) was not disconnected by a malformed control')
  const ignored = log.lines.filter((line) => line.msg === 'cable relay: ignored a message on the channel')
  assert.ok(ignored.length >= 1)
  assert.ok(ignored.every((line) => String(line.start).length <= 120), 'the log quotes only the start of a message')
})

test('a process hears every other process’s channel once and never its own', async (t) => {
  const redis = await RedisServer.start(t)
  const [only] = await startRelayedApps(t, redis.url, { count: 1 })
  const identifier = identifiers.turbo(only!.app, 'rooms')
  const client = await watch(t, only!, identifier)
  const own = relayOf(only!).origin
  const intruder = createClient({ url: redis.url }).on('error', () => {})
  await intruder.connect()
  t.after(() => intruder.destroy())
  const send = (origin: string, text: string) => intruder.publish(`campfire_production:campfire-ts:broadcasts:${origin}`, `["s","rooms",${text.length}]\n${text}`)

  // An origin that differs from this process's at each of its 12 digits in turn, then its own
  // (its own messages are delivered when sent, not when heard), then names that are no origin.
  const others = [...own].map((digit, i) => `${own.slice(0, i)}${digit === '0' ? '1' : '0'}${own.slice(i + 1)}`)
  for (const [i, origin] of others.entries()) await send(origin, `other ${i}`)
  await send(own, 'forged on its own channel')
  for (const name of [own.slice(1), `${own}0`, '*', '']) await send(name, `not an origin: ${name}`)
  await send(others[0]!, 'last')

  await client.until(() => client.messages(identifier).includes('last'))
  assert.deepEqual(client.messages(identifier), [...others.map((_, i) => `other ${i}`), 'last'])
})

function relayOf(cable: CableApp): CableRelay {
  return cable.app.cable.relay!
}

function otherOrigin(cable: CableApp): string {
  const own = relayOf(cable).origin
  return own.startsWith('0') ? `1${own.slice(1)}` : `0${own.slice(1)}`
}

test('while Redis stalls without closing, broadcasts still reach the sockets here, in order, after a bounded wait', async (t) => {
  const redis = await RedisServer.start(t)
  const [only] = await startRelayedApps(t, redis.url, { count: 1 })
  const identifier = identifiers.turbo(only!.app, 'rooms')
  const client = await watch(t, only!, identifier)
  only!.app.cable.broadcast('rooms', 'before')
  await client.until(() => client.messages(identifier).length === 1)

  // Stopped, not killed: the connections stay open and nothing is answered.
  const pid = redis.pid!
  process.kill(pid, 'SIGSTOP')
  try {
    const stalledAt = performance.now()
    for (const n of [1, 2, 3]) only!.app.cable.broadcast('rooms', `stalled ${n}`)
    await client.until(() => client.messages(identifier).length === 4, 3000)
    assert.deepEqual(client.messages(identifier), ['before', 'stalled 1', 'stalled 2', 'stalled 3'])
    assert.ok(performance.now() - stalledAt < 2000, 'delivered within the publish wait, not when Redis comes back')
  } finally {
    process.kill(pid, 'SIGCONT')
  }
})
