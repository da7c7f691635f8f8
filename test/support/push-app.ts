import type { TestContext } from 'node:test'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppOptions } from '../../server/app.ts'
import { RateLimit } from '../../server/lib/rate-limit.ts'
import { mentionAttachmentHtml } from '../../server/models/rich-text/index.ts'
import { loadFixtures, type UserName } from '../fixtures.ts'
import { capturedLog, inject, sameOrigin, signIn, tempStorage, testConfig, type CapturedLog } from '../helper.ts'
import { vapidKeys, type BrowserSubscription, type PushService } from './push-service.ts'
import { post as postMessage } from '../routes/messages/support.ts'
import { compiledWorkers } from './compiled-server.ts'

// An app with the fixture cast and VAPID keys that delivers Web Push to the test's own push
// service on loopback (trusting its certificate), its log kept; and what the push tests do with it.
export interface PushApp {
  app: FastifyInstance
  log: CapturedLog
  vapid: { publicKey: string; privateKey: string }
  // Posts as a person through POST /rooms/:id/messages; the status and the new message's id.
  post(name: UserName, roomId: number, body: string): Promise<{ status: number; messageId: number }>
  // Subscribes as the notifications controller does (JSON), answering the response.
  subscribe(name: UserName, subscription: Pick<BrowserSubscription, 'endpoint' | 'p256dh_key' | 'auth_key'>): Promise<LightMyRequestResponse>
  cookie(name: UserName): Promise<string>
  mention(userId: number): string
}

export const onLoopback = (url: URL) => url.protocol === 'https:' && url.hostname === '127.0.0.1'

export async function startPushApp(
  t: TestContext,
  options: { service?: PushService; vapid?: boolean; webPush?: AppOptions['webPush']; loopback?: boolean } = {},
): Promise<PushApp> {
  const log = capturedLog()
  const vapid = vapidKeys()
  const env: Record<string, string> = options.vapid === false ? {} : { VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey }
  const loopback = options.loopback === false ? {} : { permitsEndpoint: onLoopback, isAllowedAddress: (address: string) => address === '127.0.0.1' }
  const app = await buildApp({
    config: testConfig(tempStorage(t), env),
    logger: { level: 'debug', stream: log.stream },
    passwordCost: 4, compiledWorkers: await compiledWorkers(),
    signInLimit: new RateLimit(1000, 60_000),
    webPush: { ...loopback, ca: options.service?.ca, ...options.webPush },
  })
  t.after(() => app.close())
  app.store.writeNow((m) => loadFixtures(m.db))
  await app.ready()
  const cookies = new Map<UserName, Promise<string>>()
  const cookie = (name: UserName) => cookies.get(name) ?? cookies.set(name, signIn(app, name)).get(name)!

  return {
    app,
    log,
    vapid,
    cookie,
    async post(name, roomId, body) {
      const response = await postMessage(app, await cookie(name), roomId, body)
      const id = /data-message-id="(\d+)"/.exec(response.body)?.[1]
      return { status: response.statusCode, messageId: Number(id ?? 0) }
    },
    async subscribe(name, subscription) {
      return inject(app, await cookie(name), {
        method: 'POST',
        url: '/users/me/push_subscriptions',
        headers: { ...sameOrigin, 'content-type': 'application/json', accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml', 'user-agent': `Test browser of ${name}` },
        payload: JSON.stringify({ push_subscription: { endpoint: subscription.endpoint, p256dh_key: subscription.p256dh_key, auth_key: subscription.auth_key } }),
      })
    },
    mention: (userId) => mentionAttachmentHtml(app.signing.signedGlobalId('User', userId)),
  }
}
