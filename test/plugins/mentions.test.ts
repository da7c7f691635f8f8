import { test } from 'node:test'
import assert from 'node:assert/strict'
import { form, inject } from '../helper.ts'
import { rooms, users, type UserName } from '../fixtures.ts'
import { inboxStream } from '../../server/cable/user-streams.ts'
import { connect, identifiers, sharedCableApp, type CableClient } from '../cable/cable-helper.ts'

const shared = sharedCableApp()
const turboHeaders = { accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml' }
let counter = 0

function mentionOf(userId: number): string {
  return `<action-text-attachment sgid="${shared().app.signing.signedGlobalId('User', userId)}" content-type="application/vnd.campfire.mention"></action-text-attachment>`
}

async function post(author: UserName, roomId: number, body: string): Promise<number> {
  const request = form({ 'message[body]': body, 'message[client_message_id]': `inbox-live-${++counter}` })
  const response = await inject(shared().app, await shared().cookie(author), { method: 'POST', url: `/rooms/${roomId}/messages`, payload: request.payload, headers: { ...request.headers, ...turboHeaders } })
  assert.equal(response.statusCode, 200)
  return Number(/data-message-id="(\d+)"/.exec(response.body)![1])
}

// Someone with their inbox open.
async function watching(t: Parameters<typeof connect>[0], name: UserName): Promise<{ client: CableClient; identifier: string }> {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie(name) })
  const identifier = identifiers.turbo(cable.app, inboxStream(users[name].id))
  client.subscribe(identifier)
  await client.confirmed(identifier)
  return { client, identifier }
}

async function quietly(): Promise<void> {
  await shared().app.mentions.settle()
  await new Promise((resolve) => setTimeout(resolve, 200))
}

test('a new mention is prepended to the open inbox of the person it mentions, and of nobody else', async (t) => {
  const kevin = await watching(t, 'kevin')
  const jz = await watching(t, 'jz')
  const id = await post('jason', rooms.hq.id, `<div>Look ${mentionOf(users.kevin.id)}</div>`)
  await kevin.client.until(() => kevin.client.messages(kevin.identifier).length === 1)
  const frame = String(kevin.client.messages(kevin.identifier)[0])
  assert.match(frame, /^<turbo-stream action="prepend" target="inbox_entries"><template><div id="inbox_entry_\d+" class="inbox__entry inbox__entry--unread" data-message-slot contents><div id="message_/)
  assert.ok(frame.includes(`data-message-id="${id}"`))
  await quietly()
  assert.equal(jz.client.messages(jz.identifier).length, 0)
})

test('a Ping enters the inbox of the other member while they are away', async (t) => {
  const kevin = await watching(t, 'kevin')
  const david = await watching(t, 'david')
  const id = await post('david', rooms.david_and_kevin.id, '<div>Got a minute?</div>')
  await kevin.client.until(() => kevin.client.messages(kevin.identifier).length === 1)
  assert.ok(String(kevin.client.messages(kevin.identifier)[0]).includes(`data-message-id="${id}"`))
  await quietly()
  assert.equal(david.client.messages(david.identifier).length, 0, 'not the Ping’s own author')
})

test('a mention in a room the person left, or whose bell is off, is not delivered', async (t) => {
  const app = shared().app
  const kevin = await watching(t, 'kevin')
  await app.store.write((m) => m.db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(rooms.watercooler.id, users.kevin.id))
  t.after(() => app.store.write((m) => m.memberships.grant(rooms.watercooler.id, users.kevin.id)))
  await app.store.write((m) => m.db.prepare("UPDATE memberships SET involvement = 'nothing' WHERE room_id = ? AND user_id = ?").run(rooms.pets.id, users.kevin.id))
  t.after(() => app.store.write((m) => m.db.prepare("UPDATE memberships SET involvement = 'mentions' WHERE room_id = ? AND user_id = ?").run(rooms.pets.id, users.kevin.id)))
  await post('david', rooms.watercooler.id, `<div>Gone ${mentionOf(users.kevin.id)}</div>`)
  await post('david', rooms.pets.id, `<div>Muted ${mentionOf(users.kevin.id)}</div>`)
  await quietly()
  assert.equal(kevin.client.messages(kevin.identifier).length, 0)
})

test("another person's inbox stream is refused, even validly signed, and a forged signature too", async (t) => {
  const cable = shared()
  const jz = await connect(t, cable, { cookie: await cable.cookie('jz') })
  const theirs = identifiers.turbo(cable.app, inboxStream(users.kevin.id))
  const signed = cable.app.signing.signStreamName(inboxStream(users.jz.id))
  const forged = JSON.stringify({ channel: 'Turbo::StreamsChannel', signed_stream_name: signed.slice(0, -1) + (signed.endsWith('0') ? '1' : '0') })
  const unsigned = JSON.stringify({ channel: 'Turbo::StreamsChannel', signed_stream_name: inboxStream(users.jz.id) })
  for (const identifier of [theirs, forged, unsigned]) jz.subscribe(identifier)
  for (const identifier of [theirs, forged, unsigned]) assert.equal(await jz.answered(identifier), 'rejected', identifier.slice(0, 80))
})
