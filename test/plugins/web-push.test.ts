import assert from 'node:assert/strict'
import { test } from 'node:test'
import { connectableFor } from '../../server/models/membership/connectable.ts'
import type { Involvement } from '../../server/models/membership.ts'
import { PUSH_TTL_SECONDS } from '../../server/lib/web-push-pool.ts'
import { rooms, users, type UserName } from '../fixtures.ts'
import { startPushApp, type PushApp } from '../support/push-app.ts'
import { browserSubscription, decryptedPushes, startPushService, vapidClaims, type BrowserSubscription, type PushService } from '../support/push-service.ts'

async function subscribe(push: PushApp, service: PushService, name: UserName): Promise<BrowserSubscription> {
  const subscription = browserSubscription(service.endpoint(`/push/${name}`))
  assert.equal((await push.subscribe(name, subscription)).statusCode, 200)
  return subscription
}

function involve(push: PushApp, roomId: number, name: UserName, involvement: Involvement) {
  return push.app.store.write((m) => m.db.prepare('UPDATE memberships SET involvement = ? WHERE room_id = ? AND user_id = ?').run(involvement, roomId, users[name].id))
}

test('a message in a shared room is pushed to an away member as upstream shapes it: the room, "Sender: text", its path and their badge', async (t) => {
  const service = await startPushService(t)
  const push = await startPushApp(t, { service })
  const jason = await subscribe(push, service, 'jason')
  await involve(push, rooms.hq.id, 'jason', 'everything')

  assert.equal((await push.post('david', rooms.hq.id, '<p>Ship it <strong>today</strong></p>')).status, 200)
  await push.app.webPush.settled()

  assert.deepEqual(decryptedPushes(service, jason), [
    { title: 'HQ', options: { body: 'David Heinemeier Hansson: Ship it today', icon: '/account/logo?size=small', data: { path: `/rooms/${rooms.hq.id}`, badge: 1 } } },
  ])
  const [received] = service.received
  assert.equal(received!.headers.urgency, 'high')
  assert.equal(received!.headers.ttl, String(PUSH_TTL_SECONDS))
  assert.equal(vapidClaims(received!.headers.authorization, push.vapid.publicKey).aud, service.origin)
})

test('a message in a direct room is titled with the sender and its body is the text alone', async (t) => {
  const service = await startPushService(t)
  const push = await startPushApp(t, { service })
  const jason = await subscribe(push, service, 'jason')

  await push.post('david', rooms.david_and_jason.id, 'Lunch?')
  await push.app.webPush.settled()

  assert.deepEqual(decryptedPushes(service, jason), [
    { title: 'David Heinemeier Hansson', options: { body: 'Lunch?', icon: '/account/logo?size=small', data: { path: `/rooms/${rooms.david_and_jason.id}`, badge: 1 } } },
  ])
})

test('only visible, disconnected members other than the sender are pushed: everything always, mentions when mentioned', async (t) => {
  const service = await startPushService(t)
  const push = await startPushApp(t, { service })
  const room = rooms.pets.id
  for (const name of ['david', 'jason', 'jz', 'kevin'] as const) await subscribe(push, service, name)
  await involve(push, room, 'david', 'everything')
  await involve(push, room, 'jason', 'everything')
  await involve(push, room, 'jz', 'invisible')
  await push.app.store.write((m) => connectableFor(m.db).present(room, users.jason.id))
  const path = (name: UserName) => `/push/${name}`

  // David, the sender, is never pushed; Jason is looking; JZ hid the room, mentioned or not.
  await push.post('david', room, `<p>${push.mention(users.jz.id)} ${push.mention(users.kevin.id)} look</p>`)
  await push.app.webPush.settled()
  assert.deepEqual(service.received.map((r) => r.path), [path('kevin')])

  // Once Jason is away he hears everything; Kevin, on mentions, hears nothing unmentioned.
  await push.app.store.write((m) => connectableFor(m.db).disconnected(room, users.jason.id))
  await involve(push, room, 'jz', 'nothing')
  await push.post('david', room, 'no mentions here')
  await push.app.webPush.settled()
  assert.deepEqual(service.received.map((r) => r.path), [path('kevin'), path('jason')])

  // A mention whose signature does not verify mentions nobody.
  const forged = push.mention(users.kevin.id).replace(/sgid="([^"]+)"/, (_, sgid: string) => `sgid="${sgid.slice(0, -4)}AAAA"`)
  await push.post('jason', room, `<p>${forged} hi</p>`)
  await push.app.webPush.settled()
  assert.deepEqual(service.received.map((r) => r.path), [path('kevin'), path('jason'), path('david')])
})

test('a subscription whose push service answers 404 or 410 is deleted; one that failed otherwise is kept', async (t) => {
  const statuses: Record<string, number> = { '/push/jason': 410, '/push/kevin': 404, '/push/david': 500 }
  const service = await startPushService(t, (path) => ({ status: statuses[path] ?? 201 }))
  const push = await startPushApp(t, { service })
  for (const name of ['jason', 'kevin', 'david'] as const) await subscribe(push, service, name)

  await push.post('jz', rooms.hq.id, `<p>${push.mention(users.jason.id)} ${push.mention(users.kevin.id)} ${push.mention(users.david.id)}</p>`)
  await push.app.webPush.settled()

  assert.equal(service.received.length, 3)
  const left = push.app.store.read((m) => m.db.prepare('SELECT user_id FROM push_subscriptions ORDER BY user_id').pluck().all())
  assert.deepEqual(left, [users.david.id])
})

test('the harness’s closed port fails fast and harmlessly, whether the rules refuse it or it is tried', async (t) => {
  for (const loopback of [false, true]) {
    const push = await startPushApp(t, { loopback })
    await push.app.store.write((m) =>
      m.db.prepare("INSERT INTO push_subscriptions (user_id, endpoint, p256dh_key, auth_key, created_at, updated_at) VALUES (?, 'https://127.0.0.1:9/push/1', ?, ?, '2026-03-01 12:00:00', '2026-03-01 12:00:00')")
        .run(users.jason.id, browserSubscription('x').p256dh_key, browserSubscription('x').auth_key),
    )
    assert.equal((await push.post('david', rooms.david_and_jason.id, 'Are you there?')).status, 200)
    await push.app.webPush.settled()
    assert.deepEqual(push.app.webPush.stats(), { sent: 0, gone: 0, failed: loopback ? 1 : 0, refused: loopback ? 0 : 1, dropped: 0 })
    assert.equal(push.app.store.read((m) => m.pushSubscriptions.forUser(users.jason.id)).length, 1, 'a refused connection is no reason to forget it')
    assert.deepEqual(push.log.errors, [])
  }
})

test('a post is answered without waiting for its pushes: the push service never answers', async (t) => {
  const service = await startPushService(t, () => 'hang')
  const push = await startPushApp(t, { service })
  await subscribe(push, service, 'jason')

  const answer = await push.post('david', rooms.david_and_jason.id, 'Hello?')
  assert.equal(answer.status, 200)
  assert.deepEqual(push.app.webPush.stats(), { sent: 0, gone: 0, failed: 0, refused: 0, dropped: 0 })
  const received = await service.request(1)
  assert.equal(received.path, '/push/jason')
  assert.deepEqual(push.app.webPush.stats(), { sent: 0, gone: 0, failed: 0, refused: 0, dropped: 0 }, 'still waiting for the push service')
})

test('without VAPID keys push is off: subscriptions are still kept, and nothing is sent', async (t) => {
  const service = await startPushService(t)
  const push = await startPushApp(t, { service, vapid: false })
  assert.equal(push.app.webPush.enabled, false)
  await subscribe(push, service, 'jason')

  await push.post('david', rooms.david_and_jason.id, 'Anyone?')
  await push.app.webPush.settled()
  assert.deepEqual(service.received, [])
})
