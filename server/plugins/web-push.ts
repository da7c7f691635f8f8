import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { BoundedQueue } from '../lib/bounded-queue.ts'
import { WebPushPool, type PushOutcome } from '../lib/web-push-pool.ts'
import { isPushServiceEndpoint, type PushSubscriptionRow } from '../models/push/subscription.ts'
import { pushNotice, pushPayload, type PushNotice } from '../models/room/message-pusher.ts'
import type { CreatedMessage } from './message-listeners.ts'

// Web Push for new messages (§1.25, Room::PushMessageJob): the listener returns at once; on a
// later turn of the event loop the recipients are read (Room::MessagePusher) and each push is
// queued in the delivery pool (server/lib/web-push-pool.ts), which is bounded and never awaited
// by a request. A subscription whose push service answers 404 or 410 is deleted. Without VAPID
// keys push is off (main.ts logs why once) and nothing is queued.
//
// Endpoints: only a browser vendor's push service, over HTTPS on 443 (isPushServiceEndpoint),
// and only public addresses, looked up and pinned as each connection is made; any member can
// store an endpoint, so none may make the server reach a private network. Tests pass their
// own rules and certificate authority for a push service on loopback.
export const VAPID_SUBJECT = 'mailto:support@37signals.com'
const MAX_PENDING_MESSAGES = 1000

export interface WebPushOptions {
  config: Config
  permitsEndpoint?: (url: URL) => boolean
  isAllowedAddress?: (address: string) => boolean
  ca?: string
  concurrency?: number
  maxQueue?: number
  timeoutMs?: number
}

export interface WebPush {
  readonly enabled: boolean
  permitsEndpoint(url: URL): boolean
  // One notice to one subscription (the test notification); false when push is off or full.
  notify(subscription: PushSubscriptionRow, notice: PushNotice): boolean
  // Resolves once every message so far has been fanned out and every push has settled.
  settled(): Promise<void>
  stats(): Record<PushOutcome, number>
  // Pushes waiting for a slot or under way.
  queued(): number
}

declare module 'fastify' {
  interface FastifyInstance {
    webPush: WebPush
  }
}

export default fp(
  async function webPush(app, options: WebPushOptions) {
    const permitsEndpoint = options.permitsEndpoint ?? isPushServiceEndpoint
    const vapid = options.config.vapid
    const gone = new Set<number>()
    let forgetting: Promise<unknown> = Promise.resolve()
    let closing = false

    const pool = vapid
      ? new WebPushPool({
          vapid: { subject: VAPID_SUBJECT, ...vapid },
          permitsEndpoint,
          isAllowedAddress: options.isAllowedAddress,
          ca: options.ca,
          concurrency: options.concurrency,
          maxQueue: options.maxQueue,
          timeoutMs: options.timeoutMs,
          onGone: (id) => forgetLater(id),
          onFailure: (push, reason) => app.log.debug({ subscriptionId: push.subscriptionId, service: origin(push.endpoint), reason }, 'push not delivered'),
        })
      : null
    const messages = new BoundedQueue({ concurrency: 1, maxPending: MAX_PENDING_MESSAGES })

    // Forgotten together, in one write per turn of the event loop.
    function forgetLater(id: number): void {
      if (closing) return
      if (gone.size === 0) setImmediate(forgetGone)
      gone.add(id)
    }
    function forgetGone(): void {
      const ids = [...gone]
      gone.clear()
      if (closing || ids.length === 0) return
      forgetting = app.store
        .write((m) => ids.forEach((id) => m.pushSubscriptions.expire(id)))
        .catch((error: unknown) => app.log.warn({ err: error }, 'expired push subscriptions could not be deleted'))
    }

    function fanOut({ room, message, creator }: CreatedMessage): void {
      if (!pool || closing) return
      const verify = (sgid: string) => app.signing.verifySignedGlobalId(sgid)
      const { recipients, text } = app.store.read((m) => {
        const mentioned = m.messagePusher.mentionedUserIds(message.id, verify)
        return { recipients: m.messagePusher.recipients(room.id, creator.id, mentioned), text: m.messagePusher.plainText(message.id) }
      })
      if (recipients.length === 0) return
      // Only as many payloads are built as the pool can take; the rest are dropped at once.
      const taking = recipients.slice(0, pool.capacity)
      const notice = pushNotice(room, creator.name, text)
      const taken = pool.queueAll(taking.map((r) => ({ subscriptionId: r.id, endpoint: r.endpoint, p256dh: r.p256dh_key, auth: r.auth_key, payload: pushPayload(notice, r.badge) })))
      const dropped = recipients.length - taken
      pool.dropped(recipients.length - taking.length)
      if (dropped > 0) app.log.warn({ messageId: message.id, dropped }, 'push queue is full; pushes dropped')
    }

    if (pool) {
      app.messageListeners.add((created) => {
        const queued = messages.push(async () => {
          await new Promise((resolve) => setImmediate(resolve))
          fanOut(created)
        })
        if (!queued && !closing) app.log.warn({ messageId: created.message.id }, 'push fan-out queue is full; message not pushed')
      })
    }

    app.decorate('webPush', {
      enabled: pool !== null,
      permitsEndpoint,
      notify(subscription, notice) {
        if (!pool || closing) return false
        const badge = app.store.read((m) => m.messagePusher.unreadCount(subscription.user_id))
        const push = { subscriptionId: subscription.id, endpoint: subscription.endpoint, p256dh: subscription.p256dh_key, auth: subscription.auth_key }
        return pool.queueAll([{ ...push, payload: pushPayload(notice, badge) }]) === 1
      },
      async settled() {
        await messages.idle()
        await pool?.idle()
        await new Promise((resolve) => setImmediate(resolve))
        await forgetting
      },
      stats: () => ({ ...(pool?.stats ?? { sent: 0, gone: 0, failed: 0, refused: 0, dropped: 0 }) }),
      queued: () => pool?.queued ?? 0,
    } satisfies WebPush)

    // Nothing new is taken once closing starts; pushes in flight are ended.
    app.addHook('preClose', async () => {
      closing = true
      await messages.close()
      await pool?.close()
      await forgetting
    })
  },
  { name: 'web-push', dependencies: ['message-listeners'] },
)

// A push service, for the log: the endpoint's origin only (the rest identifies the browser).
function origin(endpoint: string): string {
  try {
    return new URL(endpoint).origin
  } catch {
    return 'invalid URL'
  }
}
