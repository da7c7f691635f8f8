import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms } from '../../fixtures.ts'
import { get, post, send, TURBO_ACCEPT, value } from './support.ts'

// The fragment a post's Turbo Stream appends (the one every socket in the room is sent).
function appended(body: string): string {
  const match = /^<turbo-stream action="append" target="[^"]+"><template>([\s\S]*)<\/template><\/turbo-stream>\s*$/.exec(body)
  assert.ok(match, `a single append: ${body.slice(0, 80)}`)
  return match[1]!
}

// A post's fragment is rendered from what its own write transaction read back, and cached under
// its version for every page that shows it: it must be what a fresh render of the stored message gives.
for (const [name, roomId, text] of [
  ['an open room', rooms.hq.id, 'plain words'],
  ['a closed room, with markup', rooms.watercooler.id, '<strong>bold</strong> and <em>slanted</em>'],
  ['a direct room, named by its members', rooms.david_and_jason.id, 'just us'],
  ['an open room, all emoji', rooms.hq.id, '🎉🎉'],
] as const) {
  test(`a post's announced fragment is the one a fresh render of the stored message gives, in ${name}`, async (t) => {
    const { app } = await buildTestApp(t)
    const cookie = await signIn(app, 'david')
    const response = await post(app, cookie, roomId, text, 'fresh01')
    assert.equal(response.statusCode, 200)
    const fragment = appended(response.body)
    app.messageFragments.clear()
    const page = await get(app, cookie, `/rooms/${roomId}/messages`)
    assert.equal(page.statusCode, 200)
    assert.ok(page.body.includes(fragment), 'the history page, rendered afresh, holds the same fragment byte for byte')
  })
}

test('a refused post to a room you are not in still answers 404, whatever is wrong with its body or id', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const watercooler = rooms.watercooler.id
  const refusals: Record<string, string>[] = [{ 'message[body]': '' }, { 'message[body]': '   ' }, {}, { 'message[body]': 'hi', 'message[client_message_id]': '<bad id>' }, { 'message[body]': 'a'.repeat(100_001) }]
  for (const fields of refusals) {
    const response = await send(app, cookie, 'POST', `/rooms/${watercooler}/messages`, fields, TURBO_ACCEPT)
    assert.equal(response.statusCode, 404, JSON.stringify(fields).slice(0, 60))
    assert.match(response.body, /This room was deleted\./)
  }
  // The same refusals in a room of theirs are 422s.
  for (const fields of refusals.slice(0, 1).concat(refusals.slice(3, 4))) {
    const response = await send(app, cookie, 'POST', `/rooms/${rooms.hq.id}/messages`, fields, TURBO_ACCEPT)
    assert.equal(response.statusCode, 422, JSON.stringify(fields))
  }
  assert.equal(value<number>(app, 'SELECT count(*) FROM messages'), 0)
})

test('a post without the Turbo Stream accept header is redirected to its room, and the message is stored', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await send(app, cookie, 'POST', `/rooms/${rooms.hq.id}/messages`, { 'message[body]': 'from a plain form', 'message[client_message_id]': 'plain01' })
  assert.equal(response.statusCode, 303)
  assert.equal(response.headers.location, `/rooms/${rooms.hq.id}`)
  assert.equal(value<string>(app, 'SELECT client_message_id FROM messages WHERE client_message_id = ?', 'plain01'), 'plain01')
})

test('a post that repeats its client_message_id (a retry) is answered as the first one was, and stored once', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const first = await post(app, cookie, rooms.hq.id, 'said once', 'retry-01')
  const again = await post(app, cookie, rooms.hq.id, 'said once', 'retry-01')
  assert.equal(first.statusCode, 200)
  assert.equal(again.statusCode, 200)
  assert.equal(again.headers['content-type'], first.headers['content-type'])
  assert.equal(again.body, first.body)
  assert.equal(value<number>(app, "SELECT count(*) FROM messages WHERE client_message_id = 'retry-01'"), 1)
  assert.equal(value<number>(app, "SELECT count(*) FROM message_search_index WHERE body = 'said once'"), 1)
  // The same id from another person is their own message; from the same person in another room, a clash.
  assert.equal((await post(app, await signIn(app, 'kevin'), rooms.hq.id, 'mine too', 'retry-01')).statusCode, 200)
  const elsewhere = await post(app, cookie, rooms.pets.id, 'said once', 'retry-01')
  assert.equal(elsewhere.statusCode, 409)
  assert.equal(value<number>(app, "SELECT count(*) FROM messages WHERE client_message_id = 'retry-01'"), 2)
})
