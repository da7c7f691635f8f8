import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../server/app.ts'
import { RateLimit } from '../../server/lib/rate-limit.ts'
import { buildTestApp, inject, sameOrigin, signIn, tempStorage, testConfig } from '../helper.ts'
import { loadFixtures } from '../fixtures.ts'
import { compiledWorkers } from '../support/compiled-server.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded', ...sameOrigin }

// The fixture app plus a few routes of our own: a protected route for every unsafe verb and
// one that throws, so the error handler can be seen answering for them.
async function buildAppWithProbeRoutes(t: TestContext): Promise<FastifyInstance> {
  const app = await buildApp({ config: testConfig(tempStorage(t)), logger: false, passwordCost: 4, compiledWorkers: await compiledWorkers(), signInLimit: new RateLimit(10, 60_000) })
  t.after(() => app.close())
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    app.route({ method, url: '/probe/protected', handler: async () => ({ ok: true }) })
  }
  app.get('/probe/protected', async () => ({ ok: true }))
  app.get('/probe/explode', { config: { allowUnauthenticated: true } }, async () => {
    throw new Error('kaboom at /work/main/server/secret.ts:12:34')
  })
  app.post('/probe/echo', { config: { allowUnauthenticated: true } }, async (request) => ({ body: request.body }))
  app.store.writeNow((m) => loadFixtures(m.db))
  await app.ready()
  return app
}

function assertNoStackTrace(response: LightMyRequestResponse, label: string) {
  assert.ok(!/\n\s{4}at /.test(response.body), `${label}: no "    at " stack lines`)
  assert.ok(!response.body.includes('/work/'), `${label}: no /work/ paths`)
  assert.ok(!response.body.includes('node_modules'), `${label}: no node_modules paths`)
  assert.ok(!/\.ts:\d+/.test(response.body), `${label}: no source file positions`)
}

// 404

test('an unknown path answers a 404 HTML page', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/no/such/page' })
  assert.equal(response.statusCode, 404)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.match(response.body, /^<!DOCTYPE html>/)
  assert.ok(response.body.includes('404'))
})

test('an unknown path answers 404 whether or not the person is signed in, without redirecting to sign in', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  for (const headers of [{}, { cookie }]) {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const response = await app.inject({ method, url: '/definitely/not/here', headers: { ...sameOrigin, ...headers } })
      assert.equal(response.statusCode, 404, `${method} ${'cookie' in headers ? 'signed in' : 'anonymous'}`)
    }
  }
})

test('an unknown path answers JSON when the client asks for application/json', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/no/such/page.json', headers: { accept: 'application/json' } })
  assert.equal(response.statusCode, 404)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  const body = response.json() as { error: string; status: number }
  assert.equal(body.status, 404)
  assert.equal(typeof body.error, 'string')
})

test('an unknown path answers HTML when the client accepts both HTML and JSON', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/nope', headers: { accept: 'text/html,application/json;q=0.9' } })
  assert.equal(response.statusCode, 404)
  assert.match(String(response.headers['content-type']), /^text\/html/)
})

test('an unknown path that looks like an attack is echoed nowhere in the 404 page', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/%3Cscript%3Ealert(1)%3C/script%3E' })
  assert.equal(response.statusCode, 404)
  assert.ok(!response.body.includes('<script>'))
})

// Authentication

test('a protected page without a session redirects to /session/new', async (t) => {
  const { app } = await buildTestApp(t)
  for (const accept of [undefined, 'text/html,application/xhtml+xml', '*/*']) {
    const response = await app.inject({ method: 'GET', url: '/', headers: accept ? { accept } : {} })
    assert.equal(response.statusCode, 302, `Accept ${accept}`)
    assert.equal(response.headers.location, '/session/new')
  }
})

test('a protected GET that asks for JSON without a session gets 401 instead of a redirect', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/', headers: { accept: 'application/json' } })
  assert.equal(response.statusCode, 401)
  assert.match(String(response.headers['content-type']), /^application\/json/)
})

test('a protected non-GET without a session gets 401 and never reaches its handler', async (t) => {
  const app = await buildAppWithProbeRoutes(t)
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
    const response = await app.inject({ method, url: '/probe/protected', payload: 'a=1', headers: FORM })
    assert.equal(response.statusCode, 401, method)
    assert.ok(!response.body.includes('"ok":true'), `${method} did not run the handler`)
    assert.equal(response.headers.location, undefined)
  }
  const get = await app.inject({ method: 'GET', url: '/probe/protected' })
  assert.equal(get.statusCode, 302)
  assert.equal(get.headers.location, '/session/new')
})

test('a protected non-GET with a session reaches its handler', async (t) => {
  const app = await buildAppWithProbeRoutes(t)
  const cookie = await signIn(app, 'kevin')
  const response = await inject(app, cookie, { method: 'POST', url: '/probe/protected', payload: 'a=1', headers: FORM })
  assert.equal(response.statusCode, 200)
  assert.deepEqual(response.json(), { ok: true })
})

test('HEAD of a protected page without a session does not serve it', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'HEAD', url: '/' })
  assert.ok([302, 401].includes(response.statusCode), `status ${response.statusCode}`)
})

// Malformed bodies

const MALFORMED_FORMS = [
  ['broken percent-encoding', 'email_address=%E0%A4%A&password=%'],
  ['nested brackets where strings are expected', 'email_address[a][b][c][d][e][f]=x&password[]=y'],
  ['a prototype-polluting key', '__proto__[admin]=1&constructor[prototype][admin]=1&email_address=a%40b.c&password=x'],
  ['thousands of parameters', Array.from({ length: 5000 }, (_, i) => `p${i}=${i}`).join('&')],
  ['a huge array index', 'email_address[999999999]=x&password=y'],
  ['binary garbage', '\u0000\u0001\u00ff=\u0000&&&==&'],
] as const

test('a malformed urlencoded body gets a 4xx, never a 500', async (t) => {
  const { app, signInLimit } = await buildTestApp(t)
  for (const [what, payload] of MALFORMED_FORMS) {
    await t.test(`a urlencoded body with ${what} gets a 4xx, never a 500`, async () => {
      signInLimit.reset()
      const response = await app.inject({ method: 'POST', url: '/session', payload, headers: FORM })
      assert.ok(response.statusCode >= 400 && response.statusCode < 500 && response.statusCode !== 429, `status ${response.statusCode}`)
      assert.equal(response.cookies.find((c) => c.name === 'session_token'), undefined)
      assertNoStackTrace(response, what)
      assert.equal(({} as Record<string, unknown>).admin, undefined, 'Object.prototype is untouched')
    })
  }
})

const MALFORMED_JSON = [
  ['truncated JSON', '{"email_address": "david@37signals.com", "password":'],
  ['not JSON at all', 'email_address=david'],
  ['a JSON string where an object is expected', '"just a string"'],
  ['a JSON array', '[1,2,3]'],
  ['JSON with __proto__', '{"__proto__": {"admin": true}, "email_address": 1}'],
  ['an empty JSON body', ''],
] as const

test('a malformed JSON body gets a 4xx, never a 500', async (t) => {
  const { app, signInLimit } = await buildTestApp(t)
  for (const [what, payload] of MALFORMED_JSON) {
    await t.test(`a JSON body with ${what} gets a 4xx, never a 500`, async () => {
      signInLimit.reset()
      const response = await app.inject({ method: 'POST', url: '/session', payload, headers: { 'content-type': 'application/json', ...sameOrigin } })
      assert.ok(response.statusCode >= 400 && response.statusCode < 500 && response.statusCode !== 429, `status ${response.statusCode}`)
      assertNoStackTrace(response, what)
      assert.equal(({} as Record<string, unknown>).admin, undefined, 'Object.prototype is untouched')
    })
  }
})

test('a malformed JSON body answers 400 with the generic message, not the parser error', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'POST', url: '/session', payload: '{bad', headers: { 'content-type': 'application/json', ...sameOrigin } })
  assert.equal(response.statusCode, 400)
  assert.ok(!/Unexpected token|SyntaxError|JSON at position/.test(response.body), 'the parser message stays on the server')
})

// Body size

test('a form body over 2 MiB gets 413 and changes nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const users = app.store.read((m) => m.db.prepare('SELECT COUNT(*) FROM users').pluck().get())
  const name = 'x'.repeat(2 * 1024 * 1024)
  const payload = `user%5Bname%5D=${name}&user%5Bemail_address%5D=big%40example.com&user%5Bpassword%5D=big-password`
  const response = await app.inject({ method: 'POST', url: '/join/Ab12-Cd34-Ef56', payload, headers: FORM })
  assert.equal(response.statusCode, 413)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.equal(app.store.read((m) => m.db.prepare('SELECT COUNT(*) FROM users').pluck().get()), users)
})

test('a JSON body over 2 MiB gets 413', async (t) => {
  const { app } = await buildTestApp(t)
  const payload = JSON.stringify({ email_address: 'x'.repeat(2 * 1024 * 1024 + 10), password: 'y' })
  const response = await app.inject({ method: 'POST', url: '/session', payload, headers: { 'content-type': 'application/json', ...sameOrigin } })
  assert.equal(response.statusCode, 413)
})

test('a form body just under 2 MiB is still read', async (t) => {
  const { app } = await buildTestApp(t)
  const prefix = 'email_address=nobody%40example.com&password=wrong&pad='
  const payload = prefix + 'x'.repeat(2 * 1024 * 1024 - prefix.length - 1)
  const response = await app.inject({ method: 'POST', url: '/session', payload, headers: FORM })
  assert.equal(response.statusCode, 401)
})

// Content types

test('an unsupported content type gets 415', async (t) => {
  const { app } = await buildTestApp(t)
  for (const type of ['application/xml', 'multipart/x-mixed-replace', 'image/png']) {
    const response = await app.inject({ method: 'POST', url: '/session', payload: '<x/>', headers: { 'content-type': type, ...sameOrigin } })
    assert.equal(response.statusCode, 415, type)
    assert.match(String(response.headers['content-type']), /^text\/html/)
    assertNoStackTrace(response, type)
  }
})

test('a form body sent with a charset parameter is still read', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({
    method: 'POST',
    url: '/session',
    payload: 'email_address=david%4037signals.com&password=secret123456',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8', ...sameOrigin },
  })
  assert.equal(response.statusCode, 302)
})

// No stack traces

test('a handler that throws answers a generic 500 page with no stack trace or message', async (t) => {
  const app = await buildAppWithProbeRoutes(t)
  for (const accept of [undefined, 'application/json']) {
    const response = await app.inject({ method: 'GET', url: '/probe/explode', headers: accept ? { accept } : {} })
    assert.equal(response.statusCode, 500)
    assert.ok(!response.body.includes('kaboom'), 'the error message stays on the server')
    assertNoStackTrace(response, `500 (${accept ?? 'html'})`)
  }
})

test('no error response ever contains a stack trace', async (t) => {
  const { app } = await buildTestApp(t)
  const requests = [
    { method: 'GET', url: '/missing' },
    { method: 'GET', url: '/missing', headers: { accept: 'application/json' } },
    { method: 'GET', url: '/join/wrong-code' },
    { method: 'POST', url: '/session', payload: '{', headers: { 'content-type': 'application/json', ...sameOrigin } },
    { method: 'POST', url: '/session', payload: '{', headers: { 'content-type': 'application/json', accept: 'application/json', ...sameOrigin } },
    { method: 'POST', url: '/session', payload: 'x', headers: { 'content-type': 'text/xml', ...sameOrigin } },
    { method: 'POST', url: '/session', payload: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' } },
    { method: 'POST', url: '/session', payload: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '99999999', ...sameOrigin } },
    { method: 'PUT', url: '/session', payload: 'a=1', headers: FORM },
    { method: 'POST', url: '/session', payload: '_method=patch', headers: FORM },
    { method: 'GET', url: '/session/new?email_address[a]=1&email_address[b]=2' },
    { method: 'GET', url: '/%E0%A4%A' },
    { method: 'POST', url: '/first_run', payload: 'user=1', headers: FORM },
  ] as const
  for (const request of requests) {
    const response = await app.inject(request as never)
    assert.ok(response.statusCode < 500, `${request.method} ${request.url} answered ${response.statusCode}`)
    assertNoStackTrace(response, `${request.method} ${request.url} → ${response.statusCode}`)
  }
})
