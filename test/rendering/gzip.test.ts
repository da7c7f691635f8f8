import { test } from 'node:test'
import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { acceptsGzip, deflatePart, deflatePartAsync, deflatePieces, gzipOf, identityOf, partOfGzip } from '../../server/rendering/gzip.ts'

test('parts compressed apart make one valid gzip member of the whole page', async () => {
  const head = Buffer.from('<html><head><title>Ünïcode</title></head><body>')
  const middle = Buffer.from('<div class="message">hello</div>\n'.repeat(5000))
  const tail = Buffer.from('</body></html>')
  const gzip = gzipOf([deflatePart(head, 1), await deflatePartAsync(middle), deflatePart(tail, 1)])
  assert.deepEqual(gunzipSync(gzip), Buffer.concat([head, middle, tail]))
  assert.deepEqual(gunzipSync(gzipOf([deflatePart(Buffer.alloc(0)), deflatePart(tail)])), tail)
})

test('gzip is taken when offered and not refused with q=0', () => {
  assert.equal(acceptsGzip('gzip, deflate, br'), true)
  assert.equal(acceptsGzip('*'), true)
  assert.equal(acceptsGzip('gzip;q=0, identity'), false)
  assert.equal(acceptsGzip('identity'), false)
  assert.equal(acceptsGzip(undefined), false)
})

test('a part keeps only its compressed bytes, and gives its own bytes back when asked', async () => {
  const html = Buffer.from('<div class="message">héllo</div>\n'.repeat(3000))
  const part = await deflatePartAsync(html)
  assert.ok(part.deflated.length < html.length / 10)
  assert.equal(part.length, html.length)
  assert.deepEqual(identityOf(part), html)
  assert.deepEqual(identityOf(deflatePart(Buffer.alloc(0))), Buffer.alloc(0))
  const gzip = gzipOf([part])
  const inside = partOfGzip(gzip, part.crc, part.length)
  assert.equal(inside.deflated.buffer, gzip.buffer, 'the part shares the gzip member’s memory')
  assert.deepEqual(identityOf(inside), html)
  assert.deepEqual(gunzipSync(gzipOf([deflatePart(Buffer.from('<p>')), inside])), Buffer.concat([Buffer.from('<p>'), html]))
})

test('pieces written into the reused buffer compress to the page they make, however large', () => {
  const pieces = ['<p>Ünïcode ✓</p>', '<div>x</div>'.repeat(1000), '', '👍'.repeat(10)]
  const part = deflatePieces(pieces)
  assert.deepEqual(identityOf(part).toString('utf8'), pieces.join(''))
  const large = Array.from({ length: 300 }, (_, i) => `<div class="message" id="m${i}">${'é'.repeat(5000)}</div>`)
  assert.equal(identityOf(deflatePieces(large)).toString('utf8'), large.join(''))
  assert.deepEqual(gunzipSync(gzipOf([deflatePieces(pieces), deflatePart(Buffer.from('<end>'))])).toString('utf8'), pieces.join('') + '<end>')
})
