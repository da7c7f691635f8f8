import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildTestApp, capturedLog, inject, sameOrigin, signIn } from '../../helper.ts'
import { rooms } from '../../fixtures.ts'
import { value } from './support.ts'

const hq = rooms.hq.id
const BOUNDARY = '----campfireFuzz1234'

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}

// A well-formed upload of one field and one file, to cut short.
function uploadBody(): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="message[client_message_id]"\r\n\r\ncut-1\r\n`),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="message[attachment]"; filename="cut.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    Buffer.alloc(20_000, 7),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ])
}

async function setup(t: Parameters<typeof buildTestApp>[0]) {
  const log = capturedLog()
  const built = await buildTestApp(t, { logger: { level: 'info', stream: log.stream } })
  const cookie = await signIn(built.app, 'david')
  const messages = value<number>(built.app, 'SELECT count(*) FROM messages')
  const nothingWritten = (label: string) => {
    assert.equal(value<number>(built.app, 'SELECT count(*) FROM messages'), messages, `${label}: no message`)
    assert.equal(value<number>(built.app, 'SELECT count(*) FROM active_storage_blobs'), 0, `${label}: no blob row`)
    assert.equal(value<number>(built.app, 'SELECT count(*) FROM active_storage_attachments'), 0, `${label}: no attachment row`)
    assert.deepEqual(filesUnder(built.config.filesPath), [], `${label}: no file in storage/files`)
  }
  return { ...built, log, cookie, nothingWritten }
}

test('multipart/form-data with no boundary answers 400, logs no error and writes nothing', async (t) => {
  const { app, cookie, log, nothingWritten } = await setup(t)
  for (const type of ['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; charset=utf-8', 'multipart/form-data; boundary="unterminated']) {
    const response = await inject(app, cookie, { method: 'POST', url: `/rooms/${hq}/messages`, payload: uploadBody(), headers: { 'content-type': type, ...sameOrigin } })
    assert.equal(response.statusCode, 400, `${type} answered ${response.statusCode}`)
    nothingWritten(type)
  }
  assert.deepEqual(log.errors, [], 'no error-level log line')
})

test('a multipart body cut off before its closing boundary answers 400, logs no error and leaves no blob or file', async (t) => {
  const { app, cookie, log, nothingWritten } = await setup(t)
  const full = uploadBody()
  const headerEnd = full.indexOf('\r\n\r\n', full.indexOf('filename=')) + 4
  // Inside the first field, inside the file's headers, inside the file, and just before the final "--".
  const cuts = [40, full.indexOf('filename=') + 5, headerEnd + 10_000, full.length - 4]
  for (const cut of cuts) {
    const response = await inject(app, cookie, { method: 'POST', url: `/rooms/${hq}/messages`, payload: full.subarray(0, cut), headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...sameOrigin } })
    assert.equal(response.statusCode, 400, `cut at ${cut} of ${full.length} answered ${response.statusCode}`)
    nothingWritten(`cut at ${cut}`)
  }
  assert.deepEqual(log.errors, [], 'no error-level log line')
})
