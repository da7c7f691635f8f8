import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext } from 'playwright-core'
import { vapidKeys, type BrowserSubscription, type PushService } from '../../support/push-service.ts'
import { startCampfire, type Campfire } from './campfire.ts'

type After = { after: (fn: () => Promise<void> | void) => void }

// A browser-test Campfire with VAPID keys that delivers Web Push to the test's own push service
// on loopback (test/support/push-server.ts, trusting that service's certificate).
export async function startPushingCampfire(t: After, service: PushService): Promise<{ campfire: Campfire; vapid: { publicKey: string; privateKey: string } }> {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-push-ca-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const caFile = join(dir, 'ca.pem')
  writeFileSync(caFile, service.ca)
  const vapid = vapidKeys()
  const settings = { VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey, PUSH_SERVICE_CA_FILE: caFile }
  const campfire = await startCampfire(t, settings, 'development', ['node', '--import', 'tsx', 'test/support/push-server.ts'])
  return { campfire, vapid }
}

// Chromium here reaches no real push service, so its PushManager is replaced, before any page
// script runs, by one that hands out the given subscription (keys made by node:crypto, endpoint
// at the test's push service). subscribe() keeps the applicationServerKey it was given (as
// URL-safe base64, in localStorage "test-push-application-server-key") and remembers that this
// origin is subscribed, so getSubscription() answers the subscription on later pages.
export async function stubPushManager(context: BrowserContext, subscription: Pick<BrowserSubscription, 'endpoint' | 'p256dh_key' | 'auth_key'>): Promise<void> {
  const values = JSON.stringify({ endpoint: subscription.endpoint, p256dh: subscription.p256dh_key, auth: subscription.auth_key })
  await context.addInitScript(`(() => {
    const { endpoint, p256dh, auth } = ${values}
    const subscribedKey = 'test-push-subscribed'
    const made = () => ({
      endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true },
      toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
      unsubscribe: async () => { localStorage.removeItem(subscribedKey); return true },
    })
    if (!('PushManager' in window)) return
    PushManager.prototype.subscribe = async function (options) {
      const key = new Uint8Array(options.applicationServerKey)
      const base64 = btoa(String.fromCharCode(...key)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '')
      localStorage.setItem('test-push-application-server-key', base64)
      localStorage.setItem(subscribedKey, 'yes')
      return made()
    }
    PushManager.prototype.getSubscription = async function () {
      return localStorage.getItem(subscribedKey) ? made() : null
    }
  })()`)
}
