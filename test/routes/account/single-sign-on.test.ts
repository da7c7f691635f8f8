import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { users } from '../../fixtures.ts'
import { buildTestApp, form, inject, signIn } from '../../helper.ts'
import { startTestProvider, type TestProvider } from '../../support/oidc-provider.ts'
import { CALLBACK, sessionCookie, signInAs, ssoApp } from '../sessions/oidc/support.ts'

let provider: TestProvider
before(async () => {
  provider = await startTestProvider({ after: () => {} })
  provider.allowRedirects([CALLBACK])
})
after(() => provider.close())

const providerOnly = (value: string) => ({ method: 'PUT' as const, url: '/account/single_sign_on', ...form({ provider_only: value }) })

test('administrators see the redirect URI and the switch on the account page; members see neither', async (t) => {
  const { app } = await ssoApp(t, provider)
  const david = await signIn(app, 'david')
  const page = await inject(app, david, { method: 'GET', url: '/account/edit' })
  assert.equal(page.statusCode, 200)
  assert.match(page.body, /value="http:\/\/localhost\/session\/oidc\/callback" readonly/)
  assert.match(page.body, /Sign in with Test IdP only/)
  const kevin = await signIn(app, 'kevin')
  const theirs = await inject(app, kevin, { method: 'GET', url: '/account/edit' })
  assert.equal(theirs.statusCode, 200)
  assert.doesNotMatch(theirs.body, /session\/oidc\/callback|Test IdP only/)
})

test('without OIDC_ISSUER there is no button, no switch and no single sign-on route', async (t) => {
  const { app } = await buildTestApp(t)
  const page = await app.inject({ method: 'GET', url: '/session/new' })
  assert.doesNotMatch(page.body, /oidc/)
  assert.equal((await app.inject({ method: 'POST', url: '/session/oidc/start', headers: { 'sec-fetch-site': 'same-origin' } })).statusCode, 404)
  assert.equal((await app.inject({ method: 'GET', url: '/session/oidc/callback?code=a&state=b' })).statusCode, 404)
  const david = await signIn(app, 'david')
  assert.doesNotMatch((await inject(app, david, { method: 'GET', url: '/account/edit' })).body, /single_sign_on/)
})

test('the sign-in page shows the provider button above the password form', async (t) => {
  const { app } = await ssoApp(t, provider)
  const page = await app.inject({ method: 'GET', url: '/session/new' })
  const button = page.body.indexOf('Sign in with Test IdP')
  const password = page.body.indexOf('name="password"')
  assert.ok(button > 0 && password > button, 'the button comes first')
  assert.match(page.body, /action="\/session\/oidc\/start" method="post"/)
  assert.doesNotMatch(page.body, /<details class="sign-in-password">/)
})

test('signing in with the provider only folds the password form away and refuses members passwords, not administrators', async (t) => {
  const { app, signInLimit } = await ssoApp(t, provider)
  const david = await signIn(app, 'david')
  const kevin = await signIn(app, 'kevin')
  assert.equal((await inject(app, kevin, providerOnly('true'))).statusCode, 403, 'members cannot flip it')
  const on = await inject(app, david, providerOnly('true'))
  assert.equal(on.statusCode, 302)
  assert.equal(app.store.read((m) => m.oidcIdentities.providerOnly()), true)
  const page = await app.inject({ method: 'GET', url: '/session/new' })
  assert.match(page.body, /<details class="sign-in-password">/)
  assert.match(page.body, /Sign in with Test IdP/)
  signInLimit.reset()
  const member = await app.inject({ method: 'POST', url: '/session', ...form({ email_address: users.kevin.email, password: 'secret123456' }) })
  assert.equal(member.statusCode, 403)
  assert.match(member.body, /Please sign in with Test IdP/)
  assert.equal(sessionCookie(member), undefined)
  await signIn(app, 'jason')
  // Members still get in through the provider.
  provider.people.set('kevin-sub', { email: 'kevin@37signals.com', email_verified: true })
  assert.equal((await signInAs(app, provider, 'kevin-sub')).response.statusCode, 302)
  assert.equal((await inject(app, david, providerOnly('false'))).statusCode, 302)
  assert.equal(app.store.read((m) => m.oidcIdentities.providerOnly()), false)
})

test('the switch cannot be turned on while no active administrator has a password', async (t) => {
  const { app } = await ssoApp(t, provider)
  const david = await signIn(app, 'david')
  await app.store.write((m) => m.db.prepare('UPDATE users SET password_digest = NULL WHERE role = 1').run())
  const refused = await inject(app, david, providerOnly('true'))
  assert.equal(refused.statusCode, 422)
  assert.match(refused.body, /at least one active administrator with a password/)
  assert.equal(app.store.read((m) => m.oidcIdentities.providerOnly()), false)
  assert.equal((await inject(app, david, { method: 'PUT', url: '/account/single_sign_on', ...form({}) })).statusCode, 400)
})
