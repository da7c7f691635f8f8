import assert from 'node:assert/strict'
import { test } from 'node:test'
import { buildTestApp, signIn } from '../helper.ts'
import { decodeStrictly } from '../support/encodings.ts'

test('the layout links one digested stylesheet and one module script under /assets/', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const page = await app.inject({ url: '/rooms/1', headers: { cookie } })
  assert.match(page.body, /<link rel="stylesheet" href="\/assets\/application-[0-9a-f]{12}\.css" data-turbo-track="reload">/)
  assert.match(page.body, /<script type="module" src="\/assets\/application-[0-9a-f]{12}\.js" data-turbo-track="reload"><\/script>/)
  assert.match(page.body, /<meta name="current-user-id" content="\d+">/)
})

test('an asset is cached for a year, sent precompressed as the client accepts, and revalidated by its etag', async (t) => {
  const { app } = await buildTestApp(t)
  const path = app.assets.path('application.js')
  const plain = await app.inject({ url: path })
  assert.equal(plain.statusCode, 200)
  assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable')
  assert.match(String(plain.headers['content-type']), /^text\/javascript/)
  assert.equal(plain.headers['content-encoding'], undefined)

  const brotli = await app.inject({ url: path, headers: { 'accept-encoding': 'gzip, deflate, br' } })
  assert.equal(brotli.headers['content-encoding'], 'br')
  assert.deepEqual(decodeStrictly(brotli), plain.rawPayload)
  const gzip = await app.inject({ url: path, headers: { 'accept-encoding': 'gzip' } })
  assert.equal(gzip.headers['content-encoding'], 'gzip')
  assert.deepEqual(decodeStrictly(gzip), plain.rawPayload)

  const again = await app.inject({ url: path, headers: { 'if-none-match': String(plain.headers.etag) } })
  assert.equal(again.statusCode, 304)
  assert.equal((await app.inject({ url: '/assets/application-000000000000.js' })).statusCode, 404)
})

test('the sound cards and icons are assets too', async (t) => {
  const { app } = await buildTestApp(t)
  const card = await app.inject({ url: app.assets.path('sounds/yay.svg') })
  assert.equal(card.statusCode, 200)
  assert.match(card.body, /^<svg [^>]*width="103" height="50"/)
})
