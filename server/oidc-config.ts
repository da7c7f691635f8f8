import { readFileSync } from 'node:fs'

// Single sign-on through an OpenID Connect provider (docs/sso.md). Without OIDC_ISSUER there is
// none, and nothing about signing in changes.
export interface OidcConfig {
  readonly issuer: URL
  readonly clientId: string
  // One of the two: a client secret (client_secret_basic), or a PKCS#8 PEM private key that signs
  // the client's assertions (private_key_jwt) with privateKeyAlgorithm.
  readonly clientSecret: string | null
  readonly privateKeyPem: string | null
  readonly privateKeyAlgorithm: string
  // The button's label: "Sign in with <name>".
  readonly name: string
  // Who may join through the provider when no one here has their email: lower-case domains; none
  // means only people already here can sign in with it.
  readonly allowedDomains: readonly string[]
  readonly scopes: string
  // How long the provider has to answer each request.
  readonly timeoutSeconds: number
}

type Env = Record<string, string | undefined>

export class OidcConfigError extends Error {}

// The JWS algorithms a client assertion may be signed with (JWA names, as written).
export const PRIVATE_KEY_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

// An issuer on this machine may be plain http (a provider under test, or behind the same
// proxy); anywhere else it must be https.
export function isLoopbackIssuer(issuer: URL): boolean {
  return LOOPBACK_HOSTS.has(issuer.hostname)
}

export function readOidcConfig(env: Env): OidcConfig | null {
  const raw = env.OIDC_ISSUER?.trim()
  if (!raw) return null
  let issuer: URL
  try {
    issuer = new URL(raw)
  } catch {
    throw new OidcConfigError(`OIDC_ISSUER must be the provider's issuer URL, got "${raw}"`)
  }
  if (issuer.protocol !== 'https:' && !(issuer.protocol === 'http:' && isLoopbackIssuer(issuer))) {
    throw new OidcConfigError(`OIDC_ISSUER must be an https:// URL (http:// only on localhost), got "${raw}"`)
  }
  const clientId = env.OIDC_CLIENT_ID?.trim()
  if (!clientId) throw new OidcConfigError('OIDC_ISSUER is set, so OIDC_CLIENT_ID is needed too')
  const clientSecret = env.OIDC_CLIENT_SECRET?.trim() || null
  const keyFile = env.OIDC_CLIENT_PRIVATE_KEY_FILE?.trim() || null
  if (!clientSecret && !keyFile) throw new OidcConfigError('OIDC_ISSUER is set, so OIDC_CLIENT_SECRET or OIDC_CLIENT_PRIVATE_KEY_FILE is needed too')
  if (clientSecret && keyFile) throw new OidcConfigError('Set OIDC_CLIENT_SECRET or OIDC_CLIENT_PRIVATE_KEY_FILE, not both')
  let privateKeyPem: string | null = null
  if (keyFile) {
    try {
      privateKeyPem = readFileSync(keyFile, 'utf8')
    } catch (error) {
      throw new OidcConfigError(`OIDC_CLIENT_PRIVATE_KEY_FILE cannot be read (${(error as Error).message})`)
    }
    if (!privateKeyPem.includes('-----BEGIN PRIVATE KEY-----')) throw new OidcConfigError('OIDC_CLIENT_PRIVATE_KEY_FILE must hold a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----)')
  }
  const scopes = (env.OIDC_SCOPES ?? '').split(/[\s,]+/).filter((scope) => scope !== '')
  if (scopes.length > 0 && !scopes.includes('openid')) scopes.unshift('openid')
  const timeout = env.OIDC_TIMEOUT_SECONDS?.trim() ? Number(env.OIDC_TIMEOUT_SECONDS) : 10
  if (!Number.isFinite(timeout) || timeout < 1 || timeout > 120) throw new OidcConfigError(`OIDC_TIMEOUT_SECONDS must be a number of seconds from 1 to 120, got "${env.OIDC_TIMEOUT_SECONDS}"`)
  const domains = (env.OIDC_ALLOWED_DOMAINS ?? '').split(/[\s,]+/).map((domain) => domain.trim().toLowerCase().replace(/^@/, '')).filter((domain) => domain !== '')
  const notDomain = domains.find((domain) => !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(domain))
  if (notDomain !== undefined) throw new OidcConfigError(`OIDC_ALLOWED_DOMAINS takes email domains separated by commas (e.g. example.com), got "${notDomain}"`)
  return Object.freeze({
    issuer,
    clientId,
    clientSecret,
    privateKeyPem,
    privateKeyAlgorithm: readKeyAlgorithm(env.OIDC_CLIENT_PRIVATE_KEY_ALG),
    name: env.OIDC_NAME?.trim() || issuer.hostname,
    allowedDomains: Object.freeze(domains),
    scopes: scopes.length > 0 ? scopes.join(' ') : 'openid email profile',
    timeoutSeconds: timeout,
  })
}

function readKeyAlgorithm(value: string | undefined): string {
  const algorithm = value?.trim() || 'RS256'
  if (!(PRIVATE_KEY_ALGORITHMS as readonly string[]).includes(algorithm)) throw new OidcConfigError(`OIDC_CLIENT_PRIVATE_KEY_ALG must be one of ${PRIVATE_KEY_ALGORITHMS.join(', ')}, got "${value}"`)
  return algorithm
}
