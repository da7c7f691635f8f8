import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { get, seed, send } from './support.ts'

const isSaved = (app: Parameters<typeof seed>[0], userId: number, messageId: number) => app.store.read((m) => m.savedMessages.isSaved(userId, messageId))

test('the menu’s save frame offers Save, then Unsave once saved, for the person asking only', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, rooms.hq.id, users.jason.id, 1, 'keep')
  const david = await signIn(app, 'david')
  const before = await get(app, david, `/messages/${message!.id}/save`)
  assert.equal(before.statusCode, 200)
  assert.match(before.body, new RegExp(`<turbo-frame id="saving_message_${message!.client_message_id}">`))
  assert.match(before.body, /aria-label="Save"/)
  assert.equal(before.headers['cache-control'], 'private, no-store')

  const saved = await send(app, david, 'POST', `/messages/${message!.id}/save`)
  assert.equal(saved.statusCode, 200)
  assert.match(saved.body, /aria-label="Unsave"[^>]*aria-pressed="true"/)
  assert.equal(isSaved(app, users.david.id, message!.id), true, 'in the database before the answer')
  assert.match((await get(app, david, `/messages/${message!.id}/save`)).body, /aria-label="Unsave"/)
  assert.match((await get(app, await signIn(app, 'kevin'), `/messages/${message!.id}/save`)).body, /aria-label="Save"/, 'Kevin has not saved it')
})

test('unsaving answers the Save button again and removes the row; saving twice keeps one', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, rooms.hq.id, users.jason.id, 1, 'keep')
  const david = await signIn(app, 'david')
  await send(app, david, 'POST', `/messages/${message!.id}/save`)
  await send(app, david, 'POST', `/messages/${message!.id}/save`)
  assert.equal(app.store.read((m) => m.savedMessages.page(users.david.id).length), 1)
  const unsaved = await send(app, david, 'DELETE', `/messages/${message!.id}/save`)
  assert.equal(unsaved.statusCode, 200)
  assert.match(unsaved.body, /aria-label="Save"/)
  assert.equal(isSaved(app, users.david.id, message!.id), false)
  assert.equal((await send(app, david, 'POST', `/messages/${message!.id}/save`, { _method: 'delete' })).statusCode, 200, 'a form’s _method=delete')
})

test('a message in a room the person is not in, a missing one or a forged id is 404, and nothing is saved', async (t) => {
  const { app } = await buildTestApp(t)
  const [designers] = await seed(app, rooms.designers.id, users.jason.id, 1, 'private')
  const kevin = await signIn(app, 'kevin')
  for (const id of [String(designers!.id), '999999', 'abc', '-1', '1e3', '0']) {
    assert.equal((await get(app, kevin, `/messages/${id}/save`)).statusCode, 404, `GET ${id}`)
    assert.equal((await send(app, kevin, 'POST', `/messages/${id}/save`)).statusCode, 404, `POST ${id}`)
    assert.equal((await send(app, kevin, 'DELETE', `/messages/${id}/save`)).statusCode, 404, `DELETE ${id}`)
  }
  assert.equal(app.store.read((m) => m.db.prepare('SELECT count(*) FROM campfire_saved_messages').pluck().get()), 0)
})

test('the bot API cannot save: a bot’s key is refused and nothing is saved', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, rooms.hq.id, users.jason.id, 1, 'keep')
  const response = await app.inject({ method: 'POST', url: `/messages/${message!.id}/save?bot_key=${users.bender.id}-BenderToken1`, headers: { 'sec-fetch-site': 'same-origin' } })
  assert.equal(response.statusCode, 403)
  assert.equal(isSaved(app, users.bender.id, message!.id), false)
})
