import { test } from 'node:test'
import assert from 'node:assert/strict'
import { globalIdParam } from '../../server/lib/rails/signing.ts'
import { form, inject } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { connect, identifiers, sharedCableApp } from './cable-helper.ts'

const shared = sharedCableApp()
const turboHeaders = { accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml' }

async function post(cookie: string, roomId: number, body: string, clientMessageId: string) {
  const request = form({ 'message[body]': body, 'message[client_message_id]': clientMessageId })
  return inject(shared().app, cookie, { method: 'POST', url: `/rooms/${roomId}/messages`, payload: request.payload, headers: { ...request.headers, ...turboHeaders } })
}

test('a posted message reaches everyone watching the room, and every member hears it is unread', async (t) => {
  const cable = shared()
  const watcher = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  const messagesId = identifiers.roomMessages(cable.app, 'watercooler')
  watcher.subscribe(messagesId)
  watcher.subscribe(identifiers.unreads)
  await watcher.confirmed(messagesId)
  await watcher.confirmed(identifiers.unreads)
  const outsider = await connect(t, cable, { cookie: await cable.cookie('jz') })
  outsider.subscribe(identifiers.unreads)
  await outsider.confirmed(identifiers.unreads)

  const response = await post(await cable.cookie('david'), rooms.watercooler.id, 'live bmk1z', 'live1')
  assert.equal(response.statusCode, 200)
  await watcher.until(() => watcher.messages(messagesId).length === 1 && watcher.messages(identifiers.unreads).length === 1)
  assert.equal(watcher.messages(messagesId)[0], response.body, 'the broadcast is the HTML the poster got')
  const notice = watcher.messages(identifiers.unreads)[0] as { roomId: number; at: number }
  assert.equal(notice.roomId, rooms.watercooler.id)
  assert.equal(typeof notice.at, 'number')
  await new Promise((resolve) => setTimeout(resolve, 200))
  assert.equal(outsider.messages(identifiers.unreads).length, 0, 'someone outside the room hears nothing')
})

test('edits, deletions and boosts are broadcast to the room', async (t) => {
  const cable = shared()
  const cookie = await cable.cookie('david')
  const watcher = await connect(t, cable, { cookie: await cable.cookie('jason') })
  const messagesId = identifiers.roomMessages(cable.app, 'hq')
  watcher.subscribe(messagesId)
  await watcher.confirmed(messagesId)
  const created = await post(cookie, rooms.hq.id, 'before the edit', 'edit1')
  const id = /data-message-id="(\d+)"/.exec(created.body)![1]
  await watcher.until(() => watcher.messages(messagesId).length === 1)

  const edit = form({ 'message[body]': 'after the edit', _method: 'patch' })
  await inject(cable.app, cookie, { method: 'POST', url: `/rooms/${rooms.hq.id}/messages/${id}`, ...edit })
  await watcher.until(() => watcher.messages(messagesId).length === 2)
  const replaced = watcher.messages(messagesId)[1] as string
  assert.match(replaced, /^<turbo-stream action="replace" target="presentation_message_edit1" maintain_scroll="true">/)
  assert.match(replaced, /after the edit/)

  const boost = form({ 'boost[content]': '🔥' })
  await inject(cable.app, cookie, { method: 'POST', url: `/messages/${id}/boosts`, ...boost })
  await watcher.until(() => watcher.messages(messagesId).length === 3)
  assert.match(watcher.messages(messagesId)[2] as string, /action="append" target="boosts_message_edit1"[\s\S]*🔥/)

  await inject(cable.app, cookie, { method: 'DELETE', url: `/rooms/${rooms.hq.id}/messages/${id}`, headers: { 'sec-fetch-site': 'same-origin', ...turboHeaders } })
  await watcher.until(() => watcher.messages(messagesId).length === 4)
  assert.equal(watcher.messages(messagesId)[3], '<turbo-stream action="remove" target="message_edit1"></turbo-stream>')
})

test('a new open room appears in every sidebar, a new closed room only in its members’ sidebars', async (t) => {
  const cable = shared()
  const rooms = identifiers.turbo(cable.app, 'rooms')
  const kevinRooms = identifiers.turbo(cable.app, `${globalIdParam('User', users.kevin.id)}:rooms`)
  const jzRooms = identifiers.turbo(cable.app, `${globalIdParam('User', users.jz.id)}:rooms`)
  const kevin = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  const jz = await connect(t, cable, { cookie: await cable.cookie('jz') })
  for (const [client, ids] of [[kevin, [rooms, kevinRooms]], [jz, [rooms, jzRooms]]] as const) {
    for (const id of ids) client.subscribe(id)
    for (const id of ids) await client.confirmed(id)
  }
  const cookie = await cable.cookie('david')
  await inject(cable.app, cookie, { method: 'POST', url: '/rooms/opens', ...form({ 'room[name]': 'Launch party' }) })
  await kevin.until(() => kevin.messages(rooms).length === 1)
  await jz.until(() => jz.messages(rooms).length === 1)
  assert.match(kevin.messages(rooms)[0] as string, /action="prepend" target="shared_rooms"[\s\S]*Launch party/)

  const closed = new URLSearchParams({ 'room[name]': 'Secret plans', 'user_ids[]': String(users.kevin.id) })
  await inject(cable.app, cookie, { method: 'POST', url: '/rooms/closeds', payload: closed.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' } })
  await kevin.until(() => kevin.messages(kevinRooms).length === 1)
  assert.match(kevin.messages(kevinRooms)[0] as string, /Secret plans/)
  await new Promise((resolve) => setTimeout(resolve, 200))
  assert.equal(jz.messages(jzRooms).length, 0, 'JZ is not in the closed room and hears nothing of it')
  assert.ok(!jz.messages(rooms).some((m) => String(m).includes('Secret plans')))
})

test('a new ping appears in each member’s own sidebar, named for the other person', async (t) => {
  const cable = shared()
  const jzRooms = identifiers.turbo(cable.app, `${globalIdParam('User', users.jz.id)}:rooms`)
  const jz = await connect(t, cable, { cookie: await cable.cookie('jz') })
  jz.subscribe(jzRooms)
  await jz.confirmed(jzRooms)
  const ping = new URLSearchParams({ 'user_ids[]': String(users.jz.id) })
  await inject(cable.app, await cable.cookie('david'), { method: 'POST', url: '/rooms/directs', payload: ping.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' } })
  await jz.until(() => jz.messages(jzRooms).length === 1)
  const tile = jz.messages(jzRooms)[0] as string
  assert.match(tile, /^<turbo-stream action="prepend" target="direct_rooms">/)
  assert.match(tile, /Ping with<\/span> David/)
})
