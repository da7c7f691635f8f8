import { createECDH } from 'node:crypto'
import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'

// Push::Subscription: a browser's Web Push endpoint for one person.
export interface PushSubscriptionRow {
  id: number
  user_id: number
  endpoint: string
  p256dh_key: string
  auth_key: string
  user_agent: string | null
  created_at: string
  updated_at: string
}

export interface PushSubscriptionInput {
  endpoint: string
  p256dh_key: string
  auth_key: string
}

// Browsers only ever subscribe at their vendor's push service, so an endpoint anywhere else (a
// member's own server, an internal address) is refused: delivering to it would let any member
// make the server send requests where they like. As upstream's Push::Subscription allows.
export const PUSH_SERVICE_HOSTS = ['fcm.googleapis.com', 'jmt17.google.com', 'updates.push.services.mozilla.com', 'web.push.apple.com', 'notify.windows.com']

export const MAX_ENDPOINT_LENGTH = 2048
// The devices one person keeps subscribed; subscribing another forgets the least recently seen.
export const MAX_SUBSCRIPTIONS_PER_PERSON = 20
const MAX_USER_AGENT_LENGTH = 512
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/

// HTTPS on the default port at a browser vendor's push service (or a subdomain of one).
export function isPushServiceEndpoint(url: URL): boolean {
  const host = url.hostname.toLowerCase()
  return url.protocol === 'https:' && url.port === '' && PUSH_SERVICE_HOSTS.some((permitted) => host === permitted || host.endsWith(`.${permitted}`))
}

// Why a subscription cannot be kept, or null: the endpoint must be a permitted HTTPS URL without
// credentials or fragment, p256dh_key an uncompressed P-256 point and auth_key 16 bytes, both
// URL-safe base64 as PushSubscription.toJSON() gives them.
export function subscriptionProblem(input: PushSubscriptionInput, permits: (url: URL) => boolean = isPushServiceEndpoint): string | null {
  if (input.endpoint.length > MAX_ENDPOINT_LENGTH) return 'Endpoint is too long'
  let url: URL
  try {
    url = new URL(input.endpoint)
  } catch {
    return 'Endpoint is not a valid URL'
  }
  if (url.protocol !== 'https:') return 'Endpoint must use HTTPS'
  if (url.username !== '' || url.password !== '' || url.hash !== '') return 'Endpoint must not carry credentials or a fragment'
  if (!permits(url)) return 'Endpoint is not a permitted push service'
  if (!isPublicKey(input.p256dh_key)) return 'P256dh key is not a P-256 public key'
  if (!BASE64URL.test(input.auth_key) || Buffer.from(input.auth_key, 'base64url').length !== 16) return 'Auth key is not 16 bytes of URL-safe base64'
  return null
}

function isPublicKey(text: string): boolean {
  if (!BASE64URL.test(text)) return false
  const key = Buffer.from(text, 'base64url')
  if (key.length !== 65 || key[0] !== 0x04) return false
  try {
    const ecdh = createECDH('prime256v1')
    ecdh.generateKeys()
    ecdh.computeSecret(key)
    return true
  } catch {
    return false
  }
}

const COLUMNS = 'id, user_id, endpoint, p256dh_key, auth_key, user_agent, created_at, updated_at'

export function pushSubscriptions(db: Connection) {
  const destroyByEndpoint = db.prepare('DELETE FROM push_subscriptions WHERE user_id = ? AND endpoint = ?')
  const findIdentical = db.prepare<[number, string, string, string], number>(
    'SELECT id FROM push_subscriptions WHERE user_id = ? AND endpoint = ? AND p256dh_key = ? AND auth_key = ? LIMIT 1',
  ).pluck()
  const touch = db.prepare('UPDATE push_subscriptions SET updated_at = ? WHERE id = ?')
  const insert = db.prepare(
    'INSERT INTO push_subscriptions (user_id, endpoint, p256dh_key, auth_key, user_agent, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  )
  const forgetStaleKeys = db.prepare('DELETE FROM push_subscriptions WHERE user_id = ? AND endpoint = ? AND id != ?')
  const forgetBeyondLimit = db.prepare(
    `DELETE FROM push_subscriptions WHERE user_id = @userId AND id NOT IN
       (SELECT id FROM push_subscriptions WHERE user_id = @userId ORDER BY updated_at DESC, id DESC LIMIT @limit)`,
  )
  const forUser = db.prepare<[number], PushSubscriptionRow>(`SELECT ${COLUMNS} FROM push_subscriptions WHERE user_id = ? ORDER BY id`)
  const find = db.prepare<[number, number], PushSubscriptionRow>(`SELECT ${COLUMNS} FROM push_subscriptions WHERE id = ? AND user_id = ?`)
  const destroyOwn = db.prepare('DELETE FROM push_subscriptions WHERE id = ? AND user_id = ?')
  const destroy = db.prepare('DELETE FROM push_subscriptions WHERE id = ?')

  return {
    // Signing out from a browser forgets the subscription it had (the browser has already
    // unsubscribed itself), so nothing is pushed to a signed-out device.
    destroyByEndpoint: (userId: number, endpoint: string): number => destroyByEndpoint.run(userId, endpoint).changes,

    // Users::PushSubscriptionsController#create: an identical subscription is touched, anything
    // else is created with the browser's user agent. Keys are per subscription, so the same
    // endpoint's older keys are forgotten; so is the person's least recently seen device past
    // MAX_SUBSCRIPTIONS_PER_PERSON. Runs in the writer's transaction; answers the row's id.
    subscribe(userId: number, input: PushSubscriptionInput, userAgent: string | undefined): number {
      const now = dbTime()
      const existing = findIdentical.get(userId, input.endpoint, input.p256dh_key, input.auth_key)
      if (existing !== undefined) {
        touch.run(now, existing)
        return existing
      }
      const agent = userAgent === undefined ? null : userAgent.slice(0, MAX_USER_AGENT_LENGTH)
      const id = Number(insert.run(userId, input.endpoint, input.p256dh_key, input.auth_key, agent, now, now).lastInsertRowid)
      forgetStaleKeys.run(userId, input.endpoint, id)
      forgetBeyondLimit.run({ userId, limit: MAX_SUBSCRIPTIONS_PER_PERSON })
      return id
    },

    forUser: (userId: number): PushSubscriptionRow[] => forUser.all(userId),
    find: (userId: number, id: number): PushSubscriptionRow | undefined => find.get(id, userId),
    // One of the person's own, by id; whether there was one.
    destroy: (userId: number, id: number): boolean => destroyOwn.run(id, userId).changes > 0,
    // The push service answered 404 or 410: the subscription has expired or was withdrawn.
    expire: (id: number): boolean => destroy.run(id).changes > 0,
  }
}
