import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, capturedLog, signIn } from '../../helper.ts'
import { rooms } from '../../fixtures.ts'
import { post, send, value } from './support.ts'

const hq = rooms.hq.id
const tooDeep = ['<b>'.repeat(20_000), `${'<div>'.repeat(5000)}x`, `${'<blockquote>'.repeat(2000)}quote`]

test('a post whose body is nested thousands of elements deep is refused with 422, writes nothing and logs no error', async (t) => {
  const log = capturedLog()
  const { app } = await buildTestApp(t, { logger: { level: 'info', stream: log.stream } })
  const cookie = await signIn(app, 'david')
  const before = value<number>(app, 'SELECT count(*) FROM messages')
  for (const body of tooDeep) {
    const response = await post(app, cookie, hq, body)
    assert.equal(response.statusCode, 422, `${body.slice(0, 20)}… answered ${response.statusCode}`)
    assert.match(response.body, /nested too deeply/)
  }
  assert.equal(value<number>(app, 'SELECT count(*) FROM messages'), before)
  assert.deepEqual(log.errors, [], 'no error-level log line')
})

test('an edit to a body nested thousands of elements deep is refused with 422 and leaves the message as it was', async (t) => {
  const log = capturedLog()
  const { app } = await buildTestApp(t, { logger: { level: 'info', stream: log.stream } })
  const cookie = await signIn(app, 'david')
  assert.equal((await post(app, cookie, hq, 'original', 'nest1')).statusCode, 200)
  const id = value<number>(app, "SELECT id FROM messages WHERE client_message_id = 'nest1'")!
  for (const body of tooDeep) {
    const response = await send(app, cookie, 'PATCH', `/rooms/${hq}/messages/${id}`, { 'message[body]': body })
    assert.equal(response.statusCode, 422, `${body.slice(0, 20)}… answered ${response.statusCode}`)
  }
  assert.equal(value<string>(app, "SELECT body FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id = ?", id), 'original')
  assert.deepEqual(log.errors, [], 'no error-level log line')
})
