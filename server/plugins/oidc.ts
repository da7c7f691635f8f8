import fp from 'fastify-plugin'
import { LRUCache } from 'lru-cache'
import type * as OpenId from 'openid-client'
import type { FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import type { GuardPolicy } from '../lib/private-network-guard.ts'
import { isLoopbackIssuer, type OidcConfig } from '../oidc-config.ts'
import { isHttps, requestOrigin } from './security.ts'
import { onFirstUse } from '../lib/on-first-use.ts'

declare module 'fastify' {
  interface FastifyInstance {
    oidc: OidcRelyingParty | null
  }
}

export const CALLBACK_PATH = '/session/oidc/callback'
// The redirect URI to register at the provider: this server's origin and CALLBACK_PATH.
export function callbackUrl(request: FastifyRequest): string {
  return new URL(CALLBACK_PATH, requestOrigin(request)).href
}

export const FLOW_COOKIE = 'oidc_flow'
// A longer `picture` claim is ignored.
const MAX_PICTURE_URL = 2048
// How long the person has at the provider between the button and the callback.
const FLOW_TTL_MS = 10 * 60 * 1000
// How far the provider's clock and ours may disagree, in seconds: openid-client's tolerance for
// exp and nbf, and ours for iat (which it does not check against the future).
export const CLOCK_TOLERANCE_SECONDS = 5

// What a sign-in in progress keeps in its signed cookie: state, nonce and the PKCE verifier.
export interface Flow {
  state: string
  nonce: string
  verifier: string
  expiresAt: number
}

// The claims the callback acts on, verified by openid-client (signature, issuer, audience,
// expiry, nonce) and completed from the userinfo endpoint when the ID token lacks the email.
export interface VerifiedClaims {
  sub: string
  email: string | null
  emailVerified: boolean
  name: string | null
  // The `picture` claim: an http(s) URL of the person's photo at the provider, or null.
  picture: string | null
  idToken: string
}

// The provider did not answer (down, unreachable, or slower than OIDC_TIMEOUT_SECONDS).
export class ProviderUnavailable extends Error {}
// The provider answered, but what came back does not hold up.
export class SignInNotVerified extends Error {}

export interface OidcRelyingParty {
  readonly name: string
  start(request: FastifyRequest): Promise<{ url: URL; flow: string }>
  finish(request: FastifyRequest, flowCookie: string | undefined): Promise<VerifiedClaims>
  // The provider's sign-out page when it has one (end_session_endpoint), else null.
  endSessionUrl(request: FastifyRequest, idToken: string): Promise<URL | null>
  cookieOptions(request: FastifyRequest): { path: string; httpOnly: true; sameSite: 'lax'; secure: boolean; maxAge?: number }
  readonly issuer: string
  readonly allowedDomains: readonly string[]
  // Which addresses the `picture` fetch may reach: public ones only, unless a test says otherwise.
  readonly picturePolicy: GuardPolicy
}

export interface OidcTestOptions {
  // Seconds added to this server's clock when checking tokens (tests: an expired ID token).
  clockSkew?: number
  // Widens the SSRF guard for the `picture` fetch (tests: a picture served on loopback).
  picturePolicy?: GuardPolicy
}

function unavailable(error: unknown): boolean {
  const name = (error as { name?: string })?.name
  const cause = (error as { cause?: { code?: string; name?: string } })?.cause
  return name === 'TimeoutError' || name === 'AbortError' || (error instanceof TypeError && (error.message === 'fetch failed' || cause?.code !== undefined)) || cause?.name === 'TimeoutError'
}

export default fp(
  async function oidc(app, options: { config: Config; test?: OidcTestOptions }) {
    const settings = options.config.oidc
    if (!settings) {
      app.decorate('oidc', null)
      return
    }
    // Loaded only when single sign-on is set up: the two packages are a tenth of a cold start.
    const client = await import('openid-client')
    const { importPKCS8 } = await import('jose')
    let discovered: Promise<OpenId.Configuration> | null = null
    const usedStates = onFirstUse(() => new LRUCache<string, true>({ max: 10_000, ttl: FLOW_TTL_MS }))

    // Discovery happens when first needed and is kept once it works, so a provider that is
    // down at boot costs nothing until someone presses the button.
    function configuration(): Promise<OpenId.Configuration> {
      discovered ??= discover(settings!).catch((error: unknown) => {
        discovered = null
        throw unavailable(error) || error instanceof client.ResponseBodyError || (error as { code?: string }).code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' ? new ProviderUnavailable(String((error as Error).message)) : error
      })
      return discovered
    }

    async function discover(oidc: OidcConfig): Promise<OpenId.Configuration> {
      const auth = oidc.clientSecret !== null ? client.ClientSecretBasic(oidc.clientSecret) : client.PrivateKeyJwt(await importPKCS8(oidc.privateKeyPem!, oidc.privateKeyAlgorithm))
      // The ID token's signature is checked against the provider's published keys (JWKS) too,
      // not only trusted for having come over the token endpoint's TLS.
      const execute = [client.enableNonRepudiationChecks]
      if (isLoopbackIssuer(oidc.issuer) && oidc.issuer.protocol === 'http:') execute.push(client.allowInsecureRequests)
      const metadata: Partial<OpenId.ClientMetadata> = { [client.clockTolerance]: CLOCK_TOLERANCE_SECONDS, ...(options.test?.clockSkew ? { [client.clockSkew]: options.test.clockSkew } : {}) }
      const found = await client.discovery(oidc.issuer, oidc.clientId, metadata, auth, { execute, timeout: oidc.timeoutSeconds })
      found.timeout = oidc.timeoutSeconds
      return found
    }

    const cookieOptions = (request: FastifyRequest) => ({ path: '/session/oidc', httpOnly: true as const, sameSite: 'lax' as const, secure: isHttps(request) })
    const redirectUri = (request: FastifyRequest) => callbackUrl(request)

    function readFlow(cookie: string | undefined): Flow | null {
      if (!cookie) return null
      const json = app.signing.verifyCookie(FLOW_COOKIE, cookie)
      if (!json) return null
      try {
        const flow = JSON.parse(json) as Partial<Flow>
        if (typeof flow.state !== 'string' || typeof flow.nonce !== 'string' || typeof flow.verifier !== 'string' || typeof flow.expiresAt !== 'number') return null
        return flow.expiresAt > Date.now() ? (flow as Flow) : null
      } catch {
        return null
      }
    }

    async function guarded<T>(work: () => Promise<T>): Promise<T> {
      try {
        return await work()
      } catch (error) {
        if (error instanceof ProviderUnavailable || error instanceof SignInNotVerified) throw error
        if (unavailable(error)) throw new ProviderUnavailable((error as Error).message)
        throw new SignInNotVerified((error as Error).message)
      }
    }

    const party: OidcRelyingParty = {
      name: settings.name,
      issuer: settings.issuer.href,
      allowedDomains: settings.allowedDomains,
      picturePolicy: options.test?.picturePolicy ?? {},
      cookieOptions,

      async start(request) {
        const config = await configuration()
        const flow: Flow = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(), expiresAt: Date.now() + FLOW_TTL_MS }
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: redirectUri(request),
          scope: settings.scopes,
          response_type: 'code',
          code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
          code_challenge_method: 'S256',
          state: flow.state,
          nonce: flow.nonce,
        })
        return { url, flow: app.signing.signCookie(FLOW_COOKIE, JSON.stringify(flow)) }
      },

      async finish(request, flowCookie) {
        const flow = readFlow(flowCookie)
        if (!flow) throw new SignInNotVerified('no sign-in in progress on this browser (or it expired)')
        // A flow's state is answered once in this process, even by someone holding its cookie.
        if (usedStates().has(flow.state)) throw new SignInNotVerified('state already used')
        usedStates().set(flow.state, true)
        const config = await configuration()
        const current = new URL(`${requestOrigin(request)}${request.url}`)
        const checks = { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true }
        const tokens = await guarded(() => client.authorizationCodeGrant(config, current, checks, { redirect_uri: redirectUri(request) }))
        const claims = tokens.claims()
        if (!claims || !tokens.id_token) throw new SignInNotVerified('no ID token')
        // An ID token issued in the future was not issued by a provider whose clock agrees with ours.
        const now = Math.floor(Date.now() / 1000) + (options.test?.clockSkew ?? 0)
        if (typeof claims.iat !== 'number' || claims.iat > now + CLOCK_TOLERANCE_SECONDS) throw new SignInNotVerified('ID token issued in the future')
        // Providers that keep the ID token small (oidc-provider, Entra) give the email and name
        // at the userinfo endpoint; the email and its verification are taken together.
        let profile: Record<string, unknown> = claims
        if (typeof claims.email !== 'string' || (claims.email_verified === undefined && claims.xms_edov === undefined)) {
          const info = await guarded(() => client.fetchUserInfo(config, tokens.access_token, claims.sub))
          profile = { ...claims, ...info, sub: claims.sub }
        }
        const email = typeof profile.email === 'string' ? profile.email : null
        const given = [profile.given_name, profile.family_name].filter((part) => typeof part === 'string').join(' ')
        const name = typeof profile.name === 'string' ? profile.name : given || null
        // Microsoft Entra ID sends no email_verified; its optional claim xms_edov says the
        // email's domain is verified by the tenant that owns it.
        const emailVerified = profile.email_verified === true || profile.xms_edov === true
        const picture = typeof profile.picture === 'string' && profile.picture.length <= MAX_PICTURE_URL ? profile.picture : null
        return { sub: claims.sub, email, emailVerified, name, picture, idToken: tokens.id_token }
      },

      async endSessionUrl(request, idToken) {
        let config: OpenId.Configuration
        try {
          config = await configuration()
        } catch {
          return null
        }
        if (!config.serverMetadata().end_session_endpoint) return null
        return client.buildEndSessionUrl(config, { id_token_hint: idToken, post_logout_redirect_uri: new URL('/', requestOrigin(request)).href })
      },
    }
    app.decorate('oidc', party)
  },
  { name: 'oidc', dependencies: ['auth'] },
)
