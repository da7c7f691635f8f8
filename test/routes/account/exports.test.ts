import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, form, inject, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { post } from '../messages/support.ts'
import { multipart } from '../../support/multipart.ts'
import { grayPng } from '../../support/images.ts'
import { jsonEntry, readZip } from '../../support/zip.ts'

interface RoomFile {
  room: { id: number; title: string }
  messages: { author: { id: number; name: string }; html: string; text: string; boosts: { content: string; by: { name: string } }[]; attachments: { path: string; filename: string }[] }[]
}

async function postPicture(app: FastifyInstance, cookie: string, roomId: number, data: Buffer) {
  const { payload, headers } = multipart([{ name: 'message[attachment]', filename: 'cat.png', type: 'image/png', data }], { accept: 'text/html' })
  const response = await inject(app, cookie, { method: 'POST', url: `/rooms/${roomId}/messages`, payload, headers })
  assert.ok(response.statusCode < 400, response.body)
}

async function prepared(app: FastifyInstance, cookie: string, fields: Record<string, string> = {}) {
  const started = await inject(app, cookie, { method: 'POST', url: '/account/export', ...form(fields) })
  assert.equal(started.statusCode, 302, started.body)
  assert.equal(started.headers.location, '/account/export')
  await app.exports.settled()
  const page = await inject(app, cookie, { method: 'GET', url: '/account/export' })
  assert.match(page.body, /Download the export/)
  const download = await inject(app, cookie, { method: 'GET', url: '/account/export.zip' })
  assert.equal(download.statusCode, 200)
  assert.equal(download.headers['content-type'], 'application/zip')
  assert.match(String(download.headers['content-disposition']), /^attachment; filename="campfire-account-export-\d{4}-\d\d-\d\d\.zip"/)
  return readZip(download.rawPayload)
}

test('an administrator prepares the account export in the background and downloads a zip with every room, message, boost and attached file', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const kevin = await signIn(app, 'kevin')
  await post(app, david, rooms.hq.id, '<div>Hello <strong>team</strong> <script>alert(1)</script></div>')
  await post(app, kevin, rooms.watercooler.id, '<div>Coffee?</div>')
  const picture = grayPng(4, 3)
  await postPicture(app, kevin, rooms.hq.id, picture)
  const coffee = app.store.read((m) => m.db.prepare('SELECT id FROM messages WHERE room_id = ?').pluck().get(rooms.watercooler.id)) as number
  const boosted = await inject(app, david, { method: 'POST', url: `/messages/${coffee}/boosts`, ...form({ 'boost[content]': '☕' }) })
  assert.ok(boosted.statusCode < 400, boosted.body)

  const before = await inject(app, david, { method: 'GET', url: '/account/export.zip' })
  assert.equal(before.statusCode, 404, 'nothing to download before the first export')
  const zip = await prepared(app, david)

  assert.deepEqual(jsonEntry<{ name: string }[]>(zip, 'people.json').map((p) => p.name), Object.values(users).map((u) => u.name))
  assert.deepEqual(jsonEntry<{ id: number }[]>(zip, 'rooms.json').map((r) => r.id), Object.values(rooms).map((r) => r.id))
  const hq = jsonEntry<RoomFile>(zip, `rooms/${rooms.hq.id}.json`)
  assert.equal(hq.room.title, 'HQ')
  assert.equal(hq.messages.length, 2)
  assert.equal(hq.messages[0]!.author.name, users.david.name)
  assert.match(hq.messages[0]!.html, /<strong>team<\/strong>/)
  assert.equal(hq.messages[0]!.text, 'Hello team ')
  const [attachment] = hq.messages[1]!.attachments
  assert.equal(attachment!.filename, 'cat.png')
  assert.deepEqual(zip.get(attachment!.path), picture, 'the attached file itself is in the zip, at the path the JSON gives')
  const watercooler = jsonEntry<RoomFile>(zip, `rooms/${rooms.watercooler.id}.json`)
  assert.deepEqual(watercooler.messages[0]!.boosts.map((b) => [b.content, b.by.name]), [['☕', users.david.name]])
  const direct = jsonEntry<RoomFile>(zip, `rooms/${rooms.david_and_jason.id}.json`)
  assert.equal(direct.room.title, `Direct messages: ${users.david.name}, ${users.jason.name}`)

  const page = zip.get(`rooms/${rooms.hq.id}.html`)!.toString('utf8')
  assert.match(page, /<h1>HQ<\/h1>/)
  assert.match(page, /Hello team/)
  assert.doesNotMatch(page, /<script|alert\(1\)<\/script>/, 'stored markup never reaches the page as markup')
  assert.match(page, new RegExp(`<img src="\\.\\./${attachment!.path.replaceAll('.', '\\.')}"`))
})

test('an administrator exports one room alone', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  await post(app, david, rooms.hq.id, '<div>Only HQ</div>')
  await post(app, david, rooms.pets.id, '<div>Not this one</div>')
  const zip = await prepared(app, david, { room_id: String(rooms.hq.id) })
  assert.deepEqual(jsonEntry<{ id: number }[]>(zip, 'rooms.json').map((r) => r.id), [rooms.hq.id])
  assert.equal(zip.has(`rooms/${rooms.pets.id}.json`), false)
})

test('an export of an unknown room, or a room field that is not a room, is refused and nothing starts', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  for (const room_id of ['999', 'hq', '-1', '1.5']) {
    const response = await inject(app, david, { method: 'POST', url: '/account/export', ...form({ room_id }) })
    assert.equal(response.statusCode, 404, room_id)
  }
  const twice = await inject(app, david, { method: 'POST', url: '/account/export', ...form({}), payload: 'room_id=1&room_id=2' })
  assert.equal(twice.statusCode, 400)
  assert.deepEqual(app.exports.status('account'), { state: 'none' })
})

test('one export runs at a time: while one is being prepared, another is refused with 409', async (t) => {
  const { app, storage } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  mkdirSync(join(storage, 'exports'), { recursive: true })
  writeFileSync(join(storage, 'exports', 'running.lock'), JSON.stringify({ owner: 'person-3', pid: process.pid, startedAt: new Date().toISOString() }))
  const refused = await inject(app, david, { method: 'POST', url: '/account/export', ...form({}) })
  assert.equal(refused.statusCode, 409)
  assert.match(refused.body, /Another export is being prepared/)
  const page = await inject(app, david, { method: 'GET', url: '/account/export' })
  assert.match(page.body, /Another export is being prepared/)
  assert.doesNotMatch(page.body, /id="export_prepare"/)
})

test('a lock left by a process that has died does not block the next export', async (t) => {
  const { app, storage } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  mkdirSync(join(storage, 'exports'), { recursive: true })
  writeFileSync(join(storage, 'exports', 'running.lock'), JSON.stringify({ owner: 'account', pid: 2 ** 22 + 12345, startedAt: '2026-01-01T00:00:00.000Z' }))
  await prepared(app, david)
})

test('members and bots may not see, start or download the account export', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  for (const [method, url] of [['GET', '/account/export'], ['POST', '/account/export'], ['GET', '/account/export.zip']] as const) {
    const response = await inject(app, kevin, { method, url, ...(method === 'POST' ? form({}) : {}) })
    assert.equal(response.statusCode, 403, `${method} ${url}`)
  }
})
