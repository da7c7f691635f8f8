import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms } from '../../fixtures.ts'
import { vapidKeys } from '../../support/push-service.ts'
import { get } from './support.ts'

// The bell in the room nav (views/rooms/show/_nav.eta): with VAPID keys, upstream's bell that
// turns push on before the involvement frame loads; without them, the involvement toggle alone.
const navOf = (body: string) => /<nav id="nav">([\s\S]*?)<\/nav>/.exec(body)![1]!

test('with VAPID keys the room nav holds the bell that turns push on, its status and the not-allowed dialog', async (t) => {
  const { publicKey, privateKey } = vapidKeys()
  const { app } = await buildTestApp(t, { env: { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey } })
  const page = await get(app, await signIn(app, 'david'), `/rooms/${rooms.designers.id}`)
  assert.equal(page.statusCode, 200)
  const nav = navOf(page.body)
  assert.match(nav, /<div class="button_to_change_notifying" data-controller="notifications" data-notifications-subscriptions-url-value="\/users\/me\/push_subscriptions" data-notifications-attention-class="btn--pulsing"/)
  assert.match(nav, /<turbo-frame id="involvement_rooms_closed_4" data-controller="turbo-frame" data-action="notifications:ready@window->turbo-frame#load" data-turbo-frame-url-param="\/rooms\/4\/involvement">/)
  assert.doesNotMatch(nav, /<turbo-frame id="involvement_rooms_closed_4"[^>]*\ssrc=/, 'the involvement loads only once push is ready')
  assert.match(nav, /<button type="button" class="btn" data-action="notifications#attemptToSubscribe" data-notifications-target="bell" aria-labelledby="notifications_label_rooms_closed_4" aria-describedby="notifications_hint_rooms_closed_4">/)
  assert.match(nav, /id="notifications_label_rooms_closed_4">Notification settings for this room</)
  assert.match(nav, /<span class="for-screen-reader" role="status" data-notifications-target="status"><\/span>/)
  assert.match(nav, /<dialog data-notifications-target="notAllowedNotice" [^>]*aria-labelledby="notifications_not_allowed_rooms_closed_4">/)
  assert.match(nav, /id="notifications_not_allowed_rooms_closed_4">Notifications aren&#8217;t allowed</)
  assert.match(nav, /<turbo-frame id="notification_help" [^>]*src="\/users\/me\/notification_help" loading="lazy">/)
  assert.match(page.body, new RegExp(`<meta name="vapid-public-key" content="${publicKey}">`))
  assert.doesNotMatch(nav, /role="checkbox"|aria-checked/)
})

test('a Ping’s bell says Ping', async (t) => {
  const { publicKey, privateKey } = vapidKeys()
  const { app } = await buildTestApp(t, { env: { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey } })
  const page = await get(app, await signIn(app, 'david'), `/rooms/${rooms.david_and_jason.id}`)
  assert.match(navOf(page.body), />Notification settings for this Ping</)
})

test('without VAPID keys the nav’s bell is the involvement toggle alone and says nothing about push', async (t) => {
  const { app } = await buildTestApp(t)
  const page = await get(app, await signIn(app, 'david'), `/rooms/${rooms.designers.id}`)
  assert.equal(page.statusCode, 200)
  const nav = navOf(page.body)
  assert.match(nav, /<div class="notifications">\s*<turbo-frame id="involvement_rooms_closed_4" src="\/rooms\/4\/involvement"><\/turbo-frame>\s*<\/div>/)
  assert.doesNotMatch(page.body, /data-controller="notifications"|notAllowedNotice|notification_help|aren&#8217;t allowed|btn--pulsing/)
})
