import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { connect, identifiers, startCableApp } from '../../../cable/cable-helper.ts'
import { rooms, users } from '../../../fixtures.ts'
import { buildTestApp } from '../../../helper.ts'
import { BENDER_KEY, botMessagesUrl, botRequest } from '../bot-support.ts'
import { seed } from '../support.ts'

const boostsUrl = (roomId: number, messageId: number | string, rest = '', key = BENDER_KEY) => botMessagesUrl(roomId, key, `/${messageId}/boosts${rest}`)
const boostsOf = (app: FastifyInstance, messageId: number) => app.store.read((m) => m.boosts.forMessage(messageId))

test('a bot boosts a message with the raw body as the content and gets the boost’s JSON with a 201', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, rooms.pets.id, users.jz.id, 1)
  const response = await botRequest(app, 'POST', boostsUrl(rooms.pets.id, message!.id), '👀')
  assert.equal(response.statusCode, 201)
  const [boost] = boostsOf(app, message!.id)
  assert.deepEqual([boost!.content, boost!.booster_id], ['👀', users.bender.id])
  const json = JSON.parse(response.body) as Record<string, unknown>
  const avatar = app.helpers.avatarPath({ id: users.bender.id, updated_at: app.store.read((m) => m.users.find(users.bender.id)!.updated_at) })
  assert.deepEqual(json, {
    id: boost!.id,
    content: '👀',
    created_at: json.created_at,
    booster: { id: users.bender.id, name: 'Bender Bot', role: 'bot', avatar_url: `http://localhost:80${avatar}` },
    message: { id: message!.id, url: `http://localhost:80/rooms/${rooms.pets.id}/messages/${message!.id}` },
  })
  assert.match(String(json.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  assert.equal((await botRequest(app, 'POST', boostsUrl(rooms.pets.id, message!.id), 'Nice!')).statusCode, 201, 'text is a boost too')
})

test('a blank boost is a 422, one longer than a boost may be a 422, bytes that are not UTF-8 a 400; none is stored', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, rooms.pets.id, users.jz.id, 1)
  for (const payload of [undefined, '', '   ']) assert.equal((await botRequest(app, 'POST', boostsUrl(rooms.pets.id, message!.id), payload)).statusCode, 422)
  assert.equal((await botRequest(app, 'POST', boostsUrl(rooms.pets.id, message!.id), 'x'.repeat(17))).statusCode, 422)
  assert.equal((await botRequest(app, 'POST', boostsUrl(rooms.pets.id, message!.id), Buffer.from([0xff]))).statusCode, 400)
  assert.equal(boostsOf(app, message!.id).length, 0)
})

test('a message outside the room, a room the bot is not in, or a bad key boost nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const [elsewhere] = await seed(app, rooms.designers.id, users.jz.id, 1)
  const [here] = await seed(app, rooms.pets.id, users.jz.id, 1)
  assert.equal((await botRequest(app, 'POST', boostsUrl(rooms.pets.id, elsewhere!.id), '👀')).statusCode, 404)
  assert.equal((await botRequest(app, 'POST', boostsUrl(rooms.designers.id, elsewhere!.id), '👀')).statusCode, 404)
  assert.equal((await botRequest(app, 'POST', boostsUrl(rooms.pets.id, 'abc'), '👀')).statusCode, 404)
  const forged = await botRequest(app, 'POST', boostsUrl(rooms.pets.id, here!.id, '', `${users.kevin.id}-`), '👀')
  assert.equal(forged.statusCode, 302)
  assert.equal(boostsOf(app, elsewhere!.id).length + boostsOf(app, here!.id).length, 0)
})

test('a bot takes back its own boost with a 204; anyone else’s boost, or one on another message, is a 404', async (t) => {
  const { app } = await buildTestApp(t)
  const [message, other] = await seed(app, rooms.pets.id, users.jz.id, 2)
  const mine = JSON.parse((await botRequest(app, 'POST', boostsUrl(rooms.pets.id, message!.id), '👍')).body) as { id: number }
  const theirs = await app.store.write((m) => m.boosts.create(message!.id, users.kevin.id, '🎉'))
  assert.equal((await botRequest(app, 'DELETE', boostsUrl(rooms.pets.id, message!.id, `/${theirs.id}`))).statusCode, 404)
  assert.equal((await botRequest(app, 'DELETE', boostsUrl(rooms.pets.id, other!.id, `/${mine.id}`))).statusCode, 404)
  assert.equal((await botRequest(app, 'DELETE', boostsUrl(rooms.pets.id, message!.id, '/abc'))).statusCode, 404)
  const deleted = await botRequest(app, 'DELETE', boostsUrl(rooms.pets.id, message!.id, `/${mine.id}`))
  assert.equal(deleted.statusCode, 204)
  assert.deepEqual(boostsOf(app, message!.id).map((boost) => boost.id), [theirs.id])
})

test('a bot’s boost and its removal reach the room over a real socket', async (t) => {
  const cable = await startCableApp(t)
  const [message] = await seed(cable.app, rooms.pets.id, users.jz.id, 1)
  const watcher = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  const messagesId = identifiers.roomMessages(cable.app, 'pets')
  watcher.subscribe(messagesId)
  await watcher.confirmed(messagesId)
  const boost = JSON.parse((await botRequest(cable.app, 'POST', boostsUrl(rooms.pets.id, message!.id), '🔥')).body) as { id: number }
  await watcher.until(() => watcher.messages(messagesId).length === 1)
  assert.match(String(watcher.messages(messagesId)[0]), /action="append" target="boosts_message_[^"]+"[\s\S]*🔥/)
  await botRequest(cable.app, 'DELETE', boostsUrl(rooms.pets.id, message!.id, `/${boost.id}`))
  await watcher.until(() => watcher.messages(messagesId).length === 2)
  assert.match(String(watcher.messages(messagesId)[1]), new RegExp(`action="remove" target="[^"]*${boost.id}"`))
})
