import { test } from 'node:test'
import assert from 'node:assert/strict'
import { statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { buildTestApp, form, inject, signIn } from '../helper.ts'
import { rooms } from '../fixtures.ts'
import { multipart } from '../support/multipart.ts'
import { grayPng } from '../support/images.ts'
import { post } from '../routes/messages/support.ts'
import { botMessagesUrl, botRequest } from '../routes/messages/bot-support.ts'

// The reserve is set against what the test machine's temporary folder really has free, so a
// real statfs puts the server below it.
function freeMegabytes(): number {
  const stats = statfsSync(tmpdir())
  return (stats.bavail * stats.bsize) / 1024 / 1024
}

test('below CAMPFIRE_MIN_FREE_MB uploads are refused with 507 while text posts still go through', async (t) => {
  const { app } = await buildTestApp(t, { env: { CAMPFIRE_MIN_FREE_MB: String(Math.ceil(freeMegabytes() * 2)) } })
  assert.equal(app.diskSpace.monitor.level, 'low')
  const david = await signIn(app, 'david')
  const { payload, headers } = multipart([{ name: 'message[attachment]', filename: 'gray.png', type: 'image/png', data: grayPng(8, 8) }], { accept: 'text/vnd.turbo-stream.html, text/html' })
  const upload = await inject(app, david, { method: 'POST', url: `/rooms/${rooms.hq.id}/messages`, payload, headers })
  assert.equal(upload.statusCode, 507)
  assert.equal(upload.headers['retry-after'], '60')
  assert.match(String(upload.headers['content-type']), /^text\/vnd\.turbo-stream\.html/)
  assert.match(upload.body, /<turbo-stream action="append" target="composer-refusals"><template>.*out of disk space/)

  const text = await post(app, david, rooms.hq.id, 'Still here')
  assert.equal(text.statusCode, 200)
})

test('below a quarter of CAMPFIRE_MIN_FREE_MB other writes are refused (a page for a browser, JSON for a bot), while sign-ins, text posts and reading go on', async (t) => {
  const { app } = await buildTestApp(t, { env: { CAMPFIRE_MIN_FREE_MB: String(Math.ceil(freeMegabytes() * 8)) } })
  assert.equal(app.diskSpace.monitor.level, 'full')
  const signingIn = await app.inject({ method: 'POST', url: '/session', ...form({ email_address: 'david@example.com', password: 'x' }) })
  assert.notEqual(signingIn.statusCode, 507, 'a sign-in is tried')
  const david = await signIn(app, 'david')
  assert.equal((await post(app, david, rooms.hq.id, 'Still posting')).statusCode, 200)
  assert.equal((await botRequest(app, 'POST', botMessagesUrl(rooms.hq.id), 'Hello')).statusCode, 201)

  const room = await inject(app, david, { method: 'POST', url: '/rooms/opens', ...form({ 'room[name]': 'Lunch' }) })
  assert.equal(room.statusCode, 507)
  assert.match(room.body, /Error 507.*<h1>The server is out of disk space/s)
  const { payload, headers } = multipart([{ name: 'attachment', filename: 'gray.png', type: 'image/png', data: grayPng(8, 8) }])
  const bot = await botRequest(app, 'POST', botMessagesUrl(rooms.hq.id), payload, headers)
  assert.equal(bot.statusCode, 507)
  assert.deepEqual(bot.json(), { error: 'The server is out of disk space, so nothing was saved. Try again in a few minutes.', status: 507 })

  const page = await app.inject({ method: 'GET', url: '/session/new' })
  assert.equal(page.statusCode, 200, 'reads are not refused')
})
