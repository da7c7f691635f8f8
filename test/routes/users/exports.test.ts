import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, form, inject, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { post } from '../messages/support.ts'
import { botCookie } from '../rooms/support.ts'
import { jsonEntry, readZip } from '../../support/zip.ts'

test('a person exports their own messages from their profile: every room they wrote in, and nobody else’s words', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  const david = await signIn(app, 'david')
  await post(app, kevin, rooms.hq.id, '<div>Mine in HQ</div>')
  await post(app, david, rooms.hq.id, '<div>David in HQ</div>')
  await post(app, kevin, rooms.watercooler.id, '<div>Mine at the cooler</div>')

  const profile = await inject(app, kevin, { method: 'GET', url: '/users/me/profile' })
  assert.match(profile.body, /href="\/users\/me\/export"/)
  const started = await inject(app, kevin, { method: 'POST', url: '/users/me/export', ...form({}) })
  assert.equal(started.statusCode, 302)
  assert.equal(started.headers.location, '/users/me/export')
  await app.exports.settled()
  const page = await inject(app, kevin, { method: 'GET', url: '/users/me/export' })
  assert.match(page.body, /Download the export/)
  const download = await inject(app, kevin, { method: 'GET', url: '/users/me/export.zip' })
  assert.equal(download.statusCode, 200)
  const zip = await readZip(download.rawPayload)

  assert.deepEqual(jsonEntry<{ name: string; email_address: string }[]>(zip, 'people.json').map((p) => p.email_address), [users.kevin.email])
  assert.deepEqual(jsonEntry<{ id: number }[]>(zip, 'rooms.json').map((r) => r.id), [rooms.hq.id, rooms.watercooler.id])
  const texts = [rooms.hq.id, rooms.watercooler.id].flatMap((id) => jsonEntry<{ messages: { text: string }[] }>(zip, `rooms/${id}.json`).messages.map((m) => m.text))
  assert.deepEqual(texts, ['Mine in HQ', 'Mine at the cooler'])

  const davidsView = await inject(app, david, { method: 'GET', url: '/users/me/export.zip' })
  assert.equal(davidsView.statusCode, 404, 'one person’s export is not another’s to download')
})

test('a person’s export answers for them alone: someone else’s id, or a bot, is refused', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  for (const [method, url] of [['GET', `/users/${users.jz.id}/export`], ['POST', `/users/${users.jz.id}/export`], ['GET', `/users/${users.jz.id}/export.zip`], ['GET', '/users/nobody/export']] as const) {
    const response = await inject(app, kevin, { method, url, ...(method === 'POST' ? form({}) : {}) })
    assert.equal(response.statusCode, 404, `${method} ${url}`)
  }
  const own = await inject(app, kevin, { method: 'GET', url: `/users/${users.kevin.id}/export` })
  assert.equal(own.statusCode, 200)
  const bender = await botCookie(app)
  for (const [method, url] of [['GET', '/users/me/export'], ['POST', '/users/me/export'], ['GET', '/users/me/export.zip']] as const) {
    const response = await inject(app, bender, { method, url, ...(method === 'POST' ? form({}) : {}) })
    assert.equal(response.statusCode, 403, `a bot: ${method} ${url}`)
  }
})
