import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { compiledServer } from '../support/compiled-server.ts'
import { startTestProvider } from '../support/oidc-provider.ts'
import { CookieJar, formPost, request, startServer, stopServer } from '../support/server-process.ts'
import { tempStorage } from '../helper.ts'

test('the compiled server is one ASCII CommonJS file beside its source map, run by a main.js of a few kilobytes', async () => {
  const main = await compiledServer()
  const bundle = join(dirname(main), 'server.cjs')
  assert.ok(readFileSync(main).length < 16_000, 'main.js only runs server.cjs')
  const bytes = readFileSync(bundle)
  assert.ok(bytes.every((byte) => byte < 0x80), 'read as latin1 without decoding UTF-8')
  assert.ok(existsSync(`${bundle}.map`))
  assert.doesNotMatch(bytes.toString('latin1'), /[^\w$.]import\(/, 'no import() left: a vm.Script run from a code cache cannot import')
})

// openid-client and jose are ES modules bundled into the CommonJS file, and import()ed only
// when single sign-on is set up: the one way to know they work there is a sign-in through it.
test('the compiled server signs a person in through a real OpenID provider, with the packages it bundles', { timeout: 90_000 }, async (t) => {
  const provider = await startTestProvider(t)
  provider.people.set('bea', { email: 'bea@example.com', email_verified: true, name: 'Bea' })
  const server = await startServer({ ...provider.env({ OIDC_ALLOWED_DOMAINS: 'example.com' }), CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: 'f'.repeat(128), DISABLE_SSL: 'true' })
  t.after(() => stopServer(server))
  provider.allowRedirects([`${server.baseUrl}/session/oidc/callback`])
  const admin = new CookieJar()
  assert.equal((await request(server.baseUrl, admin, '/first_run', formPost({ 'user[name]': 'Ada', 'user[email_address]': 'ada@example.com', 'user[password]': 'secret123456' }))).status, 302)

  const bea = new CookieJar()
  const started = await request(server.baseUrl, bea, '/session/oidc/start', { method: 'POST', headers: { 'sec-fetch-site': 'same-origin' } })
  assert.equal(started.status, 303, await started.text())
  const callback = await provider.signIn(started.headers.get('location')!, 'bea')
  const back = await request(server.baseUrl, bea, callback.pathname + callback.search)
  assert.ok([302, 303].includes(back.status), `${back.status}: ${(await back.text()).slice(0, 300)}`)
  assert.ok(bea.has('session_token'), 'signed in')
  const home = await request(server.baseUrl, bea, '/')
  assert.equal(home.status, 302)
  assert.match(home.headers.get('location')!, /\/rooms\/\d+$/, 'to a room, not to the sign-in page')
})
