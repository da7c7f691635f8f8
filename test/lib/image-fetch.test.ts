import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { fetchImage, IMAGE_MAX_BYTES } from '../../server/lib/image-fetch.ts'
import { FetchError, type FetchPolicy } from '../../server/lib/opengraph-fetch.ts'
import { GuardError, isPublicAddress } from '../../server/lib/private-network-guard.ts'
import { jpeg, solid } from '../support/images.ts'

// Tests widen the guard to exactly 127.0.0.1 so a real local server can stand in for the web,
// as the unfurl tests do.
const allowLocal: FetchPolicy = { isAllowed: (address) => address === '127.0.0.1' || isPublicAddress(address) }

async function pictureServer(t: TestContext, routes: Record<string, (res: http.ServerResponse) => void>) {
  const hits: string[] = []
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '')
    const route = routes[req.url ?? '']
    if (route) route(res)
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits }
}

test('a JPEG comes back with its bytes and the type its bytes show', async (t) => {
  const photo = await jpeg(64, 64)
  const local = await pictureServer(t, { '/me.jpg': (res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo) })
  const image = await fetchImage(`${local.base}/me.jpg`, allowLocal)
  assert.equal(image.contentType, 'image/jpeg')
  assert.ok(image.body.equals(photo))
})

test('the default guard refuses loopback and private addresses before any request is made', async (t) => {
  const local = await pictureServer(t, { '/me.jpg': (res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end('x') })
  await assert.rejects(fetchImage(`${local.base}/me.jpg`), GuardError)
  await assert.rejects(fetchImage('http://10.1.2.3/me.jpg'), GuardError)
  await assert.rejects(fetchImage('http://169.254.169.254/latest/meta-data/'), GuardError)
  await assert.rejects(fetchImage('file:///etc/passwd'), GuardError)
  assert.deepEqual(local.hits, [])
})

test('a redirect to a private address is refused at the hop', async (t) => {
  const local = await pictureServer(t, { '/moved': (res) => res.writeHead(302, { location: 'http://192.168.1.1/me.png' }).end() })
  await assert.rejects(fetchImage(`${local.base}/moved`, { isAllowed: (address) => address === '127.0.0.1' }), /192\.168\.1\.1/)
  assert.deepEqual(local.hits, ['/moved'])
})

test('only JPEG, PNG, GIF and WebP are taken, as the server says and as the bytes show', async (t) => {
  const png = await solid(8, 8, 'png')
  const local = await pictureServer(t, {
    '/page': (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'),
    '/vector.svg': (res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    '/disguised.png': (res) => res.writeHead(200, { 'content-type': 'image/png' }).end('<html>not a picture</html>'),
    '/untyped': (res) => res.end(png),
    '/gone': (res) => res.writeHead(404, { 'content-type': 'image/png' }).end(png),
  })
  await assert.rejects(fetchImage(`${local.base}/page`, allowLocal), /content type text\/html/)
  await assert.rejects(fetchImage(`${local.base}/vector.svg`, allowLocal), /content type image\/svg\+xml/)
  await assert.rejects(fetchImage(`${local.base}/disguised.png`, allowLocal), /bytes are not image\/png/)
  await assert.rejects(fetchImage(`${local.base}/untyped`, allowLocal), /content type missing/)
  await assert.rejects(fetchImage(`${local.base}/gone`, allowLocal), /status 404/)
})

test('a picture over 2 MB is refused, whether it says so or not', async (t) => {
  const big = Buffer.concat([await solid(8, 8, 'png'), Buffer.alloc(IMAGE_MAX_BYTES)])
  const local = await pictureServer(t, {
    '/declared.png': (res) => res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(big.length) }).end(big),
    '/chunked.png': (res) => {
      res.writeHead(200, { 'content-type': 'image/png' })
      res.write(big.subarray(0, 1024 * 1024))
      res.end(big.subarray(1024 * 1024))
    },
  })
  await assert.rejects(fetchImage(`${local.base}/declared.png`, allowLocal), /content length \d+ over 2097152/)
  await assert.rejects(fetchImage(`${local.base}/chunked.png`, allowLocal), (error: Error) => error instanceof FetchError && /over 2097152 bytes/.test(error.message))
})

test('a server that never finishes is given up on at the deadline', async (t) => {
  const local = await pictureServer(t, {
    '/silent.jpg': () => {},
    '/trickle.jpg': (res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).write(Buffer.from([0xff, 0xd8, 0xff])),
  })
  for (const path of ['/silent.jpg', '/trickle.jpg']) {
    const started = Date.now()
    await assert.rejects(fetchImage(`${local.base}${path}`, { ...allowLocal, timeoutMs: 300 }), /timed out after 300 ms/)
    assert.ok(Date.now() - started < 2000, `${path} gave up in time`)
  }
})
