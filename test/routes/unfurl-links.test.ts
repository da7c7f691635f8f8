import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import errors from '../../server/plugins/errors.ts'
import body from '../../server/plugins/body.ts'
import unfurlLinks, { UNFURLS_PER_MINUTE } from '../../server/routes/unfurl-links.ts'
import { isPublicAddress } from '../../server/lib/private-network-guard.ts'
import type { FetchPolicy } from '../../server/lib/opengraph-fetch.ts'
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

// A real HTTP server on loopback standing in for fxtwitter.com (and x.com): names resolve to it
// through the policy's lookup, and it records the Host each request was meant for.
async function fxtwitterStandIn(t: TestContext) {
  const requests: string[] = []
  const lookups: string[] = []
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.headers.host}${req.url}`)
    if (req.url === '/media/pic.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end()
    const port = (server.address() as AddressInfo).port
    // As fxtwitter.com's page: no charset in the content type, UTF-8 text, og:url on its own host.
    res.writeHead(200, { 'content-type': 'text/html' }).end(
      `<html><head><meta property="og:title" content="jack (@jack) 🐦"><meta property="og:description" content="just setting up my twttr"><meta property="og:image" content="/media/pic.jpg"><meta property="og:url" content="http://fxtwitter.com:${port}${req.url}"></head></html>`,
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  const lookup = async (host: string) => {
    lookups.push(host)
    return [{ address: '127.0.0.1', family: 4 as const }]
  }
  return { port: (server.address() as AddressInfo).port, requests, lookups, lookup }
}

async function unfurlApp(t: TestContext, policy: FetchPolicy): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  t.after(() => app.close())
  await app.register(errors)
  await app.register(body)
  await app.register(unfurlLinks, { policy })
  return app
}

test('a post on twitter.com or x.com is fetched from fxtwitter.com, and its card links to the post', async (t) => {
  const standIn = await fxtwitterStandIn(t)
  const app = await unfurlApp(t, { lookup: standIn.lookup, isAllowed: (address) => address === '127.0.0.1' })
  for (const host of ['x.com', 'twitter.com', 'www.twitter.com', 'mobile.twitter.com']) {
    standIn.requests.length = 0
    standIn.lookups.length = 0
    const pasted = `http://${host}:${standIn.port}/jack/status/20?s=46`
    const response = await app.inject({ method: 'POST', url: '/unfurl_link', payload: { url: pasted } })
    assert.equal(response.statusCode, 200, host)
    assert.deepEqual(response.json(), { title: 'jack (@jack) 🐦', url: pasted, image: `http://fxtwitter.com:${standIn.port}/media/pic.jpg`, description: 'just setting up my twttr' })
    assert.deepEqual(standIn.requests, [`GET fxtwitter.com:${standIn.port}/jack/status/20?s=46`, `HEAD fxtwitter.com:${standIn.port}/media/pic.jpg`], host)
    assert.ok(standIn.lookups.length > 0 && standIn.lookups.every((name) => name === 'fxtwitter.com'), `${host}: ${standIn.lookups.join(', ')}`)
  }
})

test('a twitter.com or x.com link that is not a post is fetched from where it points', async (t) => {
  const standIn = await fxtwitterStandIn(t)
  const app = await unfurlApp(t, { lookup: standIn.lookup, isAllowed: (address) => address === '127.0.0.1' })
  const response = await app.inject({ method: 'POST', url: '/unfurl_link', payload: { url: `http://x.com:${standIn.port}/jack` } })
  assert.equal(response.statusCode, 200)
  assert.equal(standIn.requests[0], `GET x.com:${standIn.port}/jack`)
  assert.deepEqual(standIn.lookups.slice(0, 1), ['x.com'])
})

test('the fxtwitter.com fetch passes the same guard: resolving to a private address, nothing is fetched', async (t) => {
  const standIn = await fxtwitterStandIn(t)
  // The production rule (public addresses only), with names pointing at loopback.
  const app = await unfurlApp(t, { lookup: standIn.lookup })
  for (const url of [`http://x.com:${standIn.port}/jack/status/20`, `http://twitter.com:${standIn.port}/jack/status/20`]) {
    const response = await app.inject({ method: 'POST', url: '/unfurl_link', payload: { url } })
    assert.equal(response.statusCode, 204, url)
  }
  assert.deepEqual(standIn.lookups, ['fxtwitter.com', 'fxtwitter.com'])
  assert.deepEqual(standIn.requests, [])
})
