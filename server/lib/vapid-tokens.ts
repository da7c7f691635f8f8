import { lazyPackage } from './lazy-package.ts'

const webpush = lazyPackage<typeof import('web-push')>('web-push')

export interface Vapid {
  subject: string
  publicKey: string
  privateKey: string
}

const TOKEN_LIFETIME_S = 12 * 60 * 60
const TOKEN_REUSE_MS = 60 * 60 * 1000
const MAX_AUDIENCES = 256

// web-push's VAPID Authorization header for a push service (RFC 8292: the JWT's audience is the
// service's origin). A token is valid for 12 hours and reused for one, since signing it costs
// twice what encrypting a push does.
export class VapidTokens {
  private readonly tokens = new Map<string, { authorization: string; renewAt: number }>()

  constructor(private readonly vapid: Vapid) {}

  authorization(audience: string, now = Date.now()): string {
    const cached = this.tokens.get(audience)
    if (cached && cached.renewAt > now) return cached.authorization
    const { subject, publicKey, privateKey } = this.vapid
    const { Authorization } = webpush().getVapidHeaders(audience, subject, publicKey, privateKey, 'aes128gcm', Math.floor(now / 1000) + TOKEN_LIFETIME_S)
    if (this.tokens.size >= MAX_AUDIENCES) this.tokens.clear()
    this.tokens.set(audience, { authorization: Authorization, renewAt: now + TOKEN_REUSE_MS })
    return Authorization
  }
}
