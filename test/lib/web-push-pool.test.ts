import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { PUSH_TTL_SECONDS, WebPushPool, type Push, type PushPoolOptions } from '../../server/lib/web-push-pool.ts'
import { isPushServiceEndpoint } from '../../server/models/push/subscription.ts'
import { browserSubscription, startPushService, vapidClaims, vapidKeys, type PushService } from '../support/push-service.ts'

const SUBJECT = 'mailto:support@37signals.com'
const loopback = (url: URL) => url.protocol === 'https:' && url.hostname === '127.0.0.1'

function poolFor(t: TestContext, service: PushService | null, options: Partial<PushPoolOptions> = {}) {
  const vapid = vapidKeys()
  const gone: number[] = []
  const failures: string[] = []
  const pool = new WebPushPool({
    vapid: { subject: SUBJECT, ...vapid },
    permitsEndpoint: loopback,
    isAllowedAddress: (address) => address === '127.0.0.1',
    ca: service?.ca,
    onGone: (id) => gone.push(id),
    onFailure: (_push, reason) => failures.push(reason),
    ...options,
  })
  t.after(() => pool.close())
  return { pool, vapid, gone, failures }
}

function pushTo(endpoint: string, id = 1, payload = '{"title":"Hi"}'): Push & { decrypt: (body: Buffer) => string } {
  const subscription = browserSubscription(endpoint)
  return { subscriptionId: id, endpoint, p256dh: subscription.p256dh_key, auth: subscription.auth_key, payload, decrypt: subscription.decrypt }
}

test('a push reaches the push service encrypted for the subscription, urgent, with a VAPID token for that service', async (t) => {
  const service = await startPushService(t)
  const { pool, vapid } = poolFor(t, service)
  const push = pushTo(service.endpoint('/push/abc?x=1'), 7, JSON.stringify({ title: 'HQ', options: { body: 'David: hello' } }))
  assert.equal(pool.queueAll([push]), 1)
  await pool.idle()

  const [received] = service.received
  assert.equal(received!.path, '/push/abc?x=1')
  assert.equal(push.decrypt(received!.body), JSON.stringify({ title: 'HQ', options: { body: 'David: hello' } }))
  assert.equal(received!.headers['content-encoding'], 'aes128gcm')
  assert.equal(received!.headers.urgency, 'high')
  assert.equal(received!.headers.ttl, String(PUSH_TTL_SECONDS))
  const claims = vapidClaims(received!.headers.authorization, vapid.publicKey)
  assert.equal(claims.aud, service.origin)
  assert.equal(claims.sub, SUBJECT)
  const now = Date.now() / 1000
  assert.ok(claims.exp > now && claims.exp <= now + 24 * 60 * 60, 'the token expires within a day, as RFC 8292 asks')
  assert.deepEqual(pool.stats, { sent: 1, gone: 0, failed: 0, refused: 0, dropped: 0 })
})

test('a push service answering 404 or 410 has the subscription forgotten; other failures keep it', async (t) => {
  const service = await startPushService(t, (path) => ({ status: Number(path.slice(1)) }))
  const { pool, gone } = poolFor(t, service)
  pool.queueAll([pushTo(service.endpoint('/404'), 1), pushTo(service.endpoint('/410'), 2), pushTo(service.endpoint('/500'), 3), pushTo(service.endpoint('/429'), 4)])
  await pool.idle()
  assert.deepEqual(gone.sort(), [1, 2])
  assert.deepEqual(pool.stats, { sent: 0, gone: 2, failed: 2, refused: 0, dropped: 0 })
})

test('a closed port fails at once, without waiting for the deadline', { timeout: 30_000 }, async (t) => {
  const { pool, gone, failures } = poolFor(t, null, { timeoutMs: 600_000 })
  pool.queueAll([pushTo('https://127.0.0.1:9/push/1')])
  await pool.idle()
  assert.equal(pool.stats.failed, 1)
  assert.deepEqual(gone, [])
  assert.match(failures[0]!, /ECONNREFUSED/)
})

test('an endpoint that never answers is given up at the deadline, and the next push still goes', async (t) => {
  const service = await startPushService(t, (path) => (path === '/hang' ? 'hang' : { status: 201 }))
  const { pool, failures } = poolFor(t, service, { timeoutMs: 300, concurrency: 1 })
  pool.queueAll([pushTo(service.endpoint('/hang'), 1), pushTo(service.endpoint('/fine'), 2)])
  await pool.idle()
  assert.deepEqual(service.received.map((r) => r.path), ['/hang', '/fine'])
  assert.deepEqual({ sent: pool.stats.sent, failed: pool.stats.failed }, { sent: 1, failed: 1 })
  assert.match(failures[0]!, /300 ms/)
})

test('endpoints outside the rules, or at addresses the guard refuses, are never contacted', async (t) => {
  const service = await startPushService(t)
  const port = new URL(service.origin).port
  // The default rules: browsers' push services only, on 443, at public addresses.
  const strict = poolFor(t, service, { permitsEndpoint: isPushServiceEndpoint, isAllowedAddress: undefined })
  strict.pool.queueAll([pushTo(service.endpoint('/a'), 1), pushTo('https://127.0.0.1:9/push/1', 2), pushTo('http://fcm.googleapis.com/x', 3), pushTo('not a url', 4)])
  await strict.pool.idle()
  // Permitted URLs whose host is, or resolves to, a private address.
  const guarded = poolFor(t, service, { permitsEndpoint: () => true, isAllowedAddress: undefined })
  guarded.pool.queueAll([pushTo(service.endpoint('/b'), 5), pushTo(`https://localhost:${port}/c`, 6), pushTo(`https://[::1]:${port}/d`, 7)])
  await guarded.pool.idle()

  assert.deepEqual(service.received, [])
  assert.equal(strict.pool.stats.refused, 4)
  assert.equal(guarded.pool.stats.refused, 3)
})

test('a full queue drops pushes rather than holding them', async (t) => {
  const service = await startPushService(t, () => 'hang')
  const { pool } = poolFor(t, service, { concurrency: 1, maxQueue: 2, timeoutMs: 200 })
  assert.equal(pool.queueAll([1, 2, 3, 4, 5].map((id) => pushTo(service.endpoint(`/${id}`), id))), 3)
  await pool.idle()
  assert.deepEqual(pool.stats, { sent: 0, gone: 0, failed: 3, refused: 0, dropped: 2 })
})

test('closing the pool ends the pushes in flight and drops the queued ones', async (t) => {
  const service = await startPushService(t, () => 'hang')
  const { pool } = poolFor(t, service, { concurrency: 1, timeoutMs: 600_000 })
  pool.queueAll([pushTo(service.endpoint('/1'), 1), pushTo(service.endpoint('/2'), 2)])
  await service.request(1)
  await pool.close()
  assert.equal(service.received.length, 1)
  assert.equal(pool.queueAll([pushTo(service.endpoint('/3'), 3)]), 0)
})
