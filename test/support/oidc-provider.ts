import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generateKeyPairSync } from 'node:crypto'
import Provider, { type Configuration } from 'oidc-provider'
import { CookieJar } from './server-process.ts'

// A real OpenID provider (oidc-provider) on loopback for the single sign-on tests, with its own
// login page (any login, any password; the login is the person's `sub`). The people it knows are
// `people`, which a test may change between sign-ins (a new email, an unverified one).

export interface Person {
  email: string
  email_verified?: boolean
  // Microsoft Entra's "email domain owner verified", in place of email_verified.
  xms_edov?: boolean
  name?: string
  // The URL of the person's photo (the `picture` claim).
  picture?: string
}

export const CLIENT_ID = 'campfire'
export const CLIENT_SECRET = 'campfire-test-secret-that-is-long-enough'
export const OTHER_CLIENT_ID = 'another-app'
// A client that authenticates with a private key JWT (private_key_jwt) instead of a secret.
export const KEY_CLIENT_ID = 'campfire-with-a-key'

export interface TestProvider {
  issuer: string
  // The PKCS#8 PEM private key of KEY_CLIENT_ID.
  clientPrivateKeyPem: string
  people: Map<string, Person>
  // Redirect URIs the campfire client may use; set before the first sign-in.
  allowRedirects(uris: string[]): void
  // Faults a test switches on: the provider's JWKS answering with a key it never signs with;
  // the token endpoint answering with a token response of the test's choosing.
  faults: { foreignJwks: boolean; tokenResponse: object | null; stalled: boolean }
  env(extra?: Record<string, string>): Record<string, string>
  // Signs in at the provider's own pages over HTTP, from an authorization URL to the redirect
  // back (the callback URL with code and state).
  signIn(authorizationUrl: string, sub: string): Promise<URL>
  // A real ID token for another client (OTHER_CLIENT_ID) carrying `nonce`.
  idTokenForAnotherClient(sub: string, nonce: string): Promise<object>
  close(): Promise<void>
}

export async function startTestProvider(t: { after: (fn: () => Promise<void>) => void }): Promise<TestProvider> {
  const people = new Map<string, Person>()
  const faults: TestProvider['faults'] = { foreignJwks: false, tokenResponse: null, stalled: false }
  let provider: Provider | null = null
  const foreignKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' })
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (faults.stalled) return // accepts the connection and never answers
    if (faults.foreignJwks && request.url === '/jwks') {
      response.setHeader('content-type', 'application/json')
      return response.end(JSON.stringify({ keys: [{ ...foreignKey, kid: 'foreign', use: 'sig', alg: 'RS256' }] }))
    }
    if (faults.tokenResponse && request.method === 'POST' && request.url === '/token') {
      request.resume()
      response.setHeader('content-type', 'application/json')
      return response.end(JSON.stringify(faults.tokenResponse))
    }
    if (!provider) return void response.writeHead(503).end()
    provider.callback()(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const sockets = new Set<import('node:net').Socket>()
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })

  const clientKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const clientPublicJwk = { ...clientKeys.publicKey.export({ format: 'jwk' }), kid: 'client-key', use: 'sig', alg: 'ES256' }
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' })
  const configuration = (redirectUris: string[]): Configuration => ({
    clients: [
      { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: redirectUris, post_logout_redirect_uris: redirectUris.map((uri) => new URL('/', uri).href), grant_types: ['authorization_code'], response_types: ['code'] },
      { client_id: KEY_CLIENT_ID, token_endpoint_auth_method: 'private_key_jwt', token_endpoint_auth_signing_alg: 'ES256', jwks: { keys: [clientPublicJwk] }, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] },
      { client_id: OTHER_CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: ['http://127.0.0.1/other/callback'], grant_types: ['authorization_code'], response_types: ['code'] },
    ],
    jwks: { keys: [{ ...signingKey, kid: 'test-key', use: 'sig', alg: 'RS256' }] },
    cookies: { keys: ['oidc-test-cookie-key-0123456789'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified', 'xms_edov'], profile: ['name', 'picture'] },
    scopes: ['openid', 'email', 'profile'],
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    ttl: { Interaction: 600, Grant: 3600, Session: 3600, IdToken: 3600, AccessToken: 3600, AuthorizationCode: 60 },
    pkce: { required: () => true, methods: ['S256'] },
    async findAccount(_ctx, sub) {
      const person = people.get(sub)
      if (!person) return undefined
      return { accountId: sub, claims: () => ({ sub, ...person }) }
    },
    // Consent is taken as given, so signing in is the login page alone.
    async loadExistingGrant(ctx) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! })
      grant.addOIDCScope('openid email profile')
      await grant.save()
      return grant
    },
    renderError(ctx, out) {
      ctx.type = 'text/plain'
      ctx.body = `${out.error}: ${out.error_description ?? ''}`
    },
  })

  const quiet = console.warn
  function build(uris: string[]) {
    // oidc-provider warns at construction about its development-only parts, which are what a
    // test provider is.
    console.warn = () => {}
    try {
      provider = new Provider(issuer, configuration(uris))
    } finally {
      console.warn = quiet
    }
  }

  async function followToCallback(jar: CookieJar, start: string, sub: string, callbackPrefix: string): Promise<URL> {
    let url = start
    for (let hop = 0; hop < 10; hop++) {
      const here = new URL(url)
      const back = new URL(callbackPrefix)
      if (here.origin === back.origin && here.pathname === back.pathname) return here
      const headers = { cookie: jar.header() }
      let response = await fetch(url, { headers, redirect: 'manual' })
      jar.store(response)
      if (response.status === 200 && new URL(url).pathname.startsWith('/interaction/')) {
        await response.text()
        response = await fetch(url, { method: 'POST', headers: { ...headers, cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ prompt: 'login', login: sub, password: 'any' }), redirect: 'manual' })
        jar.store(response)
      }
      const location = response.headers.get('location')
      if (!location) throw new Error(`the provider stopped at ${url} with ${response.status}: ${(await response.text()).slice(0, 300)}`)
      url = new URL(location, url).href
    }
    throw new Error('too many redirects at the provider')
  }

  const test: TestProvider = {
    issuer,
    clientPrivateKeyPem: clientKeys.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    people,
    faults,
    allowRedirects: (uris) => build(uris),
    env: (extra = {}) => ({ OIDC_ISSUER: issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET, OIDC_NAME: 'Test IdP', OIDC_TIMEOUT_SECONDS: '2', ...extra }),
    async signIn(authorizationUrl, sub) {
      const redirect = new URL(authorizationUrl).searchParams.get('redirect_uri')!
      return followToCallback(new CookieJar(), authorizationUrl, sub, redirect)
    },
    async idTokenForAnotherClient(sub, nonce) {
      const redirect = 'http://127.0.0.1/other/callback'
      const verifier = 'v'.repeat(64)
      const { createHash } = await import('node:crypto')
      const challenge = createHash('sha256').update(verifier).digest('base64url')
      const auth = `${issuer}/auth?${new URLSearchParams({ client_id: OTHER_CLIENT_ID, redirect_uri: redirect, response_type: 'code', scope: 'openid email', nonce, state: 'other', code_challenge: challenge, code_challenge_method: 'S256' })}`
      const back = await followToCallback(new CookieJar(), auth, sub, redirect)
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${OTHER_CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: redirect, code_verifier: verifier }),
      })
      if (!response.ok) throw new Error(`token for the other client: ${response.status} ${await response.text()}`)
      return (await response.json()) as object
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  t.after(() => test.close())
  return test
}
