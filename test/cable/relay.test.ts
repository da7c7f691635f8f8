import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rooms, users } from '../fixtures.ts'
import { buildTestApp, form, inject } from '../helper.ts'
import { RedisServer } from '../support/redis-server.ts'
import { connect, identifiers, messagesStreamName, type CableApp, type CableClient } from './cable-helper.ts'
import { othersPatterns } from '../../server/cable/relay.ts'
import { startRelayedApps } from './relay-helper.ts'

const turboHeaders = { accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml' }

async function watch(t: Parameters<typeof connect>[0], cable: CableApp, identifier: string, person: 'david' | 'jason' | 'kevin' = 'david'): Promise<CableClient> {
  const client = await connect(t, cable, { cookie: await cable.cookie(person) })
  client.subscribe(identifier)
  await client.confirmed(identifier)
  return client
}

function post(cable: CableApp, cookie: string, roomId: number, body: string, clientMessageId: string) {
  const request = form({ 'message[body]': body, 'message[client_message_id]': clientMessageId })
  return inject(cable.app, cookie, { method: 'POST', url: `/rooms/${roomId}/messages`, payload: request.payload, headers: { ...request.headers, ...turboHeaders } })
}

test('broadcasts on one process reach the subscribers on another, once each and in order', async (t) => {
  const redis = await RedisServer.start(t)
  const [a, b] = await startRelayedApps(t, redis.url)
  const stream = 'rooms'
  const identifier = identifiers.turbo(a!.app, stream)
  const onA = await watch(t, a!, identifier)
  const onB = await watch(t, b!, identifier)

  const sent = Array.from({ length: 50 }, (_, i) => `<turbo-stream action="remove" target="n${i}"></turbo-stream>`)
  for (const html of sent) assert.equal(a!.app.cable.broadcast(stream, html), 1, 'for the one subscriber here')
  await onB.until(() => onB.messages(identifier).length >= sent.length)
  // A hears nothing of its own: by the time B's broadcast reaches A, an echo of A's would have.
  b!.app.cable.broadcast(stream, 'from B')
  await onA.until(() => onA.messages(identifier).includes('from B'))
  await onB.until(() => onB.messages(identifier).includes('from B'))

  assert.deepEqual(onA.messages(identifier), [...sent, 'from B'])
  assert.deepEqual(onB.messages(identifier), [...sent, 'from B'])
})

test('a message posted on one process reaches the room and every member’s unread notice on the other', async (t) => {
  const redis = await RedisServer.start(t)
  const [a, b] = await startRelayedApps(t, redis.url)
  const messagesId = identifiers.roomMessages(b!.app, 'watercooler')
  const watcher = await watch(t, b!, messagesId, 'kevin')
  watcher.subscribe(identifiers.unreads)
  await watcher.confirmed(identifiers.unreads)

  const response = await post(a!, await a!.cookie('david'), rooms.watercooler.id, 'across workers', 'relay1')
  assert.equal(response.statusCode, 200)
  await watcher.until(() => watcher.messages(messagesId).length === 1 && watcher.messages(identifiers.unreads).length === 1)
  assert.equal(watcher.messages(messagesId)[0], response.body, 'the other process sends the very HTML the poster got')
  assert.equal((watcher.messages(identifiers.unreads)[0] as { roomId: number }).roomId, rooms.watercooler.id)
})

test('an open room’s unread notice reaches a socket on another process once, until it is read there or anywhere', async (t) => {
  const redis = await RedisServer.start(t)
  const [a, b] = await startRelayedApps(t, redis.url)
  const unread = await watch(t, b!, identifiers.unreads, 'kevin')
  const marker = (at: number) => a!.app.cable.unreadRoom(rooms.bender_and_kevin, [users.kevin.id], at)
  const notices = () => (unread.messages(identifiers.unreads) as { roomId: number; at: number }[]).map((notice) => notice.at)
  const members = [users.kevin.id, users.david.id]
  for (const at of [1, 2, 3]) a!.app.cable.unreadRoom(rooms.hq, members, at)
  marker(10)
  await unread.until(() => notices().includes(10))
  assert.deepEqual(notices(), [1, 10], 'told once on B, though A sent three')

  // Kevin reads HQ on a socket of A: the socket on B is told again of HQ's next post.
  await watch(t, a!, identifiers.presence('hq'), 'kevin')
  for (const at of [4, 5]) a!.app.cable.unreadRoom(rooms.hq, members, at)
  marker(11)
  await unread.until(() => notices().includes(11))
  assert.deepEqual(notices(), [1, 10, 4, 11])
  // A Ping's notices all cross.
  for (const at of [6, 7]) a!.app.cable.unreadRoom(rooms.bender_and_kevin, [users.kevin.id], at)
  await unread.until(() => notices().includes(7))
  assert.deepEqual(notices(), [1, 10, 4, 11, 6, 7])
})

test('typing and reading on one process are heard on the other', async (t) => {
  const redis = await RedisServer.start(t)
  const [a, b] = await startRelayedApps(t, redis.url)
  const typing = identifiers.typing('hq')
  const listener = await watch(t, b!, typing, 'jason')
  const reads = await watch(t, b!, identifiers.reads, 'david')

  const typist = await watch(t, a!, typing, 'david')
  typist.perform(typing, { action: 'start' })
  await listener.until(() => listener.messages(typing).length === 1)
  assert.deepEqual(listener.messages(typing)[0], { action: 'start', user: { id: users.david.id, name: users.david.name } })

  // Becoming present in a room on A reads it, which David's other tabs (on B) hear.
  await watch(t, a!, identifiers.presence('hq'), 'david')
  await reads.until(() => reads.messages(identifiers.reads).length === 1)
  assert.deepEqual(reads.messages(identifiers.reads)[0], { room_id: rooms.hq.id })
})

test('disconnecting a person on one process closes their sockets on the other', async (t) => {
  const redis = await RedisServer.start(t)
  const [a, b] = await startRelayedApps(t, redis.url)
  const jasonOnB = await connect(t, b!, { cookie: await b!.cookie('jason') })
  const kevinOnB = await watch(t, b!, identifiers.turbo(b!.app, 'rooms'), 'kevin')

  assert.equal(a!.app.cable.disconnectUser(users.jason.id, { reconnect: false }), 0, 'Jason has no socket on A')
  await jasonOnB.closed()
  assert.deepEqual(jasonOnB.frames.find((f) => f.type === 'disconnect'), { type: 'disconnect', reason: 'remote', reconnect: false })
  // Kevin's socket on B stays: a broadcast after the disconnect still reaches it.
  a!.app.cable.broadcast('rooms', 'after')
  await kevinOnB.until(() => kevinOnB.messages().includes('after'))
  assert.equal(kevinOnB.closeCode, null)
})

test('deactivating a person on one process closes their sockets on the other', async (t) => {
  const redis = await RedisServer.start(t)
  const [a, b] = await startRelayedApps(t, redis.url)
  const kevinOnB = await connect(t, b!, { cookie: await b!.cookie('kevin') })

  const request = form({ _method: 'delete' })
  const response = await inject(a!.app, await a!.cookie('david'), { method: 'POST', url: `/account/users/${users.kevin.id}`, ...request })
  assert.equal(response.statusCode, 302)
  await kevinOnB.closed()
  assert.deepEqual(kevinOnB.frames.find((f) => f.type === 'disconnect'), { type: 'disconnect', reason: 'remote', reconnect: false })
})

test('a person’s subscriptions about a room are dropped on every process', async (t) => {
  const redis = await RedisServer.start(t)
  const [a, b] = await startRelayedApps(t, redis.url)
  const presence = identifiers.presence('watercooler')
  const kevinOnB = await watch(t, b!, presence, 'kevin')

  a!.app.cable.unsubscribeUserFromRoom(users.kevin.id, rooms.watercooler.id)
  await kevinOnB.until(() => kevinOnB.rejections(presence).length === 1)
  assert.equal(kevinOnB.closeCode, null, 'the socket itself stays open')
})

test('one process with REDIS_URL hears its own broadcasts once', async (t) => {
  const redis = await RedisServer.start(t)
  const [only] = await startRelayedApps(t, redis.url, { count: 1 })
  const stream = messagesStreamName('hq')
  const identifier = identifiers.roomMessages(only!.app, 'hq')
  const client = await watch(t, only!, identifier)
  for (const n of [1, 2, 3]) only!.app.cable.broadcast(stream, `m${n}`)
  // A second process's broadcast is relayed after any echo of the first three would be (each
  // process publishes on its own channel, over one connection, in order).
  const [other] = await startRelayedApps(t, redis.url, { count: 1 })
  other!.app.cable.broadcast(stream, 'marker')
  await client.until(() => client.messages(identifier).includes('marker'))
  assert.deepEqual(client.messages(identifier), ['m1', 'm2', 'm3', 'marker'])
})

test('without REDIS_URL an app has no link to Redis and broadcasts stay in the process', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal(app.redis, null)
})

test('the patterns for the other processes are one per digit of the origin, with the prefix’s glob characters escaped', () => {
  assert.deepEqual(othersPatterns('ns:b:', 'a1f'), ['ns:b:[^a]??', 'ns:b:a[^1]?', 'ns:b:a1[^f]'])
  assert.deepEqual(othersPatterns('campfire_t*[e]?\\:b:', '0'), ['campfire_t\\*\\[e\\]\\?\\\\:b:[^0]'])
})
