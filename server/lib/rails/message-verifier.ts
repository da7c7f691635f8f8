import { createHmac, timingSafeEqual } from 'node:crypto'

export type Digest = 'sha1' | 'sha256'

export interface VerifierOptions {
  digest: Digest
  urlSafe: boolean
}

export interface GenerateOptions {
  purpose?: string
  expiresAt?: Date
  // 'data' is the Rails ≥ 7.1 envelope ({"_rails":{"data":…}}); 'message' the older one
  // ({"_rails":{"message":"<base64 of the serialized value>"}}).
  envelope?: 'data' | 'message'
}

export interface VerifyOptions {
  purpose?: string
  now?: number
}

const HEX_LENGTH: Record<Digest, number> = { sha1: 40, sha256: 64 }

// ActiveSupport::MessageVerifier with the JSON serializer: "<base64 payload>--<hex HMAC>".
export class MessageVerifier {
  constructor(
    private readonly secret: Buffer,
    private readonly options: VerifierOptions,
  ) {}

  generate(value: unknown, options: GenerateOptions = {}): string {
    const payload = this.encode(JSON.stringify(this.wrap(value, options)))
    return `${payload}--${this.hmac(payload)}`
  }

  // Returns the value, or undefined when the signature, purpose or expiry does not hold.
  verify(signed: string, options: VerifyOptions = {}): unknown {
    const payload = this.verifiedPayload(signed)
    if (payload === null) return undefined
    let parsed: unknown
    try {
      parsed = JSON.parse(this.decode(payload))
    } catch {
      return undefined
    }
    return unwrap(parsed, options, (text) => this.decode(text))
  }

  private verifiedPayload(signed: string): string | null {
    if (typeof signed !== 'string') return null
    const hexLength = HEX_LENGTH[this.options.digest]
    const split = signed.length - hexLength - 2
    if (split < 1 || signed.slice(split, split + 2) !== '--') return null
    const payload = signed.slice(0, split)
    const given = Buffer.from(signed.slice(split + 2), 'utf8')
    const expected = Buffer.from(this.hmac(payload), 'utf8')
    return given.length === expected.length && timingSafeEqual(given, expected) ? payload : null
  }

  private wrap(value: unknown, options: GenerateOptions): unknown {
    if (options.purpose === undefined && options.expiresAt === undefined) return value
    const rails: Record<string, unknown> =
      options.envelope === 'message' ? { message: this.encode(JSON.stringify(value)) } : { data: value }
    if (options.expiresAt) rails.exp = options.expiresAt.toISOString()
    if (options.purpose !== undefined) rails.pur = options.purpose
    return { _rails: rails }
  }

  private hmac(payload: string): string {
    return createHmac(this.options.digest, this.secret).update(payload).digest('hex')
  }

  private encode(text: string): string {
    const buffer = Buffer.from(text, 'utf8')
    return this.options.urlSafe ? buffer.toString('base64url') : buffer.toString('base64')
  }

  private decode(text: string): string {
    if (!/^[A-Za-z0-9+/_=-]*$/.test(text)) throw new Error('not base64')
    return Buffer.from(text, this.options.urlSafe ? 'base64url' : 'base64').toString('utf8')
  }
}

function unwrap(parsed: unknown, options: VerifyOptions, decode: (text: string) => string): unknown {
  const rails = envelopeOf(parsed)
  if (!rails) return options.purpose === undefined ? parsed : undefined
  if ((rails.pur ?? undefined) !== options.purpose) return undefined
  if (rails.exp !== undefined && rails.exp !== null) {
    const expires = Date.parse(String(rails.exp))
    if (Number.isNaN(expires) || expires <= (options.now ?? Date.now())) return undefined
  }
  if ('data' in rails) return rails.data
  if (typeof rails.message !== 'string') return undefined
  try {
    return JSON.parse(decode(rails.message))
  } catch {
    return undefined
  }
}

function envelopeOf(parsed: unknown): Record<string, unknown> | null {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null
  const keys = Object.keys(parsed)
  if (keys.length !== 1 || keys[0] !== '_rails') return null
  const rails = (parsed as { _rails: unknown })._rails
  return rails && typeof rails === 'object' && !Array.isArray(rails) ? (rails as Record<string, unknown>) : null
}
