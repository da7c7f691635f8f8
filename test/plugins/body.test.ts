import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, form, inject, sameOrigin, signIn } from '../helper.ts'
import { users } from '../fixtures.ts'
import { CONTENT_TYPE_LIMIT } from '../../server/plugins/body.ts'
import { value } from '../routes/users/support.ts'

const BOT = `/account/bots/${users.bender.id}`
const HOOK = 'https://hooks.example.com/bender'

async function withWebhook(t: Parameters<typeof buildTestApp>[0]) {
  const built = await buildTestApp(t)
  const cookie = await signIn(built.app, 'david')
  const saved = await inject(built.app, cookie, { method: 'PATCH', url: BOT, ...form({ 'user[name]': 'Bender Bot', 'user[webhook_url]': HOOK }) })
  assert.equal(saved.statusCode, 302)
  assert.equal(webhookOf(built.app), HOOK)
  return { ...built, cookie }
}

function webhookOf(app: FastifyInstance): string | undefined {
  return value<string | undefined>(app, 'SELECT url FROM webhooks WHERE user_id = ?', users.bender.id)
}

const NOT_FORMS: ReadonlyArray<readonly [string, string | undefined, string, number]> = [
  ['a text/plain body', 'text/plain', 'user[webhook_url]=', 415],
  ['a JSON array', 'application/json', '[]', 400],
  ['a JSON string', 'application/json', '"user"', 400],
  ['a body with no Content-Type', undefined, 'user[webhook_url]=', 415],
  ['a form in a made-up charset', 'application/x-www-form-urlencoded; charset=utf-9999', 'user[webhook_url]=', 415],
  ['a form in Latin-1', 'application/x-www-form-urlencoded; charset=iso-8859-1', 'user[webhook_url]=', 415],
  [`a Content-Type of 9,000 characters`, `application/x-www-form-urlencoded; x=${'y'.repeat(9000)}`, 'user[webhook_url]=', 415],
  ['a form with an undecodable escape', 'application/x-www-form-urlencoded', 'user[name]=%E0%A4%A&user[webhook_url]=', 400],
]

for (const [label, type, payload, status] of NOT_FORMS) {
  test(`PATCH of a bot with ${label} answers ${status} and leaves its webhook URL alone`, async (t) => {
    const { app, cookie } = await withWebhook(t)
    const headers: Record<string, string> = { ...sameOrigin }
    if (type !== undefined) headers['content-type'] = type
    const response = await inject(app, cookie, { method: 'PATCH', url: BOT, headers, payload })
    assert.equal(response.statusCode, status, response.body.slice(0, 300))
    assert.equal(webhookOf(app), HOOK)
    assert.equal(value(app, 'SELECT name FROM users WHERE id = ?', users.bender.id), 'Bender Bot')
  })
}

test('a Content-Type at the limit is read, one character over it is refused', async (t) => {
  const { app, cookie } = await withWebhook(t)
  const prefix = 'application/x-www-form-urlencoded; x='
  const type = (length: number) => prefix + 'y'.repeat(length - prefix.length)
  assert.equal(type(CONTENT_TYPE_LIMIT).length, CONTENT_TYPE_LIMIT)
  const send = (contentType: string) => inject(app, cookie, { method: 'PATCH', url: BOT, headers: { ...sameOrigin, 'content-type': contentType }, payload: 'user[name]=Bender%20Two' })
  assert.equal((await send(type(CONTENT_TYPE_LIMIT + 1))).statusCode, 415)
  assert.equal((await send(type(CONTENT_TYPE_LIMIT))).statusCode, 302)
  assert.equal(value(app, 'SELECT name FROM users WHERE id = ?', users.bender.id), 'Bender Two')
})

test('a UTF-8 form, with or without its charset named, and a JSON object are still read (a form without user[webhook_url] removes the webhook, as upstream’s does)', async (t) => {
  const { app, cookie } = await withWebhook(t)
  for (const [type, payload, name] of [
    ['application/x-www-form-urlencoded; charset=UTF-8', 'user[name]=B%C3%A9nder+One', 'Bénder One'],
    ['application/x-www-form-urlencoded', 'user[name]=Bender+Two', 'Bender Two'],
    ['application/json', JSON.stringify({ user: { name: 'Bender Three' } }), 'Bender Three'],
  ] as const) {
    const response = await inject(app, cookie, { method: 'PATCH', url: BOT, headers: { ...sameOrigin, 'content-type': type }, payload })
    assert.equal(response.statusCode, 302, `${type}: ${response.body.slice(0, 200)}`)
    assert.equal(value(app, 'SELECT name FROM users WHERE id = ?', users.bender.id), name)
  }
  assert.equal(webhookOf(app), undefined)
})
