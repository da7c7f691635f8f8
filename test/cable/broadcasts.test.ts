import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import net, { type Socket } from 'node:net'
import { CableConnection } from '../../server/cable/connection.ts'
import { globalIdParam } from '../../server/lib/rails/signing.ts'
import { rooms, users, type UserName } from '../fixtures.ts'
import { connect, identifiers, sharedCableApp, withLimits, type CableApp, type CableClient } from './cable-helper.ts'

const shared = sharedCableApp()

async function subscribedClient(t: TestContext, cable: CableApp, person: UserName, ...subscriptions: string[]): Promise<CableClient> {
  const client = await connect(t, cable, { cookie: await cable.cookie(person) })
  for (const identifier of subscriptions) client.subscribe(identifier)
  for (const identifier of subscriptions) await client.confirmed(identifier)
  return client
}
const hq = { id: rooms.hq.id, type: rooms.hq.type }
const append = (marker: string) => `<turbo-stream action="append" target="messages_rooms_open_2"><template><div>${marker}</div></template></turbo-stream>`

test('a message reaches every subscriber once, framed once per identifier', async (t) => {
  const cable = shared()
  const canonical = identifiers.roomMessages(cable.app, 'hq')
  const respelled = JSON.stringify({ signed_stream_name: JSON.parse(canonical).signed_stream_name, channel: 'RoomMessagesChannel' })
  const people: UserName[] = ['david', 'jason', 'kevin', 'jz']
  const clients: CableClient[] = []
  for (let n = 0; n < 24; n++) clients.push(await connect(t, cable, { cookie: await cable.cookie(people[n % people.length]!) }))
  clients.forEach((client, n) => client.subscribe(n % 6 === 5 ? respelled : canonical))
  await Promise.all(clients.map((client, n) => client.confirmed(n % 6 === 5 ? respelled : canonical)))
  const bystander = await connect(t, cable, { cookie: await cable.cookie('david') })
  bystander.subscribe(identifiers.roomMessages(cable.app, 'pets'))
  await bystander.confirmed(identifiers.roomMessages(cable.app, 'pets'))

  const frames: unknown[] = []
  const send = CableConnection.prototype.sendWire
  CableConnection.prototype.sendWire = function (frame) {
    frames.push(frame)
    return send.call(this, frame)
  }
  try {
    assert.equal(cable.app.cable.messageCreated(hq, append('bmk1z')), 24)
  } finally {
    CableConnection.prototype.sendWire = send
  }
  assert.equal(frames.length, 24)
  assert.equal(new Set(frames).size, 2, 'one Buffer per distinct identifier, shared by its subscribers')
  await Promise.all(clients.map((client) => client.until(() => client.messages().length === 1)))
  const expected = (identifier: string) => `{"identifier":${JSON.stringify(identifier)},"message":${JSON.stringify(append('bmk1z'))}}`
  clients.forEach((client, n) => assert.equal(client.texts.at(-1), expected(n % 6 === 5 ? respelled : canonical)))
  assert.equal(bystander.messages().length, 0)
})

test('frames sent to a socket in one turn leave in one write, in order, joined once for everyone', async (t) => {
  const cable = shared()
  const messages = identifiers.roomMessages(cable.app, 'hq')
  const people: UserName[] = ['david', 'jason', 'kevin']
  const clients: CableClient[] = []
  for (const person of people) clients.push(await subscribedClient(t, cable, person, messages, identifiers.unreads))
  const written: Buffer[] = []
  const socketsWritten = new Set<Socket>()
  const write = net.Socket.prototype.write
  net.Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
    const chunk = args[0]
    if (Buffer.isBuffer(chunk) && chunk.includes('bmk7z')) {
      written.push(chunk)
      socketsWritten.add(this)
    }
    return write.apply(this, args)
  } as Socket['write']
  t.after(() => (net.Socket.prototype.write = write))
  cable.app.cable.messageCreated(hq, append('bmk7z'))
  cable.app.cable.unreadRoom(hq, clients.map((_, n) => users[people[n]!].id), 1.5)
  await Promise.all(clients.map((client) => client.until(() => client.messages().length === 2)))
  assert.equal(written.length, 3, 'one write per socket')
  assert.equal(socketsWritten.size, 3)
  assert.equal(new Set(written).size, 1, 'the joined frames are one Buffer shared by every socket')
  for (const client of clients) {
    const [message, unread] = client.messages()
    assert.match(JSON.stringify(message), /bmk7z/)
    assert.deepEqual(unread, { roomId: hq.id, at: 1.5 })
  }
})

test('a fan-out to more sockets than one turn writes is spread over turns, and every socket still gets every frame in order', async (t) => {
  const cable = shared()
  withLimits(t, cable, { flushChunk: 2 })
  const messages = identifiers.roomMessages(cable.app, 'hq')
  const people: UserName[] = ['david', 'jason', 'kevin', 'jz', 'david', 'jason', 'kevin']
  const clients: CableClient[] = []
  for (const person of people) clients.push(await subscribedClient(t, cable, person, messages))
  // Microtasks run between one callback of the event loop and the next: a run of flushes with
  // no microtask checkpoint between them is one turn.
  let turns = 0
  let inTurn = false
  const flush = CableConnection.prototype.flush
  CableConnection.prototype.flush = function (this: CableConnection) {
    if (!inTurn) {
      inTurn = true
      turns++
      queueMicrotask(() => (inTurn = false))
    }
    return flush.call(this)
  }
  t.after(() => (CableConnection.prototype.flush = flush))
  cable.app.cable.messageCreated(hq, append('bmk10z'))
  cable.app.cable.messageCreated(hq, append('bmk11z'))
  // While the first fan-out is still being written, another post follows it.
  setImmediate(() => cable.app.cable.messageCreated(hq, append('bmk12z')))
  await Promise.all(clients.map((client) => client.until(() => client.messages().length === 3)))
  for (const client of clients) {
    assert.deepEqual(client.messages().map((message) => /bmk1\dz/.exec(JSON.stringify(message))?.[0]), ['bmk10z', 'bmk11z', 'bmk12z'])
  }
  // 7 sockets, 2 a turn: the first fan-out takes 4 turns (the third post joins them or follows).
  assert.ok(turns >= 4, `written over ${turns} turns`)
})

test('a frame ws sends after broadcast frames in the same turn arrives after them', async (t) => {
  const cable = shared()
  const messages = identifiers.roomMessages(cable.app, 'hq')
  const client = await subscribedClient(t, cable, 'jz', messages)
  cable.app.cable.messageCreated(hq, append('bmk8z'))
  cable.app.cable.disconnectUser(users.jz.id, { reconnect: true })
  await client.until(() => client.texts.some((text) => text.includes('"disconnect"')))
  const at = (needle: string) => client.texts.findIndex((text) => text.includes(needle))
  assert.ok(at('bmk8z') >= 0, 'the broadcast was delivered')
  assert.ok(at('bmk8z') < at('"disconnect"'), 'and before the disconnect frame')
})

test('unsubscribed and closed sockets are skipped', async (t) => {
  const cable = shared()
  const identifier = identifiers.roomMessages(cable.app, 'hq')
  const [stays, leaves, closes] = [await connect(t, cable, { cookie: await cable.cookie('david') }), await connect(t, cable, { cookie: await cable.cookie('jason') }), await connect(t, cable, { cookie: await cable.cookie('kevin') })]
  for (const client of [stays, leaves, closes]) client.subscribe(identifier)
  for (const client of [stays, leaves, closes]) await client.confirmed(identifier)
  leaves.unsubscribe(identifier)
  leaves.subscribe(identifiers.heartbeat)
  await leaves.confirmed(identifiers.heartbeat)
  closes.close()
  cable.app.cable.messageCreated(hq, append('bmk2z'))
  await stays.until(() => stays.messages().length === 1)
  await new Promise((resolve) => setTimeout(resolve, 50))
  assert.equal(leaves.messages().length, 0)
})

test('edits, removals and boosts go out as turbo-stream envelopes on the room’s stream', async (t) => {
  const cable = shared()
  const identifier = identifiers.roomMessages(cable.app, 'hq')
  const client = await subscribedClient(t, cable, 'kevin', identifier)
  const message = { client_message_id: 'abc123' }
  cable.app.cable.messageUpdated(hq, message, '<div>edited</div>')
  cable.app.cable.boostCreated(hq, message, '<span>🎉</span>')
  cable.app.cable.boostRemoved(hq, 42)
  cable.app.cable.messageRemoved(hq, message)
  await client.until(() => client.messages().length === 4)
  assert.deepEqual(client.messages(), [
    '<turbo-stream action="replace" target="presentation_message_abc123" maintain_scroll="true"><template><div>edited</div></template></turbo-stream>',
    '<turbo-stream action="append" target="boosts_message_abc123" maintain_scroll="true"><template><span>🎉</span></template></turbo-stream>',
    '<turbo-stream action="remove" target="boost_42"></turbo-stream>',
    '<turbo-stream action="remove" target="message_abc123"></turbo-stream>',
  ])
})

test('room list changes go to everyone on "rooms" or to each listed user’s own rooms stream', async (t) => {
  const cable = shared()
  const streams = (name: UserName) => [identifiers.turbo(cable.app, 'rooms'), identifiers.turbo(cable.app, `${globalIdParam('User', users[name].id)}:rooms`)]
  const [kevin, jz] = [await connect(t, cable, { cookie: await cable.cookie('kevin') }), await connect(t, cable, { cookie: await cable.cookie('jz') })]
  for (const [client, name] of [[kevin, 'kevin'], [jz, 'jz']] as const) {
    for (const identifier of streams(name)) client.subscribe(identifier)
    for (const identifier of streams(name)) await client.confirmed(identifier)
  }
  cable.app.cable.roomCreated('<turbo-stream action="prepend" target="shared_rooms"><template>open</template></turbo-stream>', 'everyone')
  cable.app.cable.roomUpdated('<turbo-stream action="replace" target="list_rooms_closed_3"><template>closed</template></turbo-stream>', [users.kevin.id])
  cable.app.cable.roomRemoved({ id: 3, type: 'Rooms::Open' }, [users.kevin.id])
  await kevin.until(() => kevin.messages().length === 3)
  await jz.until(() => jz.messages().length === 1)
  assert.equal(kevin.messages(streams('kevin')[1]).at(-1), '<turbo-stream action="remove" target="list_rooms_open_3"></turbo-stream>')
  assert.deepEqual(jz.messages(streams('jz')[0]), ['<turbo-stream action="prepend" target="shared_rooms"><template>open</template></turbo-stream>'])
})

test('a socket that stops reading is closed as a slow consumer, and the others get everything', async (t) => {
  const cable = shared()
  withLimits(t, cable, { bufferedBytes: 256 * 1024 })
  const identifier = identifiers.roomMessages(cable.app, 'hq')
  const [fast, slow] = [await connect(t, cable, { cookie: await cable.cookie('david') }), await connect(t, cable, { cookie: await cable.cookie('jason') })]
  for (const client of [fast, slow]) client.subscribe(identifier)
  for (const client of [fast, slow]) await client.confirmed(identifier)
  const slowSocket = (slow.socket as unknown as { _socket: Socket })._socket
  slowSocket.pause()

  const padding = 'x'.repeat(64 * 1024)
  let sent = 0
  let reached = 2
  while (reached === 2 && sent < 2000) {
    reached = cable.app.cable.messageCreated(hq, append(`bmk${sent}z${padding}`))
    sent++
    // The fast client lives in this process: give its reads a turn of the event loop.
    if (sent % 16 === 0) await new Promise((resolve) => setTimeout(resolve, 5))
  }
  assert.equal(reached, 1, 'the slow socket was dropped')
  for (let n = 0; n < 5; n++) cable.app.cable.messageCreated(hq, append(`bmk${sent++}z`))
  await fast.until(() => fast.messages().length === sent, 20_000)
  assert.equal(fast.closeCode, null)
  slowSocket.resume()
  await slow.closed()
})
