import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { MAX_SUBSCRIPTIONS_PER_PERSON } from '../../../server/models/push/subscription.ts'
import { users, type UserName } from '../../fixtures.ts'
import { form, inject, sameOrigin } from '../../helper.ts'
import { startPushApp } from '../../support/push-app.ts'
import { browserSubscription, startPushService } from '../../support/push-service.ts'

const CHROME = 'https://fcm.googleapis.com/fcm/send/dGVzdA:APA91bH-example'
const FIREFOX = 'https://updates.push.services.mozilla.com/wpush/v2/gAAAAABexample'

function stored(app: FastifyInstance, name: UserName) {
  return app.store.read((m) => m.pushSubscriptions.forUser(users[name].id))
}

async function sessionCookie(app: FastifyInstance, name: UserName): Promise<string> {
  const token = await app.store.write((m) => m.sessions.start(users[name].id, '127.0.0.1', 'push test'))
  return `session_token=${app.signing.signCookie('session_token', token)}`
}

test('the subscription the notifications controller sends (JSON) is kept for the signed-in person, with the browser', async (t) => {
  const push = await startPushApp(t, { loopback: false })
  const subscription = browserSubscription(CHROME)
  const response = await push.subscribe('jason', subscription)
  assert.equal(response.statusCode, 200)
  assert.equal(response.body, '')
  const [row, ...others] = stored(push.app, 'jason')
  assert.deepEqual(others, [])
  assert.deepEqual({ endpoint: row!.endpoint, p256dh_key: row!.p256dh_key, auth_key: row!.auth_key, user_agent: row!.user_agent }, {
    endpoint: CHROME, p256dh_key: subscription.p256dh_key, auth_key: subscription.auth_key, user_agent: 'Test browser of jason',
  })
})

test('subscribing again with the same subscription touches it, and new keys for the same endpoint replace the old', async (t) => {
  const push = await startPushApp(t, { loopback: false })
  const subscription = browserSubscription(FIREFOX)
  await push.subscribe('jason', subscription)
  const [first] = stored(push.app, 'jason')
  await push.subscribe('jason', subscription)
  const [touched, ...none] = stored(push.app, 'jason')
  assert.deepEqual(none, [])
  assert.equal(touched!.id, first!.id)
  assert.ok(touched!.updated_at > first!.updated_at)

  const renewed = browserSubscription(FIREFOX)
  await push.subscribe('jason', renewed)
  assert.deepEqual(stored(push.app, 'jason').map((s) => s.p256dh_key), [renewed.p256dh_key])
})

test('a form works as well as JSON, and any :user_id means the signed-in person', async (t) => {
  const push = await startPushApp(t, { loopback: false })
  const subscription = browserSubscription(CHROME)
  const request = form({ 'push_subscription[endpoint]': subscription.endpoint, 'push_subscription[p256dh_key]': subscription.p256dh_key, 'push_subscription[auth_key]': subscription.auth_key })
  const response = await inject(push.app, await push.cookie('kevin'), { method: 'POST', url: `/users/${users.jason.id}/push_subscriptions`, ...request })
  assert.equal(response.statusCode, 200)
  assert.equal(stored(push.app, 'kevin').length, 1)
  assert.deepEqual(stored(push.app, 'jason'), [])
})

test('a person keeps at most a few devices subscribed; another forgets the least recently seen', async (t) => {
  const push = await startPushApp(t, { loopback: false })
  const first = browserSubscription(`${CHROME}-0`)
  await push.subscribe('jz', first)
  for (let i = 1; i <= MAX_SUBSCRIPTIONS_PER_PERSON; i++) await push.subscribe('jz', browserSubscription(`${CHROME}-${i}`))
  const endpoints = stored(push.app, 'jz').map((s) => s.endpoint)
  assert.equal(endpoints.length, MAX_SUBSCRIPTIONS_PER_PERSON)
  assert.ok(!endpoints.includes(first.endpoint))
})

test('a subscription that could not work is refused with 422, a missing one with 400, and nothing is kept', async (t) => {
  const push = await startPushApp(t, { loopback: false })
  const good = browserSubscription(CHROME)
  const cases: [string, unknown, number][] = [
    ['no push_subscription', {}, 400],
    ['push_subscription is a string', { push_subscription: 'x' }, 400],
    ['no auth_key', { push_subscription: { endpoint: CHROME, p256dh_key: good.p256dh_key } }, 422],
    ['an array for the endpoint', { push_subscription: { ...good, endpoint: [CHROME] } }, 422],
    ['plain http', { push_subscription: { ...good, endpoint: CHROME.replace('https', 'http') } }, 422],
    ['another port', { push_subscription: { ...good, endpoint: CHROME.replace('.com/', '.com:8443/') } }, 422],
    ['not a push service', { push_subscription: { ...good, endpoint: 'https://example.com/push' } }, 422],
    ['a private address', { push_subscription: { ...good, endpoint: 'https://127.0.0.1:9/push/1' } }, 422],
    ['credentials', { push_subscription: { ...good, endpoint: 'https://user:pw@fcm.googleapis.com/fcm/send/x' } }, 422],
    ['not a URL', { push_subscription: { ...good, endpoint: 'fcm.googleapis.com/x' } }, 422],
    ['too long', { push_subscription: { ...good, endpoint: `${CHROME}/${'a'.repeat(2100)}` } }, 422],
    ['a short p256dh key', { push_subscription: { ...good, p256dh_key: good.p256dh_key.slice(0, 40) } }, 422],
    ['a p256dh key off the curve', { push_subscription: { ...good, p256dh_key: Buffer.from([4, ...new Array(64).fill(7)]).toString('base64url') } }, 422],
    ['standard base64', { push_subscription: { ...good, auth_key: 'a+b/c+d/e+f/g+h/ij==' } }, 422],
    ['a long auth key', { push_subscription: { ...good, auth_key: Buffer.alloc(32, 1).toString('base64url') } }, 422],
  ]
  const cookie = await push.cookie('jason')
  for (const [name, body, status] of cases) {
    const response = await inject(push.app, cookie, { method: 'POST', url: '/users/me/push_subscriptions', headers: { ...sameOrigin, 'content-type': 'application/json' }, payload: JSON.stringify(body) })
    assert.equal(response.statusCode, status, name)
  }
  const broken = await inject(push.app, cookie, { method: 'POST', url: '/users/me/push_subscriptions', headers: { ...sameOrigin, 'content-type': 'application/json' }, payload: '{"push_subscription":' })
  assert.equal(broken.statusCode, 400)
  assert.deepEqual(stored(push.app, 'jason'), [])
})

test('deleting a subscription reaches only one’s own, then shows the list', async (t) => {
  const push = await startPushApp(t, { loopback: false })
  await push.subscribe('jason', browserSubscription(CHROME))
  await push.subscribe('kevin', browserSubscription(FIREFOX))
  const [jasons] = stored(push.app, 'jason')
  const kevin = await push.cookie('kevin')

  const others = await inject(push.app, kevin, { method: 'DELETE', url: `/users/me/push_subscriptions/${jasons!.id}`, headers: sameOrigin })
  assert.equal(others.statusCode, 404)
  assert.equal(stored(push.app, 'jason').length, 1)

  const [kevins] = stored(push.app, 'kevin')
  const own = await inject(push.app, kevin, { method: 'POST', url: `/users/me/push_subscriptions/${kevins!.id}`, ...form({ _method: 'delete' }) })
  assert.equal(own.statusCode, 302)
  assert.equal(own.headers.location, '/users/me/push_subscriptions')
  assert.deepEqual(stored(push.app, 'kevin'), [])
  const malformed = await inject(push.app, kevin, { method: 'DELETE', url: '/users/me/push_subscriptions/abc', headers: sameOrigin })
  assert.equal(malformed.statusCode, 404)
})

test('the list shows one’s own subscriptions by push service and browser, not anyone else’s', async (t) => {
  const push = await startPushApp(t, { loopback: false })
  await push.subscribe('jason', browserSubscription(CHROME))
  await push.subscribe('kevin', browserSubscription(FIREFOX))
  const page = await inject(push.app, await push.cookie('jason'), { method: 'GET', url: '/users/me/push_subscriptions' })
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /fcm\.googleapis\.com/)
  assert.match(page.body, /Test browser of jason/)
  assert.doesNotMatch(page.body, /mozilla|dGVzdA/, 'neither Kevin’s nor the whole endpoint')
  assert.match(page.body, /Send a test/)
})

test('a test notification sends "Campfire Test" with a random UUID to one’s own subscription', async (t) => {
  const service = await startPushService(t)
  const push = await startPushApp(t, { service })
  const subscription = browserSubscription(service.endpoint('/push/jason'))
  await push.subscribe('jason', subscription)
  const [row] = stored(push.app, 'jason')
  const url = `/users/me/push_subscriptions/${row!.id}/test_notifications`

  assert.equal((await inject(push.app, await push.cookie('kevin'), { method: 'POST', url, headers: sameOrigin })).statusCode, 404)
  const response = await inject(push.app, await push.cookie('jason'), { method: 'POST', url, headers: sameOrigin })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/users/me/push_subscriptions')
  const received = await service.request(1)
  const payload = JSON.parse(subscription.decrypt(received.body)) as { title: string; options: { body: string; data: { path: string } } }
  assert.equal(payload.title, 'Campfire Test')
  assert.match(payload.options.body, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  assert.equal(payload.options.data.path, '/users/me/push_subscriptions')
  await push.app.webPush.settled()
  assert.equal(service.received.length, 1, 'Kevin’s attempt sent nothing')
})

test('push subscriptions are for signed-in people: signed out is sent to sign in, a bot is refused', async (t) => {
  const push = await startPushApp(t, { loopback: false, vapid: false })
  const body = JSON.stringify({ push_subscription: browserSubscription(CHROME) })
  const headers = { ...sameOrigin, 'content-type': 'application/json' }
  const anonymous = await push.app.inject({ method: 'POST', url: '/users/me/push_subscriptions', headers, payload: body })
  assert.equal(anonymous.statusCode, 401)
  const anonymousList = await push.app.inject({ method: 'GET', url: '/users/me/push_subscriptions' })
  assert.equal(anonymousList.headers.location, '/session/new')
  const bot = await sessionCookie(push.app, 'bender')
  assert.equal((await inject(push.app, bot, { method: 'POST', url: '/users/me/push_subscriptions', headers, payload: body })).statusCode, 403)
  assert.equal((await inject(push.app, bot, { method: 'GET', url: '/users/me/push_subscriptions' })).statusCode, 403)
  const offPage = await inject(push.app, await push.cookie('jason'), { method: 'GET', url: '/users/me/push_subscriptions' })
  assert.match(offPage.body, /Web Push is off on this server/)
})
