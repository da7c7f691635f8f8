import { test } from 'node:test'
import assert from 'node:assert/strict'
import { globalIdParam } from '../../server/lib/rails/signing.ts'
import { rooms, users } from '../fixtures.ts'
import { connect, identifiers, messagesStreamName, sharedCableApp } from './cable-helper.ts'

const shared = sharedCableApp()

function rmc(signedStreamName: unknown): string {
  return JSON.stringify({ channel: 'RoomMessagesChannel', signed_stream_name: signedStreamName })
}

test('a member may subscribe to a room’s message stream', async (t) => {
  const cable = shared()
  const kevin = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  const identifier = identifiers.roomMessages(cable.app, 'watercooler')
  kevin.subscribe(identifier)
  assert.equal(await kevin.answered(identifier), 'confirmed')
  assert.equal(cable.app.cable.server.subscribersOf(messagesStreamName('watercooler')), 1)
})

test('someone who was never a member may not subscribe to a room’s message stream', async (t) => {
  const cable = shared()
  const jz = await connect(t, cable, { cookie: await cable.cookie('jz') })
  const identifier = identifiers.roomMessages(cable.app, 'watercooler')
  jz.subscribe(identifier)
  assert.equal(await jz.answered(identifier), 'rejected')
})

test('a revoked member may not re-subscribe with a stream name harvested while a member', async (t) => {
  const cable = shared()
  const identifier = identifiers.roomMessages(cable.app, 'designers')
  const jz = await connect(t, cable, { cookie: await cable.cookie('jz') })
  jz.subscribe(identifier)
  assert.equal(await jz.answered(identifier), 'confirmed', 'jz starts out able to subscribe')

  await cable.app.store.write((m) => m.db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(rooms.designers.id, users.jz.id))
  t.after(() => cable.app.store.write((m) => m.memberships.grant(rooms.designers.id, users.jz.id)))

  const again = await connect(t, cable, { cookie: await cable.cookie('jz') })
  again.subscribe(identifier)
  assert.equal(await again.answered(identifier), 'rejected')
  const stock = identifiers.turbo(cable.app, messagesStreamName('designers'))
  again.subscribe(stock)
  assert.equal(await again.answered(stock), 'rejected', 'nor through the stock Turbo channel')
})

test('a member removed while their socket stays open is refused on their next subscribe to that room, on the socket that had just found them a member', async (t) => {
  const cable = shared()
  const jz = await connect(t, cable, { cookie: await cable.cookie('jz') })
  const room = identifiers.room('designers')
  const messages = identifiers.roomMessages(cable.app, 'designers')
  jz.subscribe(room)
  assert.equal(await jz.answered(room), 'confirmed', 'jz starts out a member')

  await cable.app.store.write((m) => m.db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(rooms.designers.id, users.jz.id))
  t.after(() => cable.app.store.write((m) => m.memberships.grant(rooms.designers.id, users.jz.id)))
  cable.app.cable.unsubscribeUserFromRoom(users.jz.id, rooms.designers.id)
  await jz.until(() => jz.rejections(room).length === 1)

  jz.subscribe(messages)
  assert.equal(await jz.answered(messages), 'rejected')
  jz.subscribe(room)
  await jz.until(() => jz.rejections(room).length === 2)
})

test('unsigned, missing, tampered and non-room stream names are rejected', async (t) => {
  const cable = shared()
  const kevin = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  const signed = cable.app.signing.signStreamName(messagesStreamName('watercooler'))
  const cases = [
    rmc(messagesStreamName('watercooler')),
    JSON.stringify({ channel: 'RoomMessagesChannel' }),
    rmc(null),
    rmc(signed.slice(0, -1) + (signed.endsWith('0') ? '1' : '0')),
    rmc(cable.app.signing.signStreamName(`${globalIdParam('User', users.kevin.id)}:messages`)),
    rmc(cable.app.signing.signStreamName(`${globalIdParam('Rooms::Open', rooms.watercooler.id)}:messages`)),
    rmc(cable.app.signing.signStreamName(`${globalIdParam('Rooms::Closed', rooms.watercooler.id)}:rooms`)),
    rmc(cable.app.signing.signStreamName(`${globalIdParam('Rooms::Closed', 999)}:messages`)),
  ]
  for (const identifier of cases) kevin.subscribe(identifier)
  for (const identifier of cases) assert.equal(await kevin.answered(identifier), 'rejected', identifier.slice(0, 80))
})

test('a validly signed stream name for a room the user is not in is rejected', async (t) => {
  const cable = shared()
  const jz = await connect(t, cable, { cookie: await cable.cookie('jz') })
  const identifier = identifiers.roomMessages(cable.app, 'david_and_kevin')
  jz.subscribe(identifier)
  assert.equal(await jz.answered(identifier), 'rejected')
})

test('the stock Turbo channel refuses room message streams but serves the room lists', async (t) => {
  const cable = shared()
  const kevin = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  const messages = identifiers.turbo(cable.app, messagesStreamName('watercooler'))
  const rooms = identifiers.turbo(cable.app, 'rooms')
  const mine = identifiers.turbo(cable.app, `${globalIdParam('User', users.kevin.id)}:rooms`)
  const unsigned = JSON.stringify({ channel: 'Turbo::StreamsChannel', signed_stream_name: 'rooms' })
  for (const identifier of [messages, rooms, mine, unsigned]) kevin.subscribe(identifier)
  assert.equal(await kevin.answered(messages), 'rejected')
  assert.equal(await kevin.answered(rooms), 'confirmed')
  assert.equal(await kevin.answered(mine), 'confirmed')
  assert.equal(await kevin.answered(unsigned), 'rejected')
})

test('room channels confirm members and reject outsiders, missing rooms and missing ids', async (t) => {
  const cable = shared()
  const jz = await connect(t, cable, { cookie: await cable.cookie('jz') })
  const confirmed = [identifiers.room('hq'), identifiers.presence('designers'), identifiers.typing('pets'), JSON.stringify({ channel: 'RoomChannel', room_id: '2' })]
  const rejected = [
    identifiers.room('watercooler'),
    identifiers.presence('watercooler'),
    identifiers.typing('david_and_kevin'),
    JSON.stringify({ channel: 'PresenceChannel', room_id: -1 }),
    JSON.stringify({ channel: 'PresenceChannel' }),
    JSON.stringify({ channel: 'PresenceChannel', room_id: '2 OR 1=1' }),
    JSON.stringify({ channel: 'TypingNotificationsChannel', room_id: 1.5 }),
  ]
  for (const identifier of [...confirmed, ...rejected]) jz.subscribe(identifier)
  for (const identifier of confirmed) assert.equal(await jz.answered(identifier), 'confirmed', identifier)
  for (const identifier of rejected) assert.equal(await jz.answered(identifier), 'rejected', identifier)
})

test('typing notices reach everyone on the room’s stream, the typist included, and nobody else', async (t) => {
  const cable = shared()
  const [david, kevin, jz] = await Promise.all([connect(t, cable, { cookie: await cable.cookie('david') }), connect(t, cable, { cookie: await cable.cookie('kevin') }), connect(t, cable, { cookie: await cable.cookie('jz') })])
  const typing = identifiers.typing('hq')
  for (const client of [david, kevin, jz]) client.subscribe(typing)
  const elsewhere = identifiers.typing('pets')
  jz.unsubscribe(typing)
  jz.subscribe(elsewhere)
  for (const client of [david, kevin]) await client.confirmed(typing)
  await jz.confirmed(elsewhere)
  kevin.perform(typing, { action: 'start' })
  kevin.perform(typing, { action: 'stop' })
  const expected = [
    { action: 'start', user: { id: users.kevin.id, name: users.kevin.name } },
    { action: 'stop', user: { id: users.kevin.id, name: users.kevin.name } },
  ]
  for (const client of [david, kevin]) {
    await client.until(() => client.messages(typing).length === 2)
    assert.deepEqual(client.messages(typing), expected)
  }
  assert.equal(jz.messages().length, 0)
})

test('unread notices go to each member’s own stream as {"roomId","at"}, and outsiders hear nothing', async (t) => {
  const cable = shared()
  const [kevin, jz] = await Promise.all([connect(t, cable, { cookie: await cable.cookie('kevin') }), connect(t, cable, { cookie: await cable.cookie('jz') })])
  for (const client of [kevin, jz]) client.subscribe(identifiers.unreads)
  for (const client of [kevin, jz]) await client.confirmed(identifiers.unreads)
  const members = [users.kevin.id, users.bender.id]
  assert.equal(cable.app.cable.unreadRoom(rooms.bender_and_kevin, members, 1767225600.123456), 1)
  await kevin.until(() => kevin.messages().length === 1)
  const frame = kevin.texts.at(-1)!
  assert.ok(frame.includes('"message":{') && frame.includes('"roomId":'), 'recognised by the load generator')
  assert.equal(frame, `{"identifier":${JSON.stringify(identifiers.unreads)},"message":{"roomId":${rooms.bender_and_kevin.id},"at":1767225600.123456}}`)
  await new Promise((resolve) => setTimeout(resolve, 50))
  assert.equal(jz.messages().length, 0)
})

test('becoming present in a room tells the user’s other tabs it was read', async (t) => {
  const cable = shared()
  const [tab, other] = await Promise.all([connect(t, cable, { cookie: await cable.cookie('david') }), connect(t, cable, { cookie: await cable.cookie('david') })])
  const jason = await connect(t, cable, { cookie: await cable.cookie('jason') })
  for (const client of [other, jason]) client.subscribe(identifiers.reads)
  await other.confirmed(identifiers.reads)
  await jason.confirmed(identifiers.reads)
  tab.subscribe(identifiers.presence('designers'))
  await tab.confirmed(identifiers.presence('designers'))
  await other.until(() => other.messages(identifiers.reads).length === 1)
  assert.deepEqual(other.messages(identifiers.reads), [{ room_id: rooms.designers.id }])
  assert.equal(jason.messages().length, 0)
})

test('the heartbeat channel confirms and streams nothing', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  client.subscribe(identifiers.heartbeat)
  await client.confirmed(identifiers.heartbeat)
  assert.equal([...client.frames].filter((f) => f.identifier === identifiers.heartbeat && f.message !== undefined).length, 0)
})

test('disconnecting a user closes every socket they have, with the reason and reconnect flag', async (t) => {
  const cable = shared()
  const [first, second] = [await connect(t, cable, { cookie: await cable.cookie('kevin') }), await connect(t, cable, { cookie: await cable.cookie('kevin') })]
  const jason = await connect(t, cable, { cookie: await cable.cookie('jason') })
  assert.equal(cable.app.cable.disconnectUser(users.kevin.id, { reconnect: false }), 2)
  for (const client of [first, second]) {
    assert.equal(await client.closed(), 1000)
    assert.ok(client.texts.includes('{"type":"disconnect","reason":"remote","reconnect":false}'))
  }
  jason.subscribe(identifiers.heartbeat)
  await jason.confirmed(identifiers.heartbeat)
  assert.equal(jason.closeCode, null)

  const again = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  cable.app.cable.disconnectUser(users.kevin.id, { reconnect: true })
  await again.closed()
  assert.ok(again.texts.includes('{"type":"disconnect","reason":"remote","reconnect":true}'))
})

test('unsubscribing a user from a room rejects just that room’s subscriptions, in order with theirs', async (t) => {
  const cable = shared()
  const kevin = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  const watercooler = [identifiers.roomMessages(cable.app, 'watercooler'), identifiers.presence('watercooler'), identifiers.typing('watercooler')]
  const hq = identifiers.roomMessages(cable.app, 'hq')
  for (const identifier of [...watercooler, hq]) kevin.subscribe(identifier)
  for (const identifier of [...watercooler, hq]) await kevin.confirmed(identifier)
  assert.equal(cable.app.cable.unsubscribeUserFromRoom(users.kevin.id, rooms.watercooler.id), 1)
  for (const identifier of watercooler) await kevin.until(() => kevin.rejections(identifier).length === 1)
  assert.equal(kevin.rejections(hq).length, 0)
  assert.equal(cable.app.cable.server.subscribersOf(messagesStreamName('watercooler')), 0)
  assert.equal(cable.app.cable.server.subscribersOf(messagesStreamName('hq')) >= 1, true)
})
