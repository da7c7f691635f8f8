import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { WEBHOOK_URL_MAX_LENGTH, webhookUrlProblem } from '../../server/models/webhook.ts'

const RAILS_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/

type Row = { id: number; user_id: number; url: string | null; created_at: string; updated_at: string }

test('saving a URL creates the bot’s one webhook row, with timestamps as Rails writes them', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.webhooks.save(users.bender.id, '  https://bots.example.com/bender  '))
  const rows = app.store.read((m) => m.db.prepare<[], Row>('SELECT * FROM webhooks').all())
  assert.equal(rows.length, 1)
  assert.equal(rows[0]!.user_id, users.bender.id)
  assert.equal(rows[0]!.url, 'https://bots.example.com/bender', 'the URL is kept trimmed')
  assert.match(rows[0]!.created_at, RAILS_TIME)
  assert.equal(rows[0]!.updated_at, rows[0]!.created_at)
  assert.equal(app.store.read((m) => m.webhooks.urlFor(users.bender.id)), 'https://bots.example.com/bender')
})

test('saving again updates that row (created_at kept, updated_at moved) and folds any extra rows into it', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.webhooks.save(users.bender.id, 'https://a.example.com/'))
  const first = app.store.read((m) => m.db.prepare<[], Row>('SELECT * FROM webhooks').get())!
  app.store.writeNow((m) => m.db.prepare("INSERT INTO webhooks (user_id, url, created_at, updated_at) VALUES (?, 'https://stray.example.com/', ?, ?)").run(users.bender.id, first.created_at, first.created_at))
  await app.store.write((m) => m.webhooks.save(users.bender.id, 'https://b.example.com/'))
  const rows = app.store.read((m) => m.db.prepare<[], Row>('SELECT * FROM webhooks').all())
  assert.deepEqual(rows.map((r) => [r.id, r.url]), [[first.id, 'https://b.example.com/']])
  assert.equal(rows[0]!.created_at, first.created_at)
  assert.ok(rows[0]!.updated_at > first.updated_at)
})

test('a blank or missing URL deletes the bot’s webhook, and a bot without one has none', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal(app.store.read((m) => m.webhooks.urlFor(users.bender.id)), null)
  for (const blank of ['', '   ', null]) {
    await app.store.write((m) => m.webhooks.save(users.bender.id, 'https://bots.example.com/'))
    await app.store.write((m) => m.webhooks.save(users.bender.id, blank))
    assert.equal(app.store.read((m) => m.webhooks.urlFor(users.bender.id)), null, `saving ${JSON.stringify(blank)}`)
    assert.equal(app.store.read((m) => m.db.prepare('SELECT count(*) FROM webhooks').pluck().get()), 0)
  }
})

test('a direct room’s recipients are its active bots with webhooks, never the creator', async (t) => {
  const { app } = await buildTestApp(t)
  const direct = rooms.bender_and_kevin.id
  assert.deepEqual(app.store.read((m) => m.webhooks.recipients(direct, users.kevin.id, true, [])), [], 'no webhook, no recipient')
  await app.store.write((m) => m.webhooks.save(users.bender.id, 'http://127.0.0.1:9/bender'))
  assert.deepEqual(app.store.read((m) => m.webhooks.recipients(direct, users.kevin.id, true, [])), [users.bender.id])
  assert.deepEqual(app.store.read((m) => m.webhooks.recipients(direct, users.bender.id, true, [])), [], 'the bot’s own message')
  assert.deepEqual(app.store.read((m) => m.webhooks.target(direct, users.bender.id)), {
    botId: users.bender.id, botName: users.bender.name, botToken: 'BenderToken1', url: 'http://127.0.0.1:9/bender',
  })
  app.store.writeNow((m) => m.db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(users.bender.id))
  assert.deepEqual(app.store.read((m) => m.webhooks.recipients(direct, users.kevin.id, true, [])), [], 'a deactivated bot')
  assert.equal(app.store.read((m) => m.webhooks.target(direct, users.bender.id)), undefined)
})

test('a shared room’s recipients are the mentioned bots that are members; people mentioned are not bots', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.webhooks.save(users.bender.id, 'http://127.0.0.1:9/bender'))
  const recipients = (roomId: number, mentioned: number[]) => app.store.read((m) => m.webhooks.recipients(roomId, users.david.id, false, mentioned))
  assert.deepEqual(recipients(rooms.hq.id, []), [])
  assert.deepEqual(recipients(rooms.hq.id, [users.kevin.id]), [])
  assert.deepEqual(recipients(rooms.hq.id, [users.kevin.id, users.bender.id]), [users.bender.id])
  assert.deepEqual(recipients(rooms.watercooler.id, [users.bender.id]), [], 'Bender is not in the Water Cooler')
})

test('a webhook URL must be http(s), without credentials, parseable and not too long', () => {
  assert.equal(webhookUrlProblem('https://bots.example.com/hook?x=1'), null)
  assert.equal(webhookUrlProblem('http://127.0.0.1:9/hook'), null, 'private addresses are decided at delivery, not here')
  assert.match(webhookUrlProblem('ftp://bots.example.com/')!, /http:\/\/ or https:\/\//)
  assert.match(webhookUrlProblem('javascript:alert(1)')!, /http:\/\/ or https:\/\//)
  assert.match(webhookUrlProblem('file:///etc/passwd')!, /http:\/\/ or https:\/\//)
  assert.match(webhookUrlProblem('https://bot:secret@bots.example.com/')!, /user name or password/)
  assert.match(webhookUrlProblem('https://bot@bots.example.com/')!, /user name or password/)
  assert.match(webhookUrlProblem('not a url')!, /not a valid URL/)
  assert.match(webhookUrlProblem('')!, /not a valid URL/)
  assert.match(webhookUrlProblem(`https://bots.example.com/${'x'.repeat(WEBHOOK_URL_MAX_LENGTH)}`)!, /too long/)
})
