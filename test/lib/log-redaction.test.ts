import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, capturedLog } from '../helper.ts'
import { redactedUrl } from '../../server/lib/log-redaction.ts'

test('URLs carrying a transfer id, a join code or a QR code are logged without it', () => {
  assert.equal(redactedUrl('/session/transfers/eyJfcmFpbHMi--abc123'), '/session/transfers/[redacted]')
  assert.equal(redactedUrl('/qr_code/aHR0cDovL2V4YW1wbGU?x=1'), '/qr_code/[redacted]?x=1')
  assert.equal(redactedUrl('/join/Ab12-Cd34-Ef56'), '/join/[redacted]')
  assert.equal(redactedUrl('/rooms/1/messages?before=5'), '/rooms/1/messages?before=5')
})

test('the request log never shows a secret from the path', async (t) => {
  const log = capturedLog()
  const { app } = await buildTestApp(t, { logger: { level: 'info', stream: log.stream } })
  const secrets = ['eyJfcmFpbHMiOnsiZGF0YSI6MX19--0123456789abcdef', 'aHR0cDovL2xvY2FsaG9zdC9zZXNzaW9uL3RyYW5zZmVycy9zZWNyZXQ', 'Ab12-Cd34-Ef56']
  await app.inject({ url: `/session/transfers/${secrets[0]}` })
  await app.inject({ url: `/qr_code/${secrets[1]}` })
  await app.inject({ url: `/join/${secrets[2]}` })
  const text = log.lines.map((line) => JSON.stringify(line)).join('\n')
  assert.match(text, /\/session\/transfers\/\[redacted\]/)
  for (const secret of secrets) assert.ok(!text.includes(secret), `${secret} was logged`)
})
