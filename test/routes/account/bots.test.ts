import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { connect, startCableApp } from '../../cable/cable-helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { buildTestApp, inject, signIn } from '../../helper.ts'
import { BENDER_KEY, botMessagesUrl, botRequest } from '../messages/bot-support.ts'
import { htmlUnescape } from '../messages/support.ts'
import { botCookie, get, send } from '../rooms/support.ts'
import { filesUnder, multipartBody, png, sendMultipart, value } from '../users/support.ts'

type BotRow = { id: number; name: string; role: number; status: number; bot_token: string; email_address: string | null; password_digest: string | null }

const bot = (app: FastifyInstance, id: number) => app.store.read((m) => m.db.prepare('SELECT id, name, role, status, bot_token, email_address, password_digest FROM users WHERE id = ?').get(id)) as BotRow | undefined
const newestBot = (app: FastifyInstance) => app.store.read((m) => m.db.prepare('SELECT id, name, role, status, bot_token, email_address, password_digest FROM users WHERE role = 2 ORDER BY id DESC LIMIT 1').get()) as BotRow
const botCount = (app: FastifyInstance) => value<number>(app, 'SELECT count(*) FROM users WHERE role = 2')
const webhookOf = (app: FastifyInstance, id: number) => app.store.read((m) => m.webhooks.urlFor(id))
const roomsOf = (app: FastifyInstance, id: number) => app.store.read((m) => m.db.prepare('SELECT room_id FROM memberships WHERE user_id = ? ORDER BY room_id').pluck().all(id)) as number[]

// The value of the read-only box with this accessible name, for each box there is.
function textboxes(html: string, label: string): string[] {
  return [...html.matchAll(/<input\b[^>]*>/g)]
    .map((match) => match[0])
    .filter((tag) => tag.includes(`aria-label="${label}"`) && / readonly\b/.test(tag))
    .map((tag) => htmlUnescape(/ value="([^"]*)"/.exec(tag)![1]!))
}

function alertOf(response: LightMyRequestResponse): string | undefined {
  return /role="alert">([^<]*)</.exec(response.body)?.[1]
}

function typedValue(response: LightMyRequestResponse, name: string): string | undefined {
  const tag = new RegExp(`<input\\b[^>]*name="${name.replace(/[[\]]/g, '\\$&')}"[^>]*>`).exec(response.body)?.[0]
  const found = tag && / value="([^"]*)"/.exec(tag)
  return found ? htmlUnescape(found[1]!) : undefined
}

test('the list shows each active bot with an "Edit <name>" link and, for each shared room it is in, the exact curl lines', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'david'), '/account/bots')
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<title>Chat bots<\/title>/)
  assert.match(response.body, new RegExp(`<a href="/account/bots/${users.bender.id}/edit"[^>]*>.*Edit Bender Bot</span></a>`))
  const url = (roomId: number) => `http://localhost:80/rooms/${roomId}/${BENDER_KEY}/messages`
  assert.deepEqual(textboxes(response.body, 'curl command for posting messages'), [`curl -d 'Hello!' ${url(rooms.pets.id)}`, `curl -d 'Hello!' ${url(rooms.hq.id)}`])
  assert.deepEqual(textboxes(response.body, 'curl command for posting attachments'), [`curl -F "attachment=@/path/to/file" ${url(rooms.pets.id)}`, `curl -F "attachment=@/path/to/file" ${url(rooms.hq.id)}`])
  assert.doesNotMatch(response.body, new RegExp(`/rooms/${rooms.bender_and_kevin.id}/`), 'no lines for pings')
  assert.match(response.body, /href="\/account\/bots\/new"/)
})

test('the curl line in the list posts to its room, as the bot', async (t) => {
  const { app } = await buildTestApp(t)
  const [line] = textboxes((await get(app, await signIn(app, 'david'), '/account/bots')).body, 'curl command for posting messages')
  const url = new URL(/(http\S+)$/.exec(line!)![1]!)
  const response = await botRequest(app, 'POST', url.pathname, 'Hello!')
  assert.equal(response.statusCode, 201)
})

test('only administrators reach the bots pages: members and bots get 403, and nobody signed in is sent to sign in', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  const bender = await botCookie(app)
  for (const cookie of [kevin, bender]) {
    for (const url of ['/account/bots', '/account/bots/new', `/account/bots/${users.bender.id}/edit`]) assert.equal((await get(app, cookie, url)).statusCode, 403, url)
    assert.equal((await send(app, cookie, 'POST', '/account/bots', [['user[name]', 'Sneaky']])).statusCode, 403)
    assert.equal((await send(app, cookie, 'PATCH', `/account/bots/${users.bender.id}`, [['user[name]', 'Sneaky']])).statusCode, 403)
    assert.equal((await send(app, cookie, 'DELETE', `/account/bots/${users.bender.id}`)).statusCode, 403)
    assert.equal((await send(app, cookie, 'PATCH', `/account/bots/${users.bender.id}/key`)).statusCode, 403)
  }
  assert.equal((await app.inject({ url: '/account/bots' })).headers.location, '/session/new')
  assert.equal(botCount(app), 1)
  assert.deepEqual(bot(app, users.bender.id), { id: users.bender.id, name: 'Bender Bot', role: 2, status: 0, bot_token: 'BenderToken1', email_address: null, password_digest: null })
})

test('the new form names its field "Name the bot" and its button "Save changes"', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'david'), '/account/bots/new')
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<form class="bot-form[^"]*" action="\/account\/bots" method="post" enctype="multipart\/form-data"/)
  assert.match(response.body, /<input type="text" name="user\[name\]"[^>]*placeholder="Name the bot" required/)
  assert.match(response.body, /<input type="url" name="user\[webhook_url\]"/)
  assert.match(response.body, /<input type="file" name="user\[avatar\]"/)
  assert.match(response.body, /<button [^>]*type="submit"[^>]*>.*<span class="for-screen-reader">Save changes<\/span><\/button>/)
})

test('creating a bot makes a role=bot user with a 12-character key that joins every open room, and goes back to the list', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await send(app, cookie, 'POST', '/account/bots', [['user[name]', '  Deploy Bot  '], ['user[webhook_url]', '']])
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/account/bots')
  const created = newestBot(app)
  assert.deepEqual({ ...created, bot_token: undefined }, { id: created.id, name: 'Deploy Bot', role: 2, status: 0, bot_token: undefined, email_address: null, password_digest: null })
  assert.match(created.bot_token, /^[A-Za-z0-9]{12}$/)
  assert.deepEqual(roomsOf(app, created.id), [rooms.pets.id, rooms.hq.id], 'open rooms, as people who join')
  assert.equal(webhookOf(app, created.id), null)
  const list = await get(app, cookie, '/account/bots')
  assert.match(list.body, /Edit Deploy Bot/)
  assert.ok(textboxes(list.body, 'curl command for posting messages').includes(`curl -d 'Hello!' http://localhost:80/rooms/${rooms.pets.id}/${created.id}-${created.bot_token}/messages`))
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.hq.id, `${created.id}-${created.bot_token}`), 'First!')).statusCode, 201)
})

test('a bot is created from the multipart form with its avatar and webhook URL in one go', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const body = multipartBody([['user[name]', 'Picture Bot'], ['user[webhook_url]', ' https://hooks.example.com/campfire?token=abc ']], { name: 'user[avatar]', filename: 'bot.png', type: 'image/png', bytes: await png(64, 64) })
  const response = await sendMultipart(app, cookie, '/account/bots', body)
  assert.equal(response.statusCode, 302)
  const created = newestBot(app)
  assert.equal(created.name, 'Picture Bot')
  assert.equal(webhookOf(app, created.id), 'https://hooks.example.com/campfire?token=abc')
  assert.ok(app.store.read((m) => m.avatars.originalFor(created.id)), 'the avatar is attached')
  const avatar = await inject(app, cookie, { url: app.helpers.avatarPath(app.store.read((m) => m.users.find(created.id)!)) })
  assert.equal(avatar.headers['content-type'], 'image/webp')
})

test('an empty file input is no avatar, and a bot without one is drawn as a bot', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const body = multipartBody([['user[name]', 'Plain Bot'], ['user[webhook_url]', '']], { name: 'user[avatar]', filename: '', type: 'application/octet-stream', bytes: Buffer.alloc(0) })
  assert.equal((await sendMultipart(app, cookie, '/account/bots', body)).statusCode, 302)
  const created = newestBot(app)
  assert.equal(app.store.read((m) => m.avatars.originalFor(created.id)), undefined)
  const avatar = await inject(app, cookie, { url: app.helpers.avatarPath({ id: created.id, updated_at: app.store.read((m) => m.users.find(created.id)!.updated_at) }) })
  assert.equal(avatar.headers['content-type'], 'image/svg+xml')
})

test('a refused new bot is a 422 on the form, with what was typed kept and nothing made or left on disk', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const cases: [string, [string, string][], RegExp][] = [
    ['no name', [['user[name]', '   '], ['user[webhook_url]', 'https://hooks.example.com/x']], /name the bot/],
    ['a name too long', [['user[name]', 'x'.repeat(256)], ['user[webhook_url]', 'https://hooks.example.com/x']], /name the bot/],
    ['no name field at all', [['user[webhook_url]', 'https://hooks.example.com/x']], /name the bot/],
    ['an ftp webhook', [['user[name]', 'Typed Bot'], ['user[webhook_url]', 'ftp://hooks.example.com/x']], /http:\/\/ or https:\/\//],
    ['a javascript webhook', [['user[name]', 'Typed Bot'], ['user[webhook_url]', 'javascript:alert(1)']], /http:\/\/ or https:\/\//],
    ['a webhook with credentials', [['user[name]', 'Typed Bot'], ['user[webhook_url]', 'https://user:secret@hooks.example.com/x']], /user name or password/],
    ['a webhook that is not a URL', [['user[name]', 'Typed Bot'], ['user[webhook_url]', 'not a url']], /not a valid URL/],
  ]
  for (const [label, fields, message] of cases) {
    const response = await send(app, cookie, 'POST', '/account/bots', fields)
    assert.equal(response.statusCode, 422, label)
    assert.match(alertOf(response) ?? '', message, label)
    for (const [name, typed] of fields) assert.equal(typedValue(response, name), typed, `${label}: ${name} kept`)
  }
  const notAPicture = multipartBody([['user[name]', 'Typed Bot']], { name: 'user[avatar]', filename: 'bot.png', type: 'image/png', bytes: Buffer.from('not a picture') })
  const refused = await sendMultipart(app, cookie, '/account/bots', notAPicture)
  assert.equal(refused.statusCode, 422)
  assert.equal(typedValue(refused, 'user[name]'), 'Typed Bot')
  const badUrlWithFile = multipartBody([['user[name]', 'Typed Bot'], ['user[webhook_url]', 'ftp://x']], { name: 'user[avatar]', filename: 'bot.png', type: 'image/png', bytes: await png(32, 32) })
  assert.equal((await sendMultipart(app, cookie, '/account/bots', badUrlWithFile)).statusCode, 422)
  assert.equal(botCount(app), 1)
  assert.deepEqual(filesUnder(config.filesPath).filter((path) => !path.includes('/tmp/')), [])
})

test('a malformed bot form is a 400', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  assert.equal((await send(app, cookie, 'POST', '/account/bots', [['user[name][]', 'x']])).statusCode, 400)
  assert.equal((await send(app, cookie, 'POST', '/account/bots', [['user', 'x']])).statusCode, 400)
  assert.equal((await inject(app, cookie, { method: 'POST', url: '/account/bots', payload: 'x', headers: { 'content-type': 'multipart/form-data', 'sec-fetch-site': 'same-origin' } })).statusCode, 400)
  assert.equal(botCount(app), 1)
})

test('the edit form shows the name and webhook URL; saving renames the bot and changes its webhook', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  await app.store.write((m) => m.webhooks.save(users.bender.id, 'http://127.0.0.1:9/bender'))
  const edit = await get(app, cookie, `/account/bots/${users.bender.id}/edit`)
  assert.equal(edit.statusCode, 200)
  assert.equal(typedValue(edit, 'user[name]'), 'Bender Bot')
  assert.equal(typedValue(edit, 'user[webhook_url]'), 'http://127.0.0.1:9/bender')
  assert.match(edit.body, new RegExp(`<form class="bot-form[^"]*" action="/account/bots/${users.bender.id}" method="post" enctype="multipart/form-data"[\\s\\S]*name="_method" value="patch"`))
  const saved = await send(app, cookie, 'PATCH', `/account/bots/${users.bender.id}`, [['user[name]', 'Bender Bending Rodríguez'], ['user[webhook_url]', 'https://hooks.example.com/bender']])
  assert.equal(saved.statusCode, 302)
  assert.equal(saved.headers.location, '/account/bots')
  assert.equal(bot(app, users.bender.id)?.name, 'Bender Bending Rodríguez')
  assert.equal(webhookOf(app, users.bender.id), 'https://hooks.example.com/bender')
  assert.equal(bot(app, users.bender.id)?.bot_token, 'BenderToken1', 'the key stays')
  assert.match((await get(app, cookie, '/account/bots')).body, /Edit Bender Bending Rodríguez/)
})

test('a blank webhook URL, or none sent (as upstream), removes the webhook', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  await app.store.write((m) => m.webhooks.save(users.bender.id, 'http://127.0.0.1:9/bender'))
  assert.equal((await send(app, cookie, 'PUT', `/account/bots/${users.bender.id}`, [['user[name]', 'Bender Bot'], ['user[webhook_url]', '  ']])).statusCode, 302)
  assert.equal(webhookOf(app, users.bender.id), null)
  await app.store.write((m) => m.webhooks.save(users.bender.id, 'http://127.0.0.1:9/bender'))
  assert.equal((await send(app, cookie, 'PATCH', `/account/bots/${users.bender.id}`, [['user[name]', 'Bender Bot']])).statusCode, 302)
  assert.equal(webhookOf(app, users.bender.id), null)
})

test('the multipart edit form (POST with _method=patch) changes the avatar with the rest', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const body = multipartBody([['_method', 'patch'], ['user[name]', 'Shiny Bender'], ['user[webhook_url]', '']], { name: 'user[avatar]', filename: 'bender.png', type: 'image/png', bytes: await png(80, 80) })
  assert.equal((await sendMultipart(app, cookie, `/account/bots/${users.bender.id}`, body)).statusCode, 302)
  assert.equal(bot(app, users.bender.id)?.name, 'Shiny Bender')
  assert.ok(app.store.read((m) => m.avatars.originalFor(users.bender.id)))
  const unknownVerb = multipartBody([['_method', 'fly'], ['user[name]', 'x']])
  assert.equal((await sendMultipart(app, cookie, `/account/bots/${users.bender.id}`, unknownVerb)).statusCode, 400)
  assert.equal(bot(app, users.bender.id)?.name, 'Shiny Bender')
})

test('a refused edit is a 422 on the edit form with what was typed', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await send(app, cookie, 'PATCH', `/account/bots/${users.bender.id}`, [['user[name]', 'Renamed'], ['user[webhook_url]', 'https://a:b@hooks.example.com']])
  assert.equal(response.statusCode, 422)
  assert.equal(typedValue(response, 'user[name]'), 'Renamed')
  assert.equal(typedValue(response, 'user[webhook_url]'), 'https://a:b@hooks.example.com')
  assert.match(response.body, /Edit Bender Bot/)
  assert.equal((await send(app, cookie, 'PATCH', `/account/bots/${users.bender.id}`, [['user[name]', '']])).statusCode, 422)
  assert.equal(bot(app, users.bender.id)?.name, 'Bender Bot')
})

test('people, deactivated bots and unknown ids are not bots to edit: 404', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  await app.store.write((m) => m.db.prepare("INSERT INTO users (id, name, role, status, bot_token, created_at, updated_at) VALUES (40, 'Gone Bot', 2, 1, 'GoneBotToken', '2026-03-01', '2026-03-01')").run())
  for (const id of [String(users.kevin.id), '40', '999', 'abc', '0']) {
    assert.equal((await get(app, cookie, `/account/bots/${id}/edit`)).statusCode, 404, id)
    assert.equal((await send(app, cookie, 'PATCH', `/account/bots/${id}`, [['user[name]', 'x']])).statusCode, 404, id)
    assert.equal((await send(app, cookie, 'DELETE', `/account/bots/${id}`)).statusCode, 404, id)
    assert.equal((await send(app, cookie, 'PATCH', `/account/bots/${id}/key`)).statusCode, 404, id)
  }
  assert.equal(bot(app, users.kevin.id)?.name, users.kevin.name)
})

test('deleting a bot deactivates it: it leaves its shared rooms, keeps its pings, its key stops working and its socket closes', async (t) => {
  const cable = await startCableApp(t)
  const { app } = cable
  const socket = await connect(t, cable, { cookie: await botCookie(app) })
  const cookie = await cable.cookie('david')
  const edit = await get(app, cookie, `/account/bots/${users.bender.id}/edit`)
  assert.match(edit.body, new RegExp(`action="/account/bots/${users.bender.id}">\\s*<input type="hidden" name="_method" value="delete">\\s*<button [^>]*data-turbo-confirm="[^"]+"`))
  const response = await send(app, cookie, 'POST', `/account/bots/${users.bender.id}`, [['_method', 'delete']])
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/account/bots')
  assert.equal(bot(app, users.bender.id)?.status, 1)
  assert.deepEqual(roomsOf(app, users.bender.id), [rooms.bender_and_kevin.id])
  assert.equal(await socket.closed(), 1000)
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.bender_and_kevin.id), 'still here?')).statusCode, 302)
  assert.doesNotMatch((await get(app, cookie, '/account/bots')).body, /Bender Bot/)
  assert.equal((await send(app, cookie, 'DELETE', `/account/bots/${users.bender.id}`)).statusCode, 404)
})

test('resetting the key, after a confirmation, gives a new 12-character token: the old key stops working and the new one works', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const edit = await get(app, cookie, `/account/bots/${users.bender.id}/edit`)
  assert.match(edit.body, new RegExp(`action="/account/bots/${users.bender.id}/key">\\s*<input type="hidden" name="_method" value="patch">\\s*<button [^>]*data-turbo-confirm="[^"]+"`))
  const tokens = new Set(['BenderToken1'])
  for (const [method, fields] of [['PATCH', []], ['PUT', []], ['POST', [['_method', 'patch']]]] as ['PATCH' | 'PUT' | 'POST', [string, string][]][]) {
    const response = await send(app, cookie, method, `/account/bots/${users.bender.id}/key`, fields)
    assert.equal(response.statusCode, 302, method)
    assert.equal(response.headers.location, '/account/bots')
    const token = bot(app, users.bender.id)!.bot_token
    assert.match(token, /^[A-Za-z0-9]{12}$/)
    assert.ok(!tokens.has(token), 'a new token each time')
    tokens.add(token)
  }
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), 'old key')).statusCode, 302)
  const key = `${users.bender.id}-${bot(app, users.bender.id)!.bot_token}`
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id, key), 'new key')).statusCode, 201)
  assert.ok(textboxes((await get(app, cookie, '/account/bots')).body, 'curl command for posting messages').every((line) => line.includes(`/${key}/messages`)))
})
