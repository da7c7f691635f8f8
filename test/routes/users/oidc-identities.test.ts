import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { SESSION_COOKIE } from '../../../server/plugins/auth.ts'
import { users } from '../../fixtures.ts'
import { form, inject } from '../../helper.ts'
import { startTestProvider, type TestProvider } from '../../support/oidc-provider.ts'
import { CALLBACK, sessionCookie, signInAs, ssoApp } from '../sessions/oidc/support.ts'

let provider: TestProvider
before(async () => {
  provider = await startTestProvider({ after: () => {} })
  provider.allowRedirects([CALLBACK])
})
after(() => provider.close())

const unlink = { method: 'POST' as const, url: '/users/me/oidc_identity', ...form({ _method: 'delete' }) }

test('the profile shows the linked identity, and a person with a password unlinks it', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('kevin-sub', { email: 'kevin@37signals.com', email_verified: true })
  const { response } = await signInAs(app, provider, 'kevin-sub')
  const cookie = `${SESSION_COOKIE}=${sessionCookie(response)}`
  const profile = await inject(app, cookie, { method: 'GET', url: `/users/${users.kevin.id}/profile` })
  assert.equal(profile.statusCode, 200)
  assert.match(profile.body, /Linked to <strong>kevin@37signals.com<\/strong>/)
  assert.match(profile.body, /Unlink Test IdP/)
  const done = await inject(app, cookie, unlink)
  assert.equal(done.statusCode, 302)
  assert.equal(app.store.read((m) => m.oidcIdentities.forUser(users.kevin.id, provider.issuer + '/') ?? m.oidcIdentities.forUser(users.kevin.id, provider.issuer)), undefined)
  const after = await inject(app, cookie, { method: 'GET', url: `/users/${users.kevin.id}/profile` })
  assert.match(after.body, /Not linked/)
})

test('someone who joined through the provider, with no password, cannot unlink', async (t) => {
  const { app } = await ssoApp(t, provider)
  provider.people.set('newcomer', { email: 'ada@example.com', email_verified: true, name: 'Ada' })
  const { response } = await signInAs(app, provider, 'newcomer')
  const cookie = `${SESSION_COOKIE}=${sessionCookie(response)}`
  const profile = await inject(app, cookie, { method: 'GET', url: '/users/me/profile' })
  assert.match(profile.body, /Set a password above to be able to unlink it/)
  const refused = await inject(app, cookie, unlink)
  assert.equal(refused.statusCode, 422)
  assert.equal(app.store.read((m) => m.db.prepare('SELECT count(*) FROM oidc_identities').pluck().get()), 1)
  assert.equal((await app.inject(unlink)).statusCode, 401, 'signed out, nothing to unlink')
})
