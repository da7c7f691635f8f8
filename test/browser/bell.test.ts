import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import Database from 'better-sqlite3'
import type { Browser, Page } from 'playwright-core'
import { browserSubscription, decryptedPushes, startPushService, type PushService } from '../support/push-service.ts'
import { DESKTOP, PHONE, chromiumAvailable, launchBrowser, openTab, screenshot, sendMessage, signIn, waitUntilLive, type Tab } from './support/browser.ts'
import { startCampfire, type Campfire } from './support/campfire.ts'
import { startPushingCampfire, stubPushManager } from './support/push.ts'

// The room bell turning Web Push on, in Chromium, against a server with VAPID keys that delivers
// to the test's own push service on loopback: first-run pulse, permission, subscription, the
// stored row, the involvement frame, and a post's push decrypted with the browser's keys. Then a
// refused permission and its dialog, and a server without VAPID keys.
const FIRST_RUN = 'notifications-first-run-seen'
const bellIn = (page: Page) => page.locator('[data-notifications-target="bell"]')

async function cookie(tab: Tab, name: string): Promise<string | undefined> {
  return (await tab.context.cookies()).find((c) => c.name === name)?.value
}

async function waitForClass(page: Page, selector: string, name: string, present: boolean): Promise<void> {
  await page.waitForFunction(`document.querySelector(${JSON.stringify(selector)})?.classList.contains(${JSON.stringify(name)}) === ${present}`)
}

describe('the room bell with push', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  let service: PushService
  let campfire: Campfire
  let vapid: { publicKey: string }
  let browser: Browser
  let pingPath: string
  let hqPath: string
  const cleanups: (() => Promise<void> | void)[] = []
  const database = () => new Database(join(campfire.storage, 'db', 'production.sqlite3'), { readonly: true })

  before(async () => {
    const t = { after: (fn: () => Promise<void> | void) => void cleanups.push(fn) }
    service = await startPushService(t)
    ;({ campfire, vapid } = await startPushingCampfire(t, service))
    browser = await launchBrowser(t)
    pingPath = `/rooms/${campfire.labels['rooms.david_and_jason']}`
    hqPath = `/rooms/${campfire.labels['rooms.hq']}`
  })

  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  test('granted: the bell pulses on a first visit; a click subscribes, the server stores it, the involvement loads, and a post’s push decrypts', async () => {
    const subscription = browserSubscription(service.endpoint('/push/david-chromium'))
    const david = await openTab(browser, campfire.baseUrl)
    const { page } = david
    await david.context.grantPermissions(['notifications'], { origin: campfire.baseUrl })
    await stubPushManager(david.context, subscription)
    await signIn(david, 'david@37signals.com')
    await page.goto(pingPath)

    const bell = page.getByRole('button', { name: 'Notification settings for this Ping', exact: true })
    await waitForClass(page, '[data-notifications-target="bell"]', 'btn--pulsing', true)
    await page.locator('[data-notifications-target="bell"] .icon--bell-alert:not([hidden])').waitFor()
    assert.equal(await bell.getAttribute('aria-describedby'), `notifications_hint_rooms_direct_${campfire.labels['rooms.david_and_jason']}`)
    assert.equal(await cookie(david, FIRST_RUN), undefined)

    const posted = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/users/me/push_subscriptions')
    await bell.click()
    const request = await posted
    assert.deepEqual(request.postDataJSON(), { push_subscription: { endpoint: subscription.endpoint, p256dh_key: subscription.p256dh_key, auth_key: subscription.auth_key } })
    assert.equal((await request.response())?.status(), 200)
    assert.equal(await page.evaluate("localStorage.getItem('test-push-application-server-key')"), vapid.publicKey, 'subscribed with the server’s VAPID key')

    // The involvement frame takes the bell's place, and the status says push is on.
    const toggle = page.getByRole('button', { name: 'Notifying about all messages', exact: true })
    await toggle.waitFor()
    assert.equal(await bellIn(page).count(), 0)
    assert.equal(await toggle.getAttribute('role'), null, 'a button, not a checkbox')
    assert.match(await page.locator('#nav').ariaSnapshot(), /- button "Notifying about all messages"/)
    assert.equal(await page.locator(`#${await toggle.getAttribute('aria-describedby')}`).textContent(), 'Press to turn notifications off')
    assert.equal(await page.locator('[data-notifications-target="status"]').textContent(), 'Notifications are on.')
    assert.equal(await cookie(david, FIRST_RUN), 'true')
    await screenshot(page, 'bell-enabled-desktop-light')

    const db = database()
    const rows = db.prepare("SELECT endpoint, p256dh_key, auth_key, user_agent FROM push_subscriptions WHERE user_id = (SELECT id FROM users WHERE email_address = 'david@37signals.com')").all() as Record<string, string>[]
    db.close()
    assert.equal(rows.length, 1)
    assert.deepEqual({ ...rows[0], user_agent: undefined }, { endpoint: subscription.endpoint, p256dh_key: subscription.p256dh_key, auth_key: subscription.auth_key, user_agent: undefined })
    assert.match(rows[0]!.user_agent!, /Chrome\//)

    // Next visit: no pulse, and the involvement loads straight away from the existing subscription.
    await page.goto(hqPath)
    await page.getByRole('button', { name: 'Notifications are off' }).waitFor()
    assert.equal(await page.locator('.btn--pulsing').count(), 0)

    // David leaves the rooms; Jason writes to him in their Ping, and the push reaches David's push service.
    await page.goto('/users/me/profile')
    await waitUntilAway(campfire, Number(campfire.labels['rooms.david_and_jason']))
    const jason = await openTab(browser, campfire.baseUrl)
    await signIn(jason, 'jason@37signals.com')
    await jason.page.goto(pingPath)
    await waitUntilLive(jason.page)
    const pushed = service.request(service.received.length + 1)
    await sendMessage(jason.page, 'Are you free for lunch?')
    await pushed
    const payloads = decryptedPushes(service, subscription)
    assert.equal(payloads.length, 1)
    assert.equal(payloads[0]!.title, 'Jason Fried')
    assert.equal(payloads[0]!.options.body, 'Are you free for lunch?')
    assert.equal(payloads[0]!.options.data.path, pingPath)
    assert.deepEqual([...david.problems, ...jason.problems], [])
    await jason.context.close()
    await david.context.close()
  })

  test('granted, but the browser cannot subscribe (Chromium reaching no push service): nothing is posted, the bell stays and says so', async () => {
    const tab = await openTab(browser, campfire.baseUrl)
    const { page } = tab
    await tab.context.grantPermissions(['notifications'], { origin: campfire.baseUrl })
    await signIn(tab, 'kevin@37signals.com')
    await page.goto(hqPath)
    await page.locator('[data-notifications-target="bell"] .icon--bell-alert:not([hidden])').waitFor()
    const posts: string[] = []
    page.on('request', (r) => void (r.method() === 'POST' && posts.push(new URL(r.url()).pathname)))
    await page.getByRole('button', { name: 'Notification settings for this room', exact: true }).click()
    const status = page.locator('[data-notifications-target="status"]')
    await page.waitForFunction(`document.querySelector('[data-notifications-target="status"]').textContent.includes('could not')`)
    assert.equal(await status.textContent(), 'Notifications could not be turned on. Try again.')
    assert.deepEqual(posts, [])
    assert.equal(await bellIn(page).count(), 1)
    assert.equal(await bellIn(page).getAttribute('aria-busy'), null)
    assert.equal(await page.getByRole('dialog').count(), 0)
    assert.deepEqual(tab.problems, [])
    await tab.context.close()
  })

  for (const [viewport, size] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      test(`denied on ${viewport} (${scheme}): the click opens the dialog with Chrome’s steps, and the pulse is gone after`, async () => {
        const tab = await openTab(browser, campfire.baseUrl, { viewport: size, colorScheme: scheme })
        const { page } = tab
        await signIn(tab, 'david@37signals.com')
        const cdp = await tab.context.newCDPSession(page)
        await cdp.send('Browser.setPermission', { permission: { name: 'notifications' }, setting: 'denied', origin: campfire.baseUrl })
        await page.goto(hqPath)
        assert.equal(await page.evaluate('Notification.permission'), 'denied')
        await waitForClass(page, '[data-notifications-target="bell"]', 'btn--pulsing', true)
        // The pulse caught a quarter of the way out, the same in every screenshot.
        await page.evaluate(`document.querySelector('[data-notifications-target="bell"]').getAnimations().forEach((a) => { a.pause(); a.currentTime = 450 })`)
        await screenshot(page, `bell-pulsing-${viewport}-${scheme}`)

        await page.getByRole('button', { name: 'Notification settings for this room', exact: true }).click()
        const dialog = page.getByRole('dialog', { name: 'Notifications aren’t allowed' })
        await dialog.waitFor()
        await dialog.getByText('Check your Chrome settings').waitFor()
        await dialog.getByText('Set Notifications to Allow.').waitFor()
        assert.equal(await dialog.locator('details[data-notifications-target="details"][open]').count(), 1, 'the one section that applies is open')
        await page.waitForTimeout(250)
        await screenshot(page, `bell-dialog-${viewport}-${scheme}`)
        await dialog.getByRole('button', { name: 'Close' }).click()
        await dialog.waitFor({ state: 'hidden' })
        assert.equal(await page.locator('[data-notifications-target="status"]').textContent(), 'Notifications aren’t allowed in this browser.', 'the status no longer says they are being turned on')
        assert.equal(await cookie(tab, FIRST_RUN), 'true')

        await page.reload()
        await page.locator('[data-notifications-target="bell"] .icon--bell-alert:not([hidden])').waitFor()
        assert.equal(await page.locator('.btn--pulsing').count(), 0, 'no pulse once the bell has been used')
        await screenshot(page, `bell-alert-${viewport}-${scheme}`)
        assert.equal(await page.locator('[data-notifications-target="bell"]').count(), 1, 'still the bell: push is not on')
        assert.deepEqual(tab.problems, [])
        await tab.context.close()
      })
    }
  }
})

// Waits until David's membership in the room counts no open connection (his room page is gone).
async function waitUntilAway(campfire: Campfire, roomId: number): Promise<void> {
  const db = new Database(join(campfire.storage, 'db', 'production.sqlite3'), { readonly: true })
  try {
    const read = db.prepare("SELECT connected_at FROM memberships WHERE room_id = ? AND user_id = (SELECT id FROM users WHERE email_address = 'david@37signals.com')").pluck()
    for (let i = 0; i < 200 && read.get(roomId) !== null; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(read.get(roomId), null, 'David is away from the room')
  } finally {
    db.close()
  }
}

describe('the room bell without VAPID keys', { skip: !chromiumAvailable() && 'chromium is not installed' }, () => {
  test('is the involvement toggle alone: no pulse, no dialog, and a click changes the level', async (t) => {
    const campfire = await startCampfire(t)
    const browser = await launchBrowser(t)
    for (const scheme of ['light', 'dark'] as const) {
      const tab = await openTab(browser, campfire.baseUrl, { colorScheme: scheme })
      const { page } = tab
      await signIn(tab, 'david@37signals.com')
      await page.goto(`/rooms/${campfire.labels['rooms.david_and_jason']}`)
      const toggle = page.getByRole('button', { name: scheme === 'light' ? 'Notifying about all messages' : 'Notifications are off' })
      await toggle.waitFor()
      assert.equal(await page.locator('dialog[data-notifications-target], [data-controller~="notifications"], .btn--pulsing').count(), 0)
      assert.equal(await toggle.getAttribute('aria-checked'), null)
      await screenshot(page, `bell-no-push-desktop-${scheme}`)
      if (scheme === 'light') {
        await toggle.click()
        await page.getByRole('button', { name: 'Notifications are off' }).waitFor()
      }
      assert.deepEqual(tab.problems, [])
      await tab.context.close()
    }
  })
})
