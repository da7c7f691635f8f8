import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildTestApp, inject, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { seed, send } from './messages/support.ts'
import { foreignWriter } from '../support/foreign-writer.ts'

// The Saved page's messages are one cached part, keyed by which messages are on it and valid
// while they keep their presentation versions; the rows are read on every request.
function pageState(response: LightMyRequestResponse): string {
  const header = String(response.headers['server-timing'] ?? '')
  return header.match(/(?:^|,\s*)page;desc="([^"]*)"/)?.[1] ?? ''
}

const get = (app: FastifyInstance, cookie: string) => inject(app, cookie, { method: 'GET', url: '/users/me/saves' })

async function setup(t: Parameters<typeof buildTestApp>[0]) {
  const { app } = await buildTestApp(t)
  const messages = await seed(app, rooms.hq.id, users.jason.id, 3, 'kept note')
  const david = await signIn(app, 'david')
  for (const message of messages) await send(app, david, 'POST', `/messages/${message.id}/save`)
  return { app, messages, david }
}

test('the Saved page is served from the cache while nothing on it changes', async (t) => {
  const { app, david } = await setup(t)
  assert.equal(pageState(await get(app, david)), 'miss')
  assert.equal(pageState(await get(app, david)), 'hit')
})

test('another person editing a saved message shows on the next request', async (t) => {
  const { app, messages, david } = await setup(t)
  await get(app, david)
  assert.equal(pageState(await get(app, david)), 'hit')
  const jason = await signIn(app, 'jason')
  const edited = await send(app, jason, 'PATCH', `/rooms/${rooms.hq.id}/messages/${messages[1]!.id}`, { 'message[body]': '<div>kept note, edited by its author</div>' })
  assert.ok([200, 204, 302, 303].includes(edited.statusCode), String(edited.statusCode))
  const after = await get(app, david)
  assert.equal(pageState(after), 'miss')
  assert.match(after.body, /kept note, edited by its author/)
})

test('an outside SQL edit of a saved message, or of the saved rows, shows on the next request', async (t) => {
  const { app, messages, david } = await setup(t)
  await get(app, david)
  assert.equal(pageState(await get(app, david)), 'hit')
  const db = foreignWriter(t, app)
  db.prepare("UPDATE action_text_rich_texts SET body = '<p>rewritten by a foreign writer</p>' WHERE record_type = 'Message' AND record_id = ?").run(messages[0]!.id)
  const rewritten = await get(app, david)
  assert.equal(pageState(rewritten), 'miss')
  assert.match(rewritten.body, /rewritten by a foreign writer/)
  db.prepare('DELETE FROM campfire_saved_messages WHERE user_id = ? AND message_id = ?').run(users.david.id, messages[2]!.id)
  const unsaved = await get(app, david)
  assert.ok(!unsaved.body.includes(`data-message-id="${messages[2]!.id}"`), 'the row removed outside is gone from the page')
  assert.ok(unsaved.body.includes(`data-message-id="${messages[0]!.id}"`))
})

test('one person’s cached Saved page is never another’s', async (t) => {
  const { app, david } = await setup(t)
  await get(app, david)
  const kevin = await signIn(app, 'kevin')
  const his = await get(app, kevin)
  assert.ok(!/data-message-id=/.test(his.body), 'Kevin saved nothing')
  assert.match(his.body, /<meta name="current-user-id" content="4">/)
})
