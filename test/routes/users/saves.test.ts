import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { get, seed, send } from '../messages/support.ts'
import { SAVED_PAGE_SIZE } from '../../../server/models/saved-message.ts'
import { removeMessage } from '../../../server/models/message/posting.ts'

const ids = (html: string) => [...html.matchAll(/<div\s[^>]*data-message-id="(\d+)"/g)].map((match) => Number(match[1]))
const save = (app: FastifyInstance, cookie: string, messageId: number) => send(app, cookie, 'POST', `/messages/${messageId}/save`)

test('the Saved page lists the person’s saved messages newest saved first, each as the room shows it with its permalink', async (t) => {
  const { app } = await buildTestApp(t)
  const [inHq] = await seed(app, rooms.hq.id, users.jason.id, 1, 'hq note')
  const [inPets] = await seed(app, rooms.pets.id, users.kevin.id, 1, 'pets note')
  const [inWatercooler] = await seed(app, rooms.watercooler.id, users.jason.id, 1, 'cooler note')
  const david = await signIn(app, 'david')
  for (const message of [inPets!, inHq!, inWatercooler!]) await save(app, david, message.id)
  const page = await get(app, david, '/users/me/saves')
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /<title>Saved<\/title>/)
  assert.deepEqual(ids(page.body), [inWatercooler!.id, inHq!.id, inPets!.id])
  assert.match(page.body, new RegExp(`class="message__permalink" target="_top" href="[^"]*/rooms/${rooms.hq.id}/@${inHq!.id}"`))
  assert.match(page.body, /hq note 1/)
  assert.match(page.body, /Water Cooler/)
  assert.equal((await get(app, david, `/users/${users.david.id}/saves`)).statusCode, 200, 'their own id works as well as me')
})

test('nobody sees another person’s saved messages: their list is 404, and one’s own list holds only one’s own', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, rooms.hq.id, users.jason.id, 1, 'secret keep')
  await save(app, await signIn(app, 'david'), message!.id)
  const kevin = await signIn(app, 'kevin')
  assert.equal((await get(app, kevin, `/users/${users.david.id}/saves`)).statusCode, 404)
  assert.equal((await get(app, kevin, '/users/forged/saves')).statusCode, 404)
  const own = await get(app, kevin, '/users/me/saves')
  assert.equal(own.statusCode, 200)
  assert.deepEqual(ids(own.body), [])
  assert.match(own.body, /No saved messages yet/)
})

test('a deleted message and a room the person left drop out of the list', async (t) => {
  const { app } = await buildTestApp(t)
  const [hq] = await seed(app, rooms.hq.id, users.jason.id, 1, 'stays')
  const [gone] = await seed(app, rooms.hq.id, users.jason.id, 1, 'deleted')
  const [cooler] = await seed(app, rooms.watercooler.id, users.jason.id, 1, 'left behind')
  const kevin = await signIn(app, 'kevin')
  for (const message of [hq!, gone!, cooler!]) await save(app, kevin, message.id)
  await app.store.write((m) => removeMessage(m, gone!))
  await app.store.write((m) => m.roomMemberships.revokeFrom(rooms.watercooler.id, [users.kevin.id]))
  assert.deepEqual(ids((await get(app, kevin, '/users/me/saves')).body), [hq!.id])
})

test('a long list comes a page at a time, with a link to the older ones', async (t) => {
  const { app } = await buildTestApp(t)
  const messages = await seed(app, rooms.hq.id, users.jason.id, SAVED_PAGE_SIZE + 3, 'many')
  await app.store.write((m) => messages.forEach((message) => m.savedMessages.save(users.david.id, message.id)))
  const david = await signIn(app, 'david')
  const first = await get(app, david, '/users/me/saves')
  assert.equal(ids(first.body).length, SAVED_PAGE_SIZE)
  assert.equal(ids(first.body)[0], messages.at(-1)!.id)
  const older = first.body.match(/href="(\/users\/me\/saves\?before=\d+)">Older saved messages/)?.[1]
  assert.ok(older, 'a link to the older ones')
  const second = await get(app, david, older)
  assert.deepEqual(ids(second.body), messages.slice(0, 3).reverse().map((message) => message.id))
  assert.ok(!second.body.includes('Older saved messages'))
  for (const bad of ['abc', '-1', '1.5', '']) assert.equal((await get(app, david, `/users/me/saves?before=${encodeURIComponent(bad)}`)).statusCode, 400, bad)
})

test('bots are refused the Saved page', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal((await app.inject({ method: 'GET', url: `/users/me/saves?bot_key=${users.bender.id}-BenderToken1` })).statusCode, 403)
})
