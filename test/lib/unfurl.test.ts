import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FetchPolicy } from '../../server/lib/opengraph-fetch.ts'
import { parseOpengraph, plainText } from '../../server/lib/opengraph-parse.ts'
import { isPublicAddress } from '../../server/lib/private-network-guard.ts'
import { unfurl } from '../../server/lib/unfurl.ts'

const allowLocal: FetchPolicy = { isAllowed: (address) => address === '127.0.0.1' || isPublicAddress(address) }

type Routes = Record<string, { status?: number; type?: string; body?: string; location?: string }>

async function site(t: TestContext, routes: (base: string) => Routes): Promise<{ base: string; requests: string[] }> {
  const requests: string[] = []
  let table: Routes = {}
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`)
    const route = table[req.url ?? '']
    if (!route) return res.writeHead(404).end()
    const headers: Record<string, string> = {}
    if (route.type) headers['content-type'] = route.type
    if (route.location) headers.location = route.location
    res.writeHead(route.status ?? 200, headers).end(req.method === 'HEAD' ? undefined : route.body ?? '')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  table = routes(base)
  return { base, requests }
}

const html = (head: string) => `<!DOCTYPE html><html><head>${head}</head><body><p>body</p></body></html>`

test('parsing reads OpenGraph tags, falling back to <title> and meta description', () => {
  assert.deepEqual(
    parseOpengraph(html(`<title>Plain</title><meta property="og:title" content="OG &amp; <b>bold</b>"><meta name="og:description" content="  Lots\n of   space "><meta property="og:image" content="/i.png"><meta property="og:url" content="https://example.com/c">`)),
    { title: 'OG & bold', description: 'Lots of space', image: '/i.png', url: 'https://example.com/c' },
  )
  assert.deepEqual(parseOpengraph(html(`<title>Just &lt;a&gt; title</title><meta name="description" content="Meta &quot;desc&quot;">`)), { title: 'Just title', description: 'Meta "desc"' })
  assert.deepEqual(parseOpengraph('<meta property=og:title content=Unquoted><p>broken <div'), { title: 'Unquoted' })
  assert.deepEqual(parseOpengraph(''), {})
  assert.deepEqual(parseOpengraph(html('<meta property="og:title" content="">')), {})
})

test('titles and descriptions are capped at 280 and 560 characters', () => {
  assert.equal(Array.from(plainText('é'.repeat(400), 280)).length, 280)
  assert.ok(plainText('x'.repeat(300), 280).endsWith('…'))
  const parsed = parseOpengraph(html(`<meta property="og:title" content="${'t'.repeat(500)}"><meta property="og:description" content="${'d'.repeat(900)}">`))
  assert.equal(parsed.title?.length, 280)
  assert.equal(parsed.description?.length, 560)
})

test('a page unfurls to title, canonical url, a HEAD-checked image and description', async (t) => {
  const local = await site(t, (base) => ({
    '/post': {
      type: 'text/html; charset=utf-8',
      body: html(`<meta property="og:title" content="Launch &amp; <script>alert(1)</script>day"><meta property="og:description" content="We <em>shipped</em> it"><meta property="og:image" content="/cover.png"><meta property="og:url" content="${base}/canonical">`),
    },
    '/cover.png': { type: 'image/png' },
  }))
  const card = await unfurl(`${local.base}/post`, allowLocal)
  assert.deepEqual(card, { title: 'Launch & day', url: `${local.base}/canonical`, image: `${local.base}/cover.png`, description: 'We shipped it' })
  assert.deepEqual(local.requests, ['GET /post', 'HEAD /cover.png'])
})

test('an image that is not jpeg/png/gif/webp, or cannot be checked, is left out', async (t) => {
  for (const [image, type] of [['/logo.svg', 'image/svg+xml'], ['/page', 'text/html'], ['/missing.png', undefined]] as const) {
    const local = await site(t, () => ({
      '/': { type: 'text/html', body: html(`<title>T</title><meta name="description" content="D"><meta property="og:image" content="${image}">`) },
      ...(type ? { [image]: { type } } : {}),
    }))
    const card = await unfurl(`${local.base}/`, allowLocal)
    assert.equal(card?.image, null, image)
    assert.equal(card?.title, 'T')
  }
  for (const type of ['image/jpeg', 'image/gif', 'image/webp']) {
    const local = await site(t, () => ({ '/': { type: 'text/html', body: html(`<title>T</title><meta name="description" content="D"><meta property="og:image" content="/i">`) }, '/i': { type } }))
    assert.equal((await unfurl(`${local.base}/`, allowLocal))?.image, `${local.base}/i`, type)
  }
})

test('an image or canonical url on a private address is refused without a request', async (t) => {
  const local = await site(t, () => ({
    '/': { type: 'text/html', body: html(`<title>T</title><meta name="description" content="D"><meta property="og:image" content="http://169.254.169.254/x.png"><meta property="og:url" content="http://10.0.0.1/admin">`) },
  }))
  const card = await unfurl(`${local.base}/`, allowLocal)
  assert.deepEqual(card, { title: 'T', url: `${local.base}/`, image: null, description: 'D' })
  assert.deepEqual(local.requests, ['GET /'])
})

test('a canonical url with another scheme falls back to the pasted url', async (t) => {
  const local = await site(t, () => ({ '/': { type: 'text/html', body: html(`<title>T</title><meta name="description" content="D"><meta property="og:url" content="javascript:alert(1)">`) } }))
  assert.equal((await unfurl(`${local.base}/`, allowLocal))?.url, `${local.base}/`)
})

test('pages without a title or description, or that are not HTML, unfurl to nothing', async (t) => {
  const local = await site(t, () => ({
    '/untitled': { type: 'text/html', body: html('<meta name="description" content="D">') },
    '/undescribed': { type: 'text/html', body: html('<title>T</title>') },
    '/json': { type: 'application/json', body: '{"title":"T"}' },
  }))
  assert.equal(await unfurl(`${local.base}/untitled`, allowLocal), null)
  assert.equal(await unfurl(`${local.base}/undescribed`, allowLocal), null)
  await assert.rejects(unfurl(`${local.base}/json`, allowLocal), /content type/)
})

test('a slow resolver cannot hold an unfurl past its deadline', async () => {
  const started = Date.now()
  const hang: FetchPolicy = { ...allowLocal, timeoutMs: 200, lookup: () => new Promise(() => {}) }
  await assert.rejects(unfurl('http://slow.test/', hang), /timed out/)
  assert.ok(Date.now() - started < 2000)
})
