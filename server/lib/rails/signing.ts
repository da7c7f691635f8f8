import { KeyGenerator } from './key-generator.ts'
import { MessageVerifier } from './message-verifier.ts'

const TWENTY_YEARS_MS = 20 * 365.25 * 24 * 60 * 60 * 1000
export const APP_NAME = 'campfire'

// GlobalID#to_param: URL-safe base64 of "gid://campfire/<Model>/<id>" without padding.
export function globalId(model: string, id: number | string): string {
  return `gid://${APP_NAME}/${model}/${id}`
}

export function globalIdParam(model: string, id: number | string): string {
  return Buffer.from(globalId(model, id), 'utf8').toString('base64url')
}

export function parseGlobalId(gid: string): { model: string; id: string } | null {
  const match = /^gid:\/\/([^/]+)\/([A-Za-z0-9:]+)\/([^/?]+)$/.exec(gid)
  return match && match[1] === APP_NAME ? { model: match[2]!, id: decodeURIComponent(match[3]!) } : null
}

export function parseGlobalIdParam(param: string): { model: string; id: string } | null {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(param)) return null
  return parseGlobalId(Buffer.from(param, 'base64url').toString('utf8'))
}

// Everything Campfire signs with SECRET_KEY_BASE, in the formats Rails 8 reads and writes.
// See test/fixtures/rails-signing/README.md for the derivations and the golden vectors.
export class RailsSigning {
  private readonly keys: KeyGenerator
  private readonly cookies: MessageVerifier
  private readonly signedIds: MessageVerifier
  private readonly globalIds: MessageVerifier
  private readonly streams: MessageVerifier

  constructor(secretKeyBase: string) {
    this.keys = new KeyGenerator(secretKeyBase)
    this.cookies = new MessageVerifier(this.keys.generateKey('signed cookie'), { digest: 'sha256', urlSafe: false })
    this.signedIds = new MessageVerifier(this.keys.generateKey('active_record/signed_id'), { digest: 'sha256', urlSafe: true })
    this.globalIds = new MessageVerifier(this.keys.generateKey('signed_global_ids'), { digest: 'sha1', urlSafe: false })
    this.streams = new MessageVerifier(this.keys.generateKey('turbo/signed_stream_verifier_key'), { digest: 'sha256', urlSafe: false })
  }

  // cookies.signed.permanent[name] = value
  signCookie(name: string, value: string, now = Date.now()): string {
    return this.cookies.generate(value, { purpose: `cookie.${name}`, expiresAt: new Date(now + TWENTY_YEARS_MS) })
  }

  verifyCookie(name: string, signed: string, now = Date.now()): string | undefined {
    const value = this.cookies.verify(signed, { purpose: `cookie.${name}`, now })
    return typeof value === 'string' ? value : undefined
  }

  // record.signed_id(purpose:, expires_in:)
  signedId(model: string, id: number, purpose: string, options: { expiresInMs?: number; now?: number } = {}): string {
    const expiresAt = options.expiresInMs === undefined ? undefined : new Date((options.now ?? Date.now()) + options.expiresInMs)
    return this.signedIds.generate(id, { purpose: signedIdPurpose(model, purpose), expiresAt })
  }

  // Model.find_signed(token, purpose:) → the id, or undefined
  verifySignedId(model: string, token: string, purpose: string, now = Date.now()): number | undefined {
    const value = this.signedIds.verify(token, { purpose: signedIdPurpose(model, purpose), now })
    const id = typeof value === 'string' ? Number(value) : value
    return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined
  }

  // record.to_sgid(for: purpose) as Action Text uses for attachables (no expiry)
  signedGlobalId(model: string, id: number, purpose = 'attachable'): string {
    return this.globalIds.generate(globalId(model, id), { purpose })
  }

  verifySignedGlobalId(sgid: string, purpose = 'attachable'): { model: string; id: string } | null {
    const value = this.globalIds.verify(sgid, { purpose })
    return typeof value === 'string' ? parseGlobalId(value) : null
  }

  // Turbo::StreamsChannel.signed_stream_name
  signStreamName(name: string): string {
    return this.streams.generate(name)
  }

  verifyStreamName(signed: string): string | undefined {
    const value = this.streams.verify(signed)
    return typeof value === 'string' ? value : undefined
  }
}

// ActiveRecord combines the model name and the purpose: "user/avatar".
function signedIdPurpose(model: string, purpose: string): string {
  const base = model.replace(/::/g, '/').replace(/([a-z\d])([A-Z])/g, '$1_$2').toLowerCase()
  return purpose ? `${base}/${purpose}` : base
}
