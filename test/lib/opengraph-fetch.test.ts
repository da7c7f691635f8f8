import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { fetchContentType, fetchHtml, MAX_BODY_BYTES, type FetchPolicy } from '../../server/lib/opengraph-fetch.ts'
import { GuardError, isPublicAddress } from '../../server/lib/private-network-guard.ts'

// Tests widen the guard to exactly 127.0.0.1 so a real local server can stand in for the web.
const allowLocal: FetchPolicy = { isAllowed: (address) => address === '127.0.0.1' || isPublicAddress(address) }

interface Local {
  base: string
  port: number
  requests: { method: string; url: string; host: string }[]
}

async function localServer(t: TestContext, handler: (req: http.IncomingMessage, res: http.ServerResponse, local: Local) => void): Promise<Local> {
  const local: Local = { base: '', port: 0, requests: [] }
  const server = http.createServer((req, res) => {
    local.requests.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host ?? '' })
    handler(req, res, local)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  local.port = (server.address() as AddressInfo).port
  local.base = `http://127.0.0.1:${local.port}`
  return local
}

const PAGE = '<!doctype html><html><head><title>Hi</title></head><body>hi</body></html>'

test('the default guard refuses loopback before any request is made', async (t) => {
  const local = await localServer(t, (_req, res) => res.end(PAGE))
  await assert.rejects(fetchHtml(`${local.base}/`), GuardError)
  await assert.rejects(fetchHtml(`http://localhost:${local.port}/`), GuardError)
  await assert.rejects(fetchContentType(`${local.base}/`), GuardError)
  assert.equal(local.requests.length, 0)
})

test('a redirect chain is followed, each hop re-validated, and the final URL reported', async (t) => {
  const local = await localServer(t, (req, res, l) => {
    if (req.url === '/one') res.writeHead(301, { location: '/two' }).end()
    else if (req.url === '/two') res.writeHead(302, { location: `${l.base}/three?x=1` }).end()
    else if (req.url === '/three?x=1') res.writeHead(307, { location: 'four' }).end()
    else if (req.url === '/four') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
    else res.writeHead(404).end()
  })
  const document = await fetchHtml(`${local.base}/one`, allowLocal)
  assert.equal(document.url.href, `${local.base}/four`)
  assert.equal(document.html, PAGE)
  assert.deepEqual(local.requests.map((r) => r.url), ['/one', '/two', '/three?x=1', '/four'])
})

test('redirects to private addresses, other schemes or credentials are refused', async (t) => {
  const targets: Record<string, string> = {
    '/to-v6-loopback': 'http://[::1]:1/',
    '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
    '/to-mapped': 'http://[::ffff:10.0.0.1]/',
    '/to-file': 'file:///etc/passwd',
    '/to-credentials': 'http://user:pw@127.0.0.1/',
  }
  const local = await localServer(t, (req, res) => res.writeHead(302, { location: targets[req.url ?? ''] ?? '/' }).end())
  for (const path of Object.keys(targets)) await assert.rejects(fetchHtml(`${local.base}${path}`, allowLocal), GuardError, path)
  assert.equal(local.requests.length, Object.keys(targets).length, 'only the first hop of each reached the server')
})

test('at most 10 redirects are followed', async (t) => {
  const local = await localServer(t, (req, res) => {
    const n = Number(req.url?.slice(1))
    res.writeHead(302, { location: `/${n + 1}` }).end()
  })
  await assert.rejects(fetchHtml(`${local.base}/0`, allowLocal), /too many redirects/)
  assert.equal(local.requests.length, 11)

  const ten = await localServer(t, (req, res) => {
    const n = Number(req.url?.slice(1))
    if (n < 10) res.writeHead(302, { location: `/${n + 1}` }).end()
    else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)
  })
  assert.equal((await fetchHtml(`${ten.base}/0`, allowLocal)).url.pathname, '/10')
})

test('the connection is pinned to the vetted address whatever the host name', async (t) => {
  const local = await localServer(t, (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE))
  let lookups = 0
  const policy: FetchPolicy = {
    ...allowLocal,
    lookup: async (host) => {
      lookups++
      if (host === 'pinned.test') return [{ address: '127.0.0.1', family: 4 }]
      if (host === 'evil.test') return [{ address: '127.0.0.1', family: 4 }, { address: '192.168.1.1', family: 4 }]
      throw new Error('ENOTFOUND')
    },
  }
  const document = await fetchHtml(`http://pinned.test:${local.port}/page`, policy)
  assert.equal(document.html, PAGE)
  assert.equal(lookups, 1, 'resolved once, by the guard; the socket used the vetted address')
  assert.deepEqual(local.requests, [{ method: 'GET', url: '/page', host: `pinned.test:${local.port}` }])
  await assert.rejects(fetchHtml(`http://evil.test:${local.port}/`, policy), GuardError)
  await assert.rejects(fetchHtml(`http://nowhere.test:${local.port}/`, policy), GuardError)
  assert.equal(local.requests.length, 1)
})

test('only a 200 text/html response is read', async (t) => {
  const local = await localServer(t, (req, res) => {
    if (req.url === '/json') res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    else if (req.url === '/none') res.writeHead(200).end(PAGE)
    else if (req.url === '/xhtml') res.writeHead(200, { 'content-type': 'application/xhtml+xml' }).end(PAGE)
    else if (req.url === '/htmlx') res.writeHead(200, { 'content-type': 'text/htmlx' }).end(PAGE)
    else if (req.url === '/missing') res.writeHead(404, { 'content-type': 'text/html' }).end(PAGE)
    else if (req.url === '/latin1') res.writeHead(200, { 'content-type': 'Text/HTML; Charset=ISO-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]))
    else res.writeHead(500).end()
  })
  for (const path of ['/json', '/none', '/xhtml', '/htmlx', '/missing']) await assert.rejects(fetchHtml(`${local.base}${path}`, allowLocal), path)
  assert.equal((await fetchHtml(`${local.base}/latin1`, allowLocal)).html, 'café')
})

test('bodies over 5 MB are refused, by Content-Length or while streaming', async (t) => {
  const chunk = Buffer.alloc(64 * 1024, 'a')
  const local = await localServer(t, (req, res) => {
    if (req.url === '/claims-big') {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(MAX_BODY_BYTES + 1) })
      res.write(chunk) // never finishes: the client must give up on the header alone
    } else if (req.url === '/streams-big') {
      res.writeHead(200, { 'content-type': 'text/html' }) // chunked, no length
      let sent = 0
      const more = () => {
        while (sent <= MAX_BODY_BYTES + chunk.length) {
          sent += chunk.length
          if (!res.write(chunk)) return res.once('drain', more)
        }
        res.end()
      }
      res.on('error', () => {})
      more()
    } else if (req.url === '/just-fits') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(Buffer.alloc(MAX_BODY_BYTES, 'b'))
    }
  })
  await assert.rejects(fetchHtml(`${local.base}/claims-big`, allowLocal), /content length/)
  await assert.rejects(fetchHtml(`${local.base}/streams-big`, allowLocal), /body over/)
  assert.equal((await fetchHtml(`${local.base}/just-fits`, allowLocal)).html.length, MAX_BODY_BYTES)
})

test('a silent server times out', async (t) => {
  const local = await localServer(t, () => {})
  await assert.rejects(fetchHtml(`${local.base}/`, { ...allowLocal, timeoutMs: 300 }))
})

test('file and media URLs are not fetched', async (t) => {
  const local = await localServer(t, (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE))
  for (const path of ['/a.zip', '/movie.MP4', '/pic.jpg', '/x.tar.gz']) await assert.rejects(fetchHtml(`${local.base}${path}`, allowLocal), /file or media/)
  assert.equal(local.requests.length, 0)
})

test('HEAD reports the media type, through redirects', async (t) => {
  const local = await localServer(t, (req, res) => {
    if (req.url === '/img') res.writeHead(302, { location: '/img.png' }).end()
    else res.writeHead(200, { 'content-type': 'IMAGE/PNG; foo=bar' }).end()
  })
  assert.equal(await fetchContentType(`${local.base}/img`, allowLocal), 'image/png')
  assert.deepEqual(local.requests.map((r) => r.method), ['HEAD', 'HEAD'])
})
