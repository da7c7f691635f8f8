import { test } from 'node:test'
import assert from 'node:assert/strict'
import { botKey, generateBotToken, parseBotKey } from '../../../server/models/user/bot.ts'
import { createBot, resetBotKey, updateBot } from '../../../server/models/user/bot-setup.ts'
import { buildTestApp } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'

test('a bot token is 12 characters from the whole alphanumeric alphabet, different every time', () => {
  const tokens = Array.from({ length: 2000 }, generateBotToken)
  for (const token of tokens) assert.match(token, /^[A-Za-z0-9]{12}$/)
  assert.equal(new Set(tokens).size, tokens.length)
  const seen = new Set(tokens.join(''))
  assert.equal(seen.size, 62, 'every letter, upper and lower, and every digit turns up')
})

test('a key is "<id>-<token>", read back as upstream splits it (stripped, first two parts)', () => {
  assert.equal(botKey({ id: 5, bot_token: 'BenderToken1' }), '5-BenderToken1')
  assert.deepEqual(parseBotKey(' 5-BenderToken1\n'), { id: 5, token: 'BenderToken1' })
  assert.deepEqual(parseBotKey('5-BenderToken1-extra'), { id: 5, token: 'BenderToken1' })
  for (const key of ['', '5', '5-', '-token', 'abc-token', '05-token', '0-token', '5.0-token', '1e3-token', `5-${'x'.repeat(65)}`, '99999999999999999-token']) {
    assert.equal(parseBotKey(key), null, JSON.stringify(key))
  }
})

test('only an active bot’s exact key authenticates', async (t) => {
  const { app } = await buildTestApp(t)
  const auth = (key: string) => app.store.read((m) => m.bots.authenticate(key))?.id
  assert.equal(auth('5-BenderToken1'), users.bender.id)
  for (const key of ['5-BenderToken2', '5-bendertoken1', '5-BenderToken', '5-BenderToken11', `${users.kevin.id}-BenderToken1`, '4-', '5-']) assert.equal(auth(key), undefined, key)
  await app.store.write((m) => m.db.prepare(`UPDATE users SET bot_token = 'KevinsToken1' WHERE id = ${users.kevin.id}`).run())
  assert.equal(auth(`${users.kevin.id}-KevinsToken1`), undefined, 'a person with a token is still no bot')
  await app.store.write((m) => m.deactivatable.deactivate(users.bender.id))
  assert.equal(auth('5-BenderToken1'), undefined)
})

test('createBot makes the bot, its open-room memberships and its webhook in one go; updateBot and resetBotKey change only bots', async (t) => {
  const { app } = await buildTestApp(t)
  const id = await app.store.write((m) => createBot(m, { name: 'Hook Bot', webhookUrl: 'http://127.0.0.1:9/hook' }))
  const row = app.store.read((m) => m.bots.findActive(id))!
  assert.equal(row.name, 'Hook Bot')
  assert.deepEqual(app.store.read((m) => m.db.prepare('SELECT room_id FROM memberships WHERE user_id = ? ORDER BY room_id').pluck().all(id)), [rooms.pets.id, rooms.hq.id])
  assert.equal(app.store.read((m) => m.webhooks.urlFor(id)), 'http://127.0.0.1:9/hook')
  assert.equal(await app.store.write((m) => updateBot(m, id, { name: 'Renamed Bot', webhookUrl: null })), true)
  assert.equal(app.store.read((m) => m.webhooks.urlFor(id)), null)
  assert.equal(await app.store.write((m) => updateBot(m, users.kevin.id, { name: 'Not a bot' })), false)
  assert.equal(await app.store.write((m) => resetBotKey(m, users.kevin.id)), false)
  assert.equal(app.store.read((m) => m.users.find(users.kevin.id))!.name, users.kevin.name)
  assert.equal(await app.store.write((m) => resetBotKey(m, id)), true)
  assert.notEqual(app.store.read((m) => m.bots.findActive(id))!.bot_token, row.bot_token)
})

test('the shared rooms of each bot come by name, without pings', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.memberships.grant(rooms.watercooler.id, users.bender.id))
  const byBot = app.store.read((m) => m.bots.sharedRoomsOf([users.bender.id, 999]))
  assert.deepEqual(byBot.get(users.bender.id)!.map((room) => room.name), ['All Pets', 'HQ', 'Water Cooler'])
  assert.deepEqual(byBot.get(999), [])
})
