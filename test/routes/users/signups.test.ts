import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helper.ts'
import { filesUnder, multipartBody, png, rows, sendMultipart, value } from './support.ts'

const JOIN_CODE = 'Ab12-Cd34-Ef56'
const PERSON: [string, string][] = [['user[name]', 'Ruby Newcomer'], ['user[email_address]', 'ruby@example.com'], ['user[password]', 'a-new-password']]

test('joining with an avatar signs the person in with their picture and its square already made', async (t) => {
  const { app } = await buildTestApp(t)
  const body = multipartBody(PERSON, { name: 'user[avatar]', filename: 'ruby.png', type: 'image/png', bytes: await png(640, 640) })
  const response = await sendMultipart(app, '', `/join/${JOIN_CODE}`, body)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
  assert.ok(response.cookies.some((c) => c.name === 'session_token'))
  const id = value<number>(app, "SELECT id FROM users WHERE email_address = 'ruby@example.com'")
  assert.deepEqual(rows(app, "SELECT name, record_type, record_id FROM active_storage_attachments WHERE record_type = 'User'"), [{ name: 'avatar', record_type: 'User', record_id: id }])
  assert.deepEqual(rows(app, 'SELECT filename FROM active_storage_blobs ORDER BY id'), [{ filename: 'ruby.png' }, { filename: 'ruby.webp' }])
})

test('joining without choosing a picture works multipart and urlencoded alike', async (t) => {
  const { app, config } = await buildTestApp(t)
  const body = multipartBody(PERSON, { name: 'user[avatar]', filename: '', type: 'application/octet-stream', bytes: Buffer.alloc(0) })
  assert.equal((await sendMultipart(app, '', `/join/${JOIN_CODE}`, body)).statusCode, 302)
  assert.equal(value<number>(app, 'SELECT count(*) FROM active_storage_blobs'), 0)
  assert.deepEqual(filesUnder(config.filesPath), [])
})

test('joining with a file that is not a picture is a 422 that keeps what was typed and creates nobody', async (t) => {
  const { app, config } = await buildTestApp(t)
  const before = value<number>(app, 'SELECT count(*) FROM users')
  const body = multipartBody(PERSON, { name: 'user[avatar]', filename: 'notes.png', type: 'image/png', bytes: Buffer.from('plain text') })
  const response = await sendMultipart(app, '', `/join/${JOIN_CODE}`, body)
  assert.equal(response.statusCode, 422)
  assert.match(response.body, /not a picture we can use/)
  assert.match(response.body, /value="Ruby Newcomer"/)
  assert.match(response.body, /value="ruby@example.com"/)
  assert.equal(value<number>(app, 'SELECT count(*) FROM users'), before)
  assert.deepEqual(filesUnder(config.filesPath), [])
})

test('a join form with bad fields and a good picture is a 422 that leaves no file behind', async (t) => {
  const { app, config } = await buildTestApp(t)
  const body = multipartBody([['user[name]', ''], ['user[email_address]', 'ruby@example.com'], ['user[password]', 'x']], { name: 'user[avatar]', filename: 'ruby.png', type: 'image/png', bytes: await png(50, 50) })
  assert.equal((await sendMultipart(app, '', `/join/${JOIN_CODE}`, body)).statusCode, 422)
  assert.deepEqual(filesUnder(config.filesPath), [])
})

test('joining with an email already taken leaves no avatar behind', async (t) => {
  const { app, config } = await buildTestApp(t)
  const body = multipartBody([['user[name]', 'Copy'], ['user[email_address]', 'kevin@37signals.com'], ['user[password]', 'whatever']], { name: 'user[avatar]', filename: 'k.png', type: 'image/png', bytes: await png(50, 50) })
  const response = await sendMultipart(app, '', `/join/${JOIN_CODE}`, body)
  assert.equal(response.statusCode, 302)
  assert.match(response.headers.location as string, /^\/session\/new\?email_address=/)
  assert.equal(value<number>(app, 'SELECT count(*) FROM active_storage_blobs'), 0)
  assert.deepEqual(filesUnder(config.filesPath), [])
})

test('the first run takes an avatar too, and the administrator starts with it', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const form = (await app.inject({ url: '/first_run' })).body
  assert.match(form, /<form action="\/first_run" method="post" class="form" enctype="multipart\/form-data"/)
  assert.match(form, /<input type="file" name="user\[avatar\]" id="user_avatar"[^>]* accept="image\/\*"/)
  const body = multipartBody([['user[name]', 'Ada Lovelace'], ['user[email_address]', 'ada@example.com'], ['user[password]', 'analytical-engine']], { name: 'user[avatar]', filename: 'ada.jpg', type: 'image/jpeg', bytes: await png(300, 200) })
  const response = await sendMultipart(app, '', '/first_run', body)
  assert.equal(response.statusCode, 302)
  assert.ok(response.cookies.some((c) => c.name === 'session_token'))
  assert.deepEqual(rows(app, 'SELECT filename, content_type FROM active_storage_blobs ORDER BY id'), [
    { filename: 'ada.jpg', content_type: 'image/png' },
    { filename: 'ada.webp', content_type: 'image/webp' },
  ])
})

test('a first run whose picture is refused creates no account and keeps what was typed', async (t) => {
  const { app, config } = await buildTestApp(t, { fixtures: false })
  const body = multipartBody([['user[name]', 'Ada Lovelace'], ['user[email_address]', 'ada@example.com'], ['user[password]', 'analytical-engine']], { name: 'user[avatar]', filename: 'x.svg', type: 'image/svg+xml', bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') })
  const response = await sendMultipart(app, '', '/first_run', body)
  assert.equal(response.statusCode, 422)
  assert.match(response.body, /value="Ada Lovelace"/)
  assert.equal(value<number>(app, 'SELECT count(*) FROM accounts'), 0)
  assert.deepEqual(filesUnder(config.filesPath), [])
})
