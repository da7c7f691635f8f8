import { LRUCache } from 'lru-cache'
import { KeyGenerator } from './key-generator.ts'
import { activeSupportJson, MessageVerifier, readMarshalString } from './message-verifier.ts'
import { onFirstUse } from '../on-first-use.ts'

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

// cookies.permanent is "20 years from now" in calendar years (Feb 29 becomes Feb 28).
export function twentyYearsFrom(now: number): Date {
  const date = new Date(now)
  const month = date.getUTCMonth()
  date.setUTCFullYear(date.getUTCFullYear() + 20)
  if (date.getUTCMonth() !== month) date.setUTCDate(0)
  return date
}

function jsonOrMarshalString(bytes: Buffer): unknown {
  return bytes[0] === 4 && bytes[1] === 8 ? readMarshalString(bytes) : JSON.parse(bytes.toString('utf8'))
}

// Everything Campfire signs with SECRET_KEY_BASE, in the formats Rails 8.2 writes and reads.
// test/fixtures/rails-signing/README.md gives the derivations; its vectors come from Ruby.
export class RailsSigning {
  private readonly cookies: MessageVerifier
  private readonly signedIds: MessageVerifier
  private readonly legacySignedIds: MessageVerifier
  private readonly globalIds: MessageVerifier
  private readonly streams: MessageVerifier
  private readonly activeStorage: MessageVerifier

  constructor(secretKeyBase: string) {
    const keys = new KeyGenerator(secretKeyBase)
    const cookieKey = keys.generateKey('signed cookie')
    const signedIdKey = keys.generateKey('active_record/signed_id')
    this.cookies = new MessageVerifier(cookieKey, {
      digest: 'sha1',
      encoding: 'strict',
      metadataInSerializer: false,
      deserialize: (b) => b.toString('utf8'),
      serializeValue: activeSupportJson,
    })
    this.signedIds = new MessageVerifier(signedIdKey, { digest: 'sha256', encoding: 'urlsafe', metadataInSerializer: true })
    this.legacySignedIds = new MessageVerifier(signedIdKey, { digest: 'sha1', encoding: 'strict', metadataInSerializer: true })
    this.globalIds = new MessageVerifier(keys.generateKey('signed_global_ids'), {
      digest: 'sha1',
      encoding: 'urlsafe-padded',
      metadataInSerializer: true,
      deserialize: jsonOrMarshalString,
    })
    this.streams = new MessageVerifier(keys.generateKey('turbo/signed_stream_verifier_key'), { digest: 'sha256', encoding: 'strict', metadataInSerializer: true })
    // ActiveStorage.verifier (Rails.application.message_verifier("ActiveStorage")): MessageVerifier's
    // defaults, SHA1 and strict Base64, with the JSON serializer of load_defaults 8.2.
    this.activeStorage = new MessageVerifier(keys.generateKey('ActiveStorage'), { digest: 'sha1', encoding: 'strict', metadataInSerializer: true })
  }

  // cookies.signed.permanent[name] = value (the cookie jar keeps Rails' older envelope)
  signCookie(name: string, value: string, now = Date.now()): string {
    return this.cookies.generate(value, { purpose: `cookie.${name}`, expiresAt: twentyYearsFrom(now), envelope: 'message' })
  }

  // cookies.signed[name]: with the purpose, then (as Rails does) without it.
  verifyCookie(name: string, signed: string, now = Date.now()): string | undefined {
    let verdict = this.cookies.verify(signed, { purpose: `cookie.${name}`, now })
    if (!verdict.valid) verdict = this.cookies.verify(signed, { now })
    if (!verdict.valid || typeof verdict.value !== 'string') return undefined
    try {
      const value = JSON.parse(verdict.value)
      return typeof value === 'string' ? value : undefined
    } catch {
      return undefined
    }
  }

  // record.signed_id(purpose:, expires_in:)
  signedId(model: string, id: number, purpose: string, options: { expiresInMs?: number; now?: number } = {}): string {
    const expiresAt = options.expiresInMs === undefined ? undefined : new Date((options.now ?? Date.now()) + options.expiresInMs)
    return this.signedIds.generate(id, { purpose: signedIdPurpose(model, purpose), expiresAt })
  }

  // Model.find_signed(token, purpose:) → the id, or undefined
  verifySignedId(model: string, token: string, purpose: string, now = Date.now()): number | undefined {
    const options = { purpose: signedIdPurpose(model, purpose), now }
    let verdict = this.signedIds.verify(token, options)
    if (!verdict.valid && verdict.reason === 'mismatched digest') verdict = this.legacySignedIds.verify(token, options)
    const id = verdict.valid ? verdict.value : undefined
    return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined
  }

  // record.to_sgid(for:), as Action Text uses for attachables (no expiry)
  signedGlobalId(model: string, id: number | string, purpose = 'attachable', expiresAt?: Date): string {
    return this.globalIds.generate(globalId(model, id), { purpose, expiresAt })
  }

  verifySignedGlobalId(sgid: string, purpose = 'attachable', now = Date.now()): { model: string; id: string } | null {
    const verdict = this.globalIds.verify(sgid, { purpose, now })
    if (verdict.valid) return typeof verdict.value === 'string' ? parseGlobalId(verdict.value) : null
    const legacy = this.globalIds.verify(sgid, { now })
    return legacy.valid ? legacyGlobalId(legacy.value, purpose, now) : null
  }

  // ActiveStorage::Variation#key: the transformations, signed for the purpose 'variation' (no
  // expiry, so the URL is the same for every viewer and every render).
  variationKey(transformations: Record<string, unknown>): string {
    return this.activeStorage.generate(transformations, { purpose: 'variation' })
  }

  // ActiveStorage::Variation.decode: the transformations a key carries, or undefined.
  verifyVariationKey(key: string): Record<string, unknown> | undefined {
    const verdict = this.activeStorage.verify(key, { purpose: 'variation' })
    return verdict.valid && verdict.value && typeof verdict.value === 'object' && !Array.isArray(verdict.value) ? (verdict.value as Record<string, unknown>) : undefined
  }

  // Turbo::StreamsChannel.signed_stream_name. The same name always signs to the same text
  // (no expiry, no purpose), and every page signs its room's streams, so the signatures of the
  // most recent names are kept rather than made again.
  private readonly signedStreamNames = onFirstUse(() => new LRUCache<string, string>({ max: 4096 }))
  // The other way round: a signed name that verified (or that was signed here) stays valid as
  // long as the secret, which is the process's, so every subscribe with it need not check its
  // HMAC again (it costs as much as the membership read). Only exact texts that verified are
  // kept; anything else is verified in full.
  private readonly verifiedStreamNames = onFirstUse(() => new LRUCache<string, string>({ max: 4096 }))

  signStreamName(name: string): string {
    let signed = this.signedStreamNames().get(name)
    if (signed === undefined) {
      this.signedStreamNames().set(name, (signed = this.streams.generate(name)))
      this.verifiedStreamNames().set(signed, name)
    }
    return signed
  }

  verifyStreamName(signed: string): string | undefined {
    const known = this.verifiedStreamNames().get(signed)
    if (known !== undefined) return known
    const verdict = this.streams.verify(signed)
    if (!verdict.valid || typeof verdict.value !== 'string') return undefined
    this.verifiedStreamNames().set(signed, verdict.value)
    return verdict.value
  }
}

// globalid before its move to message metadata signed {gid, purpose, expires_at}.
function legacyGlobalId(value: unknown, purpose: string, now: number): { model: string; id: string } | null {
  if (!value || typeof value !== 'object') return null
  const { gid, purpose: signedFor, expires_at: expiresAt } = value as Record<string, unknown>
  if (typeof gid !== 'string' || signedFor !== purpose) return null
  if (expiresAt !== null && expiresAt !== undefined && !(Date.parse(String(expiresAt)) > now)) return null
  return parseGlobalId(gid)
}

// ActiveRecord combines the model name and the purpose: "user/avatar".
function signedIdPurpose(model: string, purpose: string): string {
  const base = model.replace(/::/g, '/').replace(/([a-z\d])([A-Z])/g, '$1_$2').toLowerCase()
  return purpose ? `${base}/${purpose}` : base
}
