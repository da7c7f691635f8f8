import assert from 'node:assert/strict'
import type { TestContext } from 'node:test'
import type { FastifyInstance, FastifyServerOptions, LightMyRequestResponse } from 'fastify'
import type { GuardPolicy } from '../../../../server/lib/private-network-guard.ts'
import { buildApp } from '../../../../server/app.ts'
import { RateLimit } from '../../../../server/lib/rate-limit.ts'
import { FLOW_COOKIE, type Flow } from '../../../../server/plugins/oidc.ts'
import { loadFixtures } from '../../../fixtures.ts'
import { sameOrigin, tempStorage, testConfig } from '../../../helper.ts'
import type { TestProvider } from '../../../support/oidc-provider.ts'

// What the single sign-on tests share: an app configured for the test provider, the flow from
// the button to the provider's redirect back, and the state of the database to compare.

export const CALLBACK = 'http://localhost/session/oidc/callback'

export async function ssoApp(t: TestContext, provider: TestProvider, options: { env?: Record<string, string>; clockSkew?: number; picturePolicy?: GuardPolicy; logger?: FastifyServerOptions['logger'] } = {}) {
  const config = testConfig(tempStorage(t), provider.env({ OIDC_ALLOWED_DOMAINS: 'example.com', ...options.env }))
  const signInLimit = new RateLimit(10, 3 * 60 * 1000)
  const app = await buildApp({ config, logger: options.logger ?? false, passwordCost: 4, signInLimit, oidc: { clockSkew: options.clockSkew, picturePolicy: options.picturePolicy } })
  t.after(() => app.close())
  app.store.writeNow((m) => loadFixtures(m.db))
  await app.ready()
  return { app, signInLimit, config }
}

export interface Started {
  flowCookie: string
  flow: Flow
  authorizationUrl: URL
}

export async function pressButton(app: FastifyInstance, headers: Record<string, string> = {}): Promise<Started> {
  const response = await app.inject({ method: 'POST', url: '/session/oidc/start', headers: { ...sameOrigin, ...headers } })
  assert.equal(response.statusCode, 303, response.body.slice(0, 500))
  const cookie = response.cookies.find((c) => c.name === FLOW_COOKIE)
  assert.ok(cookie, 'the flow cookie is set')
  const flow = JSON.parse(app.signing.verifyCookie(FLOW_COOKIE, decodeURIComponent(cookie.value))!) as Flow
  return { flowCookie: `${FLOW_COOKIE}=${cookie.value}`, flow, authorizationUrl: new URL(response.headers.location as string) }
}

export function comeBack(app: FastifyInstance, callback: URL, cookie: string | null): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: callback.pathname + callback.search, headers: cookie ? { cookie } : {} })
}

// Button, the provider's login page as `sub`, and back.
export async function signInAs(app: FastifyInstance, provider: TestProvider, sub: string) {
  const started = await pressButton(app)
  const callback = await provider.signIn(started.authorizationUrl.href, sub)
  const response = await comeBack(app, callback, started.flowCookie)
  return { ...started, callback, response }
}

export function counts(app: FastifyInstance) {
  return app.store.read((m) => ({
    users: m.db.prepare('SELECT count(*) FROM users').pluck().get() as number,
    sessions: m.db.prepare('SELECT count(*) FROM sessions').pluck().get() as number,
    identities: m.db.prepare('SELECT count(*) FROM oidc_identities').pluck().get() as number,
  }))
}

export function sessionCookie(response: LightMyRequestResponse): string | undefined {
  return response.cookies.find((c) => c.name === 'session_token' && c.value !== '')?.value
}

// A refusal: the sign-in page with its message and the password form, no session cookie, and
// no new person, session or link.
export function assertRefused(app: FastifyInstance, response: LightMyRequestResponse, before: ReturnType<typeof counts>, status: number, message: RegExp) {
  assert.equal(response.statusCode, status, response.body.slice(0, 300))
  assert.match(response.body, message)
  assert.match(response.body, /name="password"/, 'the password form is still there')
  assert.equal(sessionCookie(response), undefined, 'no session cookie')
  assert.deepEqual(counts(app), before, 'no user, session or link was made')
}
