import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, inject, sameOrigin, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { ONE_FILE } from '../../server/routes/multipart-form.ts'
import { BOUNDARY, filesUnder, png, value } from './users/support.ts'

// A form with a text field and two files in the one file field.
async function twoFiles(fileField: string, fields: [string, string][] = []): Promise<Buffer> {
  const file = async (name: string) => [Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${fileField}"; filename="${name}"\r\nContent-Type: image/png\r\n\r\n`), await png(32, 32), Buffer.from('\r\n')]
  return Buffer.concat([
    ...fields.map(([name, text]) => Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${text}\r\n`)),
    ...(await file('first.png')),
    ...(await file('second.png')),
    Buffer.from(`--${BOUNDARY}--\r\n`),
  ])
}

const FORMS: ReadonlyArray<{ name: string; method: 'POST' | 'PATCH'; url: string; fileField: string; fields: [string, string][] }> = [
  { name: 'a message post', method: 'POST', url: `/rooms/${rooms.hq.id}/messages`, fileField: 'message[attachment]', fields: [['message[client_message_id]', 'two-files']] },
  { name: 'the profile form', method: 'PATCH', url: `/users/${users.david.id}/profile`, fileField: 'user[avatar]', fields: [['user[name]', 'David Two']] },
  { name: 'the account form', method: 'PATCH', url: '/account', fileField: 'account[logo]', fields: [['account[name]', 'Two Logos']] },
  { name: 'the bot form', method: 'PATCH', url: `/account/bots/${users.bender.id}`, fileField: 'user[avatar]', fields: [['user[name]', 'Bender Two']] },
]

for (const form of FORMS) {
  test(`${form.name} with a second file answers 422 saying one file is accepted, and keeps nothing`, async (t) => {
    const { app, config } = await buildTestApp(t)
    const cookie = await signIn(app, 'david')
    const messages = value<number>(app, 'SELECT count(*) FROM messages')
    const payload = await twoFiles(form.fileField, form.fields)
    const response = await inject(app, cookie, { method: form.method, url: form.url, payload, headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...sameOrigin } })
    assert.equal(response.statusCode, 422, response.body.slice(0, 300))
    assert.ok(response.body.includes(ONE_FILE), response.body.slice(0, 2000))
    assert.equal(value<number>(app, 'SELECT count(*) FROM messages'), messages)
    assert.equal(value<number>(app, 'SELECT count(*) FROM active_storage_blobs'), 0)
    assert.deepEqual(filesUnder(config.filesPath), [])
  })
}
