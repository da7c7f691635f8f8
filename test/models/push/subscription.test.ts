import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isPushServiceEndpoint } from '../../../server/models/push/subscription.ts'

test('only browsers’ push services, over HTTPS on the default port, are endpoints', () => {
  const permitted = [
    'https://fcm.googleapis.com/fcm/send/abc',
    'https://updates.push.services.mozilla.com/wpush/v2/abc',
    'https://web.push.apple.com/QG2x',
    'https://wns2-by3p.notify.windows.com/w/?token=abc',
    'https://FCM.googleapis.com:443/fcm/send/abc',
  ]
  const refused = [
    'http://fcm.googleapis.com/fcm/send/abc',
    'https://fcm.googleapis.com:8443/fcm/send/abc',
    'https://fcm.googleapis.com.example.com/x',
    'https://evilnotify.windows.com/x',
    'https://example.com/push',
    'https://127.0.0.1:9/push/1',
  ]
  for (const url of permitted) assert.ok(isPushServiceEndpoint(new URL(url)), url)
  for (const url of refused) assert.ok(!isPushServiceEndpoint(new URL(url)), url)
})
