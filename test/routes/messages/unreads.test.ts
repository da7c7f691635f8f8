import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, inject, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { get, seed, send } from './support.ts'
import { connect, identifiers, startCableApp } from '../../cable/cable-helper.ts'
import { epochSeconds } from '../../../server/rendering/helpers/time.ts'

const unreadAt = (app: Parameters<typeof seed>[0], roomId: number, userId: number) => app.store.read((m) => m.memberships.find(roomId, userId)!.unread_at)
const highlight = (html: string) => html.match(/data-messages-highlight-value="(\d+)"/)?.[1]

test('marking a message unread answers 204 once the room is unread from it, for that person only', async (t) => {
  const { app } = await buildTestApp(t)
  const [first] = await seed(app, rooms.hq.id, users.jason.id, 3, 'catch up')
  const david = await signIn(app, 'david')
  await get(app, david, `/rooms/${rooms.hq.id}`)
  assert.equal(unreadAt(app, rooms.hq.id, users.david.id), null, 'read on opening')
  await get(app, await signIn(app, 'jz'), `/rooms/${rooms.hq.id}`)
  const response = await send(app, david, 'POST', `/messages/${first!.id}/unread`)
  assert.equal(response.statusCode, 204)
  assert.equal(unreadAt(app, rooms.hq.id, users.david.id), first!.created_at)
  assert.equal(unreadAt(app, rooms.hq.id, users.jz.id), null, 'JZ read it, and still has')
  assert.equal(app.store.read((m) => m.unreadMarks.markedMessage(rooms.hq.id, users.jz.id)), undefined, 'nobody else’s mark')
})

test('the room opens at the marked message next time, then at the newest once read', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = await seed(app, rooms.hq.id, users.jason.id, 60, 'long day')
  const marked = messages[5]!
  const david = await signIn(app, 'david')
  await send(app, david, 'POST', `/messages/${marked.id}/unread`)
  const opened = await get(app, david, `/rooms/${rooms.hq.id}`)
  assert.equal(opened.statusCode, 200)
  assert.equal(highlight(opened.body), String(marked.id), 'opens at the marked message')
  assert.ok(opened.body.includes(`data-message-id="${marked.id}"`))
  assert.ok(!opened.body.includes(`data-message-id="${messages.at(-1)!.id}"`), 'the page around it, not the newest')
  assert.equal(unreadAt(app, rooms.hq.id, users.david.id), null, 'opening it read it')
  const again = await get(app, david, `/rooms/${rooms.hq.id}`)
  assert.equal(highlight(again.body), undefined, 'read now: the newest page, as always')
  assert.ok(again.body.includes(`data-message-id="${messages.at(-1)!.id}"`))
})

test('a Ping can be marked unread too', async (t) => {
  const { app } = await buildTestApp(t)
  const [ping] = await seed(app, rooms.david_and_kevin.id, users.kevin.id, 2, 'ping')
  const david = await signIn(app, 'david')
  assert.equal((await send(app, david, 'POST', `/messages/${ping!.id}/unread`)).statusCode, 204)
  assert.equal(unreadAt(app, rooms.david_and_kevin.id, users.david.id), ping!.created_at)
  assert.equal(highlight((await get(app, david, `/rooms/${rooms.david_and_kevin.id}`)).body), String(ping!.id))
})

test('a message of a room the person is not in, a missing one or a forged id is 404 and marks nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const [designers] = await seed(app, rooms.designers.id, users.jason.id, 1, 'private')
  const kevin = await signIn(app, 'kevin')
  for (const id of [String(designers!.id), '999999', 'abc', '0', '-3']) {
    assert.equal((await send(app, kevin, 'POST', `/messages/${id}/unread`)).statusCode, 404, id)
  }
  assert.equal(app.store.read((m) => m.unreadMarks.markedMessage(rooms.designers.id, users.kevin.id)), undefined)
  assert.equal((await inject(app, kevin, { method: 'GET', url: `/messages/${designers!.id}/unread` })).statusCode, 404, 'no GET')
})

test('every socket of the person hears the room turn unread, and nobody else’s does', async (t) => {
  const cable = await startCableApp(t)
  const [message] = await seed(cable.app, rooms.hq.id, users.jason.id, 1, 'later')
  const phone = await connect(t, cable, { cookie: await cable.cookie('david') })
  const laptop = await connect(t, cable, { cookie: await cable.cookie('david') })
  const kevin = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  for (const client of [phone, laptop, kevin]) client.subscribe(identifiers.unreads)
  for (const client of [phone, laptop, kevin]) await client.confirmed(identifiers.unreads)
  // The laptop shows the room: it is told too (its page marks the tile itself, see rooms_list_controller).
  laptop.subscribe(identifiers.presence('hq'))
  await laptop.confirmed(identifiers.presence('hq'))
  const response = await send(cable.app, await cable.cookie('david'), 'POST', `/messages/${message!.id}/unread`)
  assert.equal(response.statusCode, 204)
  const notice = { roomId: rooms.hq.id, at: epochSeconds(message!.created_at) }
  await phone.until(() => phone.messages(identifiers.unreads).length === 1)
  await laptop.until(() => laptop.messages(identifiers.unreads).length === 1)
  assert.deepEqual(phone.messages(identifiers.unreads), [notice])
  assert.deepEqual(laptop.messages(identifiers.unreads), [notice])
  // A marker for Kevin goes after anything he might have been sent.
  cable.app.cable.unreadRoom(rooms.bender_and_kevin, [users.kevin.id], 42)
  await kevin.until(() => kevin.messages(identifiers.unreads).length > 0)
  assert.deepEqual(kevin.messages(identifiers.unreads), [{ roomId: rooms.bender_and_kevin.id, at: 42 }])
})
