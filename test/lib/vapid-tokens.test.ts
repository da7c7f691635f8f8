import assert from 'node:assert/strict'
import { test } from 'node:test'
import { VapidTokens } from '../../server/lib/vapid-tokens.ts'
import { vapidClaims, vapidKeys } from '../support/push-service.ts'

test('a VAPID token is signed per push service, reused for an hour, then signed afresh', () => {
  const keys = vapidKeys()
  const tokens = new VapidTokens({ subject: 'mailto:support@37signals.com', ...keys })
  const now = Date.parse('2026-03-01T12:00:00Z')
  const first = tokens.authorization('https://fcm.googleapis.com', now)
  assert.equal(tokens.authorization('https://fcm.googleapis.com', now + 59 * 60_000), first)
  assert.notEqual(tokens.authorization('https://web.push.apple.com', now), first)
  const renewed = tokens.authorization('https://fcm.googleapis.com', now + 61 * 60_000)
  assert.notEqual(renewed, first)
  assert.deepEqual(vapidClaims(first, keys.publicKey), { aud: 'https://fcm.googleapis.com', exp: now / 1000 + 12 * 60 * 60, sub: 'mailto:support@37signals.com' })
  assert.equal(vapidClaims(renewed, keys.publicKey).exp, (now + 61 * 60_000) / 1000 + 12 * 60 * 60)
})
