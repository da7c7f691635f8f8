import { createHmac, timingSafeEqual } from 'node:crypto'

export type Digest = 'sha1' | 'sha256'
export type Encoding = 'strict' | 'urlsafe' | 'urlsafe-padded'

export interface VerifierOptions {
  digest: Digest
  encoding: Encoding
  // Rails ≥ 7.1 keeps purpose and expiry inside the serialized value ({"_rails":{"data":…}}),
  // except for verifiers with a pass-through serializer (the cookie jar), which keep the
  // older envelope only.
  metadataInSerializer: boolean
  deserialize?: (bytes: Buffer) => unknown
  serializeValue?: (value: unknown) => string
}

export interface GenerateOptions {
  purpose?: string
  expiresAt?: Date
  // 'data': {"_rails":{"data":…,"exp"?,"pur"?}}; 'message': {"_rails":{"message":"<base64>","exp","pur"}}
  envelope?: 'data' | 'message'
}

export interface VerifyOptions {
  purpose?: string
  now?: number
}

export type Verdict = { valid: true; value: unknown } | { valid: false; reason: string }

const HEX_LENGTH: Record<Digest, number> = { sha1: 40, sha256: 64 }
const LEGACY_PREFIX = '{"_rails":{"message":'

// ActiveSupport::JSON.encode escapes characters that are unsafe inside HTML.
export function activeSupportJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

export function railsTime(date: Date): string {
  return date.toISOString()
}

// ActiveSupport::MessageVerifier: "<base64 payload>--<lowercase hex HMAC of the payload>".
export class MessageVerifier {
  constructor(
    private readonly secret: Buffer,
    private readonly options: VerifierOptions,
  ) {}

  generate(value: unknown, options: GenerateOptions = {}): string {
    const payload = this.encode(Buffer.from(this.serialize(value, options), 'utf8'))
    return `${payload}--${this.hmac(payload)}`
  }

  verify(signed: string, options: VerifyOptions = {}): Verdict {
    const payload = this.verifiedPayload(signed)
    if (payload === null) return { valid: false, reason: 'mismatched digest' }
    const text = Buffer.from(payload, 'base64').toString('utf8')
    if (text.startsWith(LEGACY_PREFIX)) return this.verifyLegacy(text, options)
    let value: unknown
    try {
      value = this.deserialize(Buffer.from(text, 'utf8'))
    } catch {
      return { valid: false, reason: 'not deserializable' }
    }
    const rails = this.options.metadataInSerializer ? envelopeOf(value) : null
    if (rails) return checkMetadata(rails, options) ?? { valid: true, value: rails.data }
    if (options.purpose === undefined || options.purpose === '') return { valid: true, value }
    return { valid: false, reason: 'mismatched purpose' }
  }

  private verifyLegacy(text: string, options: VerifyOptions): Verdict {
    let rails: Record<string, unknown> | null
    try {
      rails = envelopeOf(JSON.parse(text))
    } catch {
      return { valid: false, reason: 'not deserializable' }
    }
    if (!rails || typeof rails.message !== 'string') return { valid: false, reason: 'not deserializable' }
    const failure = checkMetadata(rails, options)
    if (failure) return failure
    try {
      return { valid: true, value: this.deserialize(Buffer.from(rails.message, 'base64')) }
    } catch {
      return { valid: false, reason: 'not deserializable' }
    }
  }

  private serialize(value: unknown, options: GenerateOptions): string {
    const { purpose, expiresAt } = options
    if (options.envelope === 'message') {
      const message = Buffer.from((this.options.serializeValue ?? JSON.stringify)(value), 'utf8').toString('base64')
      return JSON.stringify({ _rails: { message, exp: expiresAt ? railsTime(expiresAt) : null, pur: purpose ?? null } })
    }
    if (purpose === undefined && expiresAt === undefined) return JSON.stringify(value)
    const rails: Record<string, unknown> = { data: value }
    if (expiresAt) rails.exp = railsTime(expiresAt)
    if (purpose !== undefined) rails.pur = purpose
    return JSON.stringify({ _rails: rails })
  }

  private deserialize(bytes: Buffer): unknown {
    return this.options.deserialize ? this.options.deserialize(bytes) : JSON.parse(bytes.toString('utf8'))
  }

  private verifiedPayload(signed: unknown): string | null {
    if (typeof signed !== 'string') return null
    const hexLength = HEX_LENGTH[this.options.digest]
    const split = signed.length - hexLength - 2
    if (split < 1 || signed.slice(split, split + 2) !== '--') return null
    const payload = signed.slice(0, split)
    if (!/^[A-Za-z0-9+/_=-]+$/.test(payload)) return null
    const given = Buffer.from(signed.slice(split + 2), 'latin1')
    const expected = Buffer.from(this.hmac(payload), 'latin1')
    return given.length === expected.length && timingSafeEqual(given, expected) ? payload : null
  }

  private hmac(payload: string): string {
    return createHmac(this.options.digest, this.secret).update(payload).digest('hex')
  }

  private encode(bytes: Buffer): string {
    if (this.options.encoding === 'strict') return bytes.toString('base64')
    const urlsafe = bytes.toString('base64url')
    return this.options.encoding === 'urlsafe' ? urlsafe : urlsafe.padEnd(Math.ceil(urlsafe.length / 4) * 4, '=')
  }
}

function checkMetadata(rails: Record<string, unknown>, options: VerifyOptions): Verdict | null {
  if (rails.exp !== undefined && rails.exp !== null) {
    const expires = Date.parse(String(rails.exp))
    if (Number.isNaN(expires) || (options.now ?? Date.now()) >= expires) return { valid: false, reason: 'expired' }
  }
  if (String(rails.pur ?? '') !== String(options.purpose ?? '')) return { valid: false, reason: 'mismatched purpose' }
  return null
}

function envelopeOf(parsed: unknown): Record<string, unknown> | null {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || !('_rails' in parsed)) return null
  const rails = (parsed as { _rails: unknown })._rails
  return rails && typeof rails === 'object' && !Array.isArray(rails) ? (rails as Record<string, unknown>) : null
}

// Just enough of Ruby's Marshal to read a String (what Rails 7.0 signed global ids carry):
// 04 08 "I" '"' <length> <bytes> then the encoding ivar.
export function readMarshalString(bytes: Buffer): string {
  if (bytes[0] !== 4 || bytes[1] !== 8) throw new Error('not Marshal data')
  let offset = 2
  if (bytes[offset] === 0x49) offset++
  if (bytes[offset] !== 0x22) throw new Error('not a Marshal String')
  offset++
  const [length, next] = readMarshalLong(bytes, offset)
  return bytes.subarray(next, next + length).toString('utf8')
}

function readMarshalLong(bytes: Buffer, offset: number): [number, number] {
  const c = (bytes[offset]! << 24) >> 24
  if (c === 0) return [0, offset + 1]
  if (c > 4) return [c - 5, offset + 1]
  if (c > 0) {
    let value = 0
    for (let i = 0; i < c; i++) value |= bytes[offset + 1 + i]! << (8 * i)
    return [value, offset + 1 + c]
  }
  throw new Error('negative Marshal length')
}
