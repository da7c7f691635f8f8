import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import errors from '../../server/plugins/errors.ts'
import body from '../../server/plugins/body.ts'
import unfurlLinks, { UNFURLS_PER_MINUTE } from '../../server/routes/unfurl-links.ts'
import { isPublicAddress } from '../../server/lib/private-network-guard.ts'
import { buildTestApp, form, inject, sameOrigin, signIn } from '../helper.ts'

const OG_PAGE = '<!doctype html><html><head><title>Local</title><meta property="og:title" content="Secret"><meta property="og:description" content="Internal"></head></html>'

// A real HTTP server on loopback serving OpenGraph HTML, recording every request that reaches it.
async function loopbackServer(t: TestContext): Promise<{ base: string; requests: string[] }> {
  const requests: string[] = []
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`)
    res.writeHead(200, { 'content-type': 'text/html' }).end(OG_PAGE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

function postJson(app: FastifyInstance, cookie: string, body: unknown, headers: Record<string, string> = sameOrigin) {
  return inject(app, cookie, { method: 'POST', url: '/unfurl_link', payload: JSON.stringify(body), headers: { 'content-type': 'application/json', accept: 'application/json', ...headers } })
}

test('POST /unfurl_link for a loopback URL answers 204 and never reaches the server', async (t) => {
  const { app } = await buildTestApp(t)
  const local = await loopbackServer(t)
  const cookie = await signIn(app, 'jz')
  const port = new URL(local.base).port
  for (const url of [`${local.base}/`, `http://localhost:${port}/`, `http://[::1]:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://0.0.0.0:${port}/`, `http://2130706433:${port}/`]) {
    const response = await postJson(app, cookie, { url })
    assert.equal(response.statusCode, 204, url)
    assert.equal(response.body, '')
  }
  const viaForm = form({ url: `${local.base}/form` })
  const response = await inject(app, cookie, { method: 'POST', url: '/unfurl_link', payload: viaForm.payload, headers: viaForm.headers })
  assert.equal(response.statusCode, 204)
  assert.deepEqual(local.requests, [])
})

test('POST /unfurl_link answers 204 for URLs that are not http(s) or carry credentials', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'javascript:alert(1)', 'not a url', 'http://user:pw@example.com/', 'https://example.com/archive.zip']) {
    assert.equal((await postJson(app, cookie, { url })).statusCode, 204, url)
  }
})

test('POST /unfurl_link answers 429 once a person has unfurled 30 links in a minute, and only to that person', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  const jz = await signIn(app, 'jz')
  for (let n = 0; n < UNFURLS_PER_MINUTE; n++) assert.equal((await postJson(app, kevin, { url: 'ftp://example.com/' })).statusCode, 204)
  assert.equal((await postJson(app, kevin, { url: 'ftp://example.com/' })).statusCode, 429)
  assert.equal((await postJson(app, jz, { url: 'ftp://example.com/' })).statusCode, 204)
})

test('POST /unfurl_link refuses a missing or overlong url', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  assert.equal((await postJson(app, cookie, {})).statusCode, 400)
  assert.equal((await postJson(app, cookie, { url: '' })).statusCode, 400)
  assert.equal((await postJson(app, cookie, { url: 42 })).statusCode, 400)
  assert.equal((await postJson(app, cookie, { url: `https://example.com/${'a'.repeat(2100)}` })).statusCode, 422)
})

test('POST /unfurl_link needs a signed-in person and a same-site request', async (t) => {
  const { app } = await buildTestApp(t)
  const local = await loopbackServer(t)
  const anonymous = await app.inject({ method: 'POST', url: '/unfurl_link', payload: JSON.stringify({ url: `${local.base}/` }), headers: { 'content-type': 'application/json', ...sameOrigin } })
  assert.equal(anonymous.statusCode, 401)
  const cookie = await signIn(app, 'jz')
  const crossSite = await postJson(app, cookie, { url: `${local.base}/` }, { 'sec-fetch-site': 'cross-site' })
  assert.equal(crossSite.statusCode, 422)
  const foreignOrigin = await postJson(app, cookie, { url: `${local.base}/` }, { origin: 'https://evil.example', ...sameOrigin })
  assert.equal(foreignOrigin.statusCode, 422)
  assert.deepEqual(local.requests, [])
})

test('the route answers the card as JSON when the guard is widened to a local server', async (t) => {
  const requests: string[] = []
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`)
    if (req.url === '/cover.webp') return res.writeHead(200, { 'content-type': 'image/webp' }).end()
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><head><title>Fallback</title><meta property="og:title" content="Café &amp; co"><meta name="description" content="A &lt;i&gt;nice&lt;/i&gt; place"><meta property="og:image" content="/cover.webp"></head></html>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const app = Fastify({ logger: false })
  t.after(() => app.close())
  await app.register(errors)
  await app.register(body)
  await app.register(unfurlLinks, { policy: { isAllowed: (address: string) => address === '127.0.0.1' || isPublicAddress(address) } })
  const response = await app.inject({ method: 'POST', url: '/unfurl_link', payload: { url: `${base}/page` } })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  assert.deepEqual(response.json(), { title: 'Café & co', url: `${base}/page`, image: `${base}/cover.webp`, description: 'A nice place' })
  assert.deepEqual(requests, ['GET /page', 'HEAD /cover.webp'])
})
