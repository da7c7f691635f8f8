import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { rooms, users, type RoomName, type UserName } from '../fixtures.ts'
import { connect, identifiers, sharedCableApp, type CableApp, type CableClient } from './cable-helper.ts'

// An unread notice for an open or closed room goes to a socket once, until the socket shows the
// room again; a Ping's notices all go (each moves it to the front of the list).
const shared = sharedCableApp()

async function tab(t: TestContext, cable: CableApp, person: UserName): Promise<CableClient> {
  const client = await connect(t, cable, { cookie: await cable.cookie(person) })
  for (const identifier of [identifiers.unreads, identifiers.reads]) client.subscribe(identifier)
  for (const identifier of [identifiers.unreads, identifiers.reads]) await client.confirmed(identifier)
  return client
}

function post(cable: CableApp, room: RoomName, at: number): number {
  return cable.app.cable.unreadRoom(rooms[room], rooms[room].members.map((name) => users[name as UserName].id), at)
}

const unreads = (client: CableClient) => client.messages(identifiers.unreads) as { roomId: number; at: number }[]

// Waits until the socket has been sent every notice up to `at` it is going to be sent: a marker
// Ping notice goes out after them, in order.
async function settled(cable: CableApp, client: CableClient, person: UserName, at: number): Promise<void> {
  cable.app.cable.unreadRoom(rooms.bender_and_kevin, [users[person].id], at)
  await client.until(() => unreads(client).some((notice) => notice.at === at))
}

// Waits until the server has run every command the client sent so far (they run in order).
async function processed(client: CableClient): Promise<void> {
  const answered = client.confirmations(identifiers.heartbeat).length
  client.subscribe(identifiers.heartbeat)
  await client.until(() => client.confirmations(identifiers.heartbeat).length === answered + 1)
  client.unsubscribe(identifiers.heartbeat)
}

test('an open room turns unread once: more posts send nothing until the socket shows the room again', async (t) => {
  const cable = shared()
  const kevin = await tab(t, cable, 'kevin')
  assert.equal(post(cable, 'hq', 1), 1)
  assert.equal(post(cable, 'hq', 2), 0, 'the room is already unread on that page')
  assert.equal(post(cable, 'hq', 3), 0)
  await settled(cable, kevin, 'kevin', 100)
  assert.deepEqual(unreads(kevin).filter((n) => n.roomId === rooms.hq.id).map((n) => n.at), [1])

  // A visit: while the room is on screen every notice goes (a hidden tab marks it unread).
  kevin.subscribe(identifiers.presence('hq'))
  await kevin.confirmed(identifiers.presence('hq'))
  assert.equal(post(cable, 'hq', 4), 1)
  assert.equal(post(cable, 'hq', 5), 1)
  // Leaving it: the room shows read, so the next post turns it unread again, once.
  kevin.unsubscribe(identifiers.presence('hq'))
  await processed(kevin)
  assert.equal(post(cable, 'hq', 6), 1)
  assert.equal(post(cable, 'hq', 7), 0)
  await settled(cable, kevin, 'kevin', 102)
  assert.deepEqual(unreads(kevin).filter((n) => n.roomId === rooms.hq.id).map((n) => n.at), [1, 4, 5, 6])
})

test('a room’s message stream alone counts as showing it', async (t) => {
  const cable = shared()
  const jz = await tab(t, cable, 'jz')
  assert.equal(post(cable, 'designers', 1), 1)
  jz.subscribe(identifiers.roomMessages(cable.app, 'designers'))
  await jz.confirmed(identifiers.roomMessages(cable.app, 'designers'))
  assert.equal(post(cable, 'designers', 2), 1)
  jz.unsubscribe(identifiers.roomMessages(cable.app, 'designers'))
  await processed(jz)
  assert.equal(post(cable, 'designers', 3), 1)
  assert.equal(post(cable, 'designers', 4), 0)
})

test('every notice of a Ping goes out, since each moves it to the front', async (t) => {
  const cable = shared()
  const kevin = await tab(t, cable, 'kevin')
  for (let at = 1; at <= 4; at++) assert.equal(post(cable, 'bender_and_kevin', at), 1)
  await kevin.until(() => unreads(kevin).length === 4)
  assert.deepEqual(unreads(kevin).map((n) => n.at), [1, 2, 3, 4])
})

test('each tab and each new socket of a person is told once on its own, and none other is skipped for it', async (t) => {
  const cable = shared()
  const [first, second] = [await tab(t, cable, 'jason'), await tab(t, cable, 'jason')]
  const david = await tab(t, cable, 'david')
  assert.equal(post(cable, 'hq', 1), 3)
  const third = await tab(t, cable, 'jason')
  assert.equal(post(cable, 'hq', 2), 1, 'only the socket that was not told yet')
  assert.equal(post(cable, 'hq', 3), 0)
  await settled(cable, third, 'jason', 100)
  assert.deepEqual(unreads(third).filter((n) => n.roomId === rooms.hq.id).map((n) => n.at), [2])
  for (const client of [first, second, david]) assert.deepEqual(unreads(client).filter((n) => n.roomId === rooms.hq.id).map((n) => n.at), [1])
})

test('reading a room on one tab tells the person’s other tabs anew when it next turns unread', async (t) => {
  const cable = shared()
  const [elsewhere, reader] = [await tab(t, cable, 'david'), await tab(t, cable, 'david')]
  const jason = await tab(t, cable, 'jason')
  assert.equal(post(cable, 'hq', 1), 3)
  assert.equal(post(cable, 'hq', 2), 0)
  reader.subscribe(identifiers.presence('hq'))
  await reader.confirmed(identifiers.presence('hq'))
  await elsewhere.until(() => elsewhere.messages(identifiers.reads).length === 1)
  assert.equal(post(cable, 'hq', 3), 2, 'the reader shows the room, the other tab was told it is read; Jason still sees it unread')
  assert.deepEqual(jason.messages(identifiers.reads), [])
})

test('a tab that comes back into view is told again of every room, as its sidebar reloads', async (t) => {
  const cable = shared()
  const kevin = await tab(t, cable, 'kevin')
  kevin.subscribe(identifiers.presence('pets'))
  await kevin.confirmed(identifiers.presence('pets'))
  assert.equal(post(cable, 'hq', 1), 1)
  assert.equal(post(cable, 'hq', 2), 0)
  kevin.perform(identifiers.presence('pets'), { action: 'present' })
  await kevin.until(() => kevin.messages(identifiers.reads).length === 2)
  assert.equal(post(cable, 'hq', 3), 1)
})
