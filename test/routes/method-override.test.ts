import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, inject, sameOrigin, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { post, value } from './messages/support.ts'

const JSON_HEADERS = { 'content-type': 'application/json', ...sameOrigin }
const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded', ...sameOrigin }

function sessionsOf(app: Parameters<typeof value>[0], userId: number): number {
  return value<number>(app, 'SELECT count(*) FROM sessions WHERE user_id = ?', userId) ?? 0
}

test('a _method that is an object answers 400, not 500, even before signing in', async (t) => {
  const { app } = await buildTestApp(t)
  const payloads = ['{"_method":{"toString":1}}', '{"_method":{"valueOf":1,"toString":1}}', '{"_method":{}}', '{"_method":1}', '{"_method":null}', '{"_method":true}']
  for (const payload of payloads) {
    const response = await app.inject({ method: 'POST', url: '/session', payload, headers: JSON_HEADERS })
    assert.equal(response.statusCode, 400, `POST /session ${payload} answered ${response.statusCode}`)
    assert.match(response.body, /_method/, 'the page says what was wrong')
  }
  const form = await app.inject({ method: 'POST', url: '/session', payload: '_method[a]=1', headers: FORM_HEADERS })
  assert.equal(form.statusCode, 400)
})

test('a _method that is an array is refused with 400, and does not sign anyone out', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  for (const payload of ['_method[]=delete', '_method[0]=delete', '_method=delete&_method=delete']) {
    const response = await inject(app, cookie, { method: 'POST', url: '/session', payload, headers: FORM_HEADERS })
    assert.equal(response.statusCode, 400, `${payload} answered ${response.statusCode}`)
    assert.equal(sessionsOf(app, users.kevin.id), 1, `${payload} left the session alone`)
  }
  const json = await inject(app, cookie, { method: 'POST', url: '/session', payload: '{"_method":["delete"]}', headers: JSON_HEADERS })
  assert.equal(json.statusCode, 400)
  assert.equal(sessionsOf(app, users.kevin.id), 1)
})

test('a signed-in POST with a hostile _method on a message answers 400 and changes nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const posted = await post(app, cookie, rooms.hq.id, 'keep me', 'keepme1')
  assert.equal(posted.statusCode, 200)
  const id = value<number>(app, "SELECT id FROM messages WHERE client_message_id = 'keepme1'")!
  for (const payload of ['{"_method":{"toString":1}}', '{"_method":["delete"]}']) {
    const response = await inject(app, cookie, { method: 'POST', url: `/rooms/${rooms.hq.id}/messages/${id}`, payload, headers: JSON_HEADERS })
    assert.equal(response.statusCode, 400, `${payload} answered ${response.statusCode}`)
  }
  const array = await inject(app, cookie, { method: 'POST', url: `/rooms/${rooms.hq.id}/messages/${id}`, payload: '_method[]=delete', headers: FORM_HEADERS })
  assert.equal(array.statusCode, 400)
  assert.equal(value<number>(app, 'SELECT count(*) FROM messages WHERE id = ?', id), 1, 'the message is still there')
})

test('an unknown _method string is refused with 400; put, patch and delete are read case-insensitively', async (t) => {
  const { app } = await buildTestApp(t)
  for (const method of ['get', 'head', 'options', 'trace', 'connect', 'delete ', 'x'.repeat(5000)]) {
    const response = await app.inject({ method: 'POST', url: '/session', payload: new URLSearchParams({ _method: method }).toString(), headers: FORM_HEADERS })
    assert.equal(response.statusCode, 400, `_method=${method.slice(0, 20)} answered ${response.statusCode}`)
  }
  const cookie = await signIn(app, 'kevin')
  const response = await inject(app, cookie, { method: 'POST', url: '/session', payload: '_method=DeLeTe', headers: FORM_HEADERS })
  assert.equal(response.statusCode, 302)
  assert.equal(sessionsOf(app, users.kevin.id), 0)
})

test('a _method naming a verb the URL does not have answers 405; an empty one or "post" is a plain POST', async (t) => {
  const { app } = await buildTestApp(t)
  const patch = await app.inject({ method: 'POST', url: '/session', payload: '_method=patch', headers: FORM_HEADERS })
  assert.equal(patch.statusCode, 405)
  for (const payload of ['_method=&email_address=nobody%40example.com&password=x', '_method=post&email_address=nobody%40example.com&password=x']) {
    const response = await app.inject({ method: 'POST', url: '/session', payload, headers: FORM_HEADERS })
    assert.notEqual(response.statusCode, 400, `${payload} is a sign-in attempt`)
    assert.ok(response.statusCode < 500)
  }
})
