import { test } from 'node:test'
import assert from 'node:assert/strict'
import { crc32, gunzipSync } from 'node:zlib'
import { acceptsGzip, crc32Combine, deflatePart, deflatePartAsync, deflatePiecesAsync, gzipOf, identityOf, partOfGzip, type Part } from '../../server/rendering/gzip.ts'
import { cutAtSlots, filledGzip, filledIdentity, unreadSlot } from '../../server/rendering/unread-slots.ts'
import { gunzipExactly } from '../support/harness-validator.ts'
import { random } from '../load/support/fixture.ts'

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

test('pieces compress off the main thread to the page they make, however large', async () => {
  const pieces = ['<p>Ünïcode ✓</p>', '<div>x</div>'.repeat(1000), '', '👍'.repeat(10)]
  const part = await deflatePiecesAsync(pieces)
  assert.deepEqual(identityOf(part).toString('utf8'), pieces.join(''))
  const large = Array.from({ length: 300 }, (_, i) => `<div class="message" id="m${i}">${'é'.repeat(5000)}</div>`)
  assert.equal(identityOf(await deflatePiecesAsync(large)).toString('utf8'), large.join(''))
  assert.deepEqual(gunzipSync(gzipOf([await deflatePiecesAsync(pieces), deflatePart(Buffer.from('<end>'))])).toString('utf8'), pieces.join('') + '<end>')
})

// Lengths where splicing goes wrong if anything does: nothing, one byte, the deflate window and
// either side of it, and larger.
const EDGE_LENGTHS = [0, 0, 1, 2, 32 * 1024 - 1, 32 * 1024, 32 * 1024 + 1, 64 * 1024, 100_000]

function bytesOf(next: () => number, length: number): Buffer {
  const bytes = Buffer.alloc(length)
  const text = next() < 0.5
  for (let i = 0; i < length; i++) bytes[i] = text ? 'abcé<>/ "\n'.charCodeAt(Math.floor(next() * 10)) & 0xff : Math.floor(next() * 256)
  return bytes
}

type Maker = (identity: Buffer) => Part | Promise<Part>
const MAKERS: [string, Maker][] = [
  ['deflatePart', (bytes) => deflatePart(bytes)],
  ['deflatePart at level 1', (bytes) => deflatePart(bytes, 1)],
  ['deflatePartAsync', (bytes) => deflatePartAsync(bytes)],
  ['deflatePiecesAsync', (bytes) => deflatePiecesAsync([bytes.toString('latin1')])],
  ['partOfGzip', (bytes) => {
    const part = deflatePart(bytes)
    return partOfGzip(gzipOf([part]), part.crc, part.length)
  }],
]

test('any list of parts, empty, one-byte and window-sized ones among them, splices into a stream zlib accepts byte for byte', async () => {
  const next = random(20261201)
  for (let round = 0; round < 120; round++) {
    const count = Math.floor(next() * 6)
    const identities: Buffer[] = []
    const parts: Part[] = []
    const made: string[] = []
    for (let i = 0; i < count; i++) {
      const length = next() < 0.6 ? EDGE_LENGTHS[Math.floor(next() * EDGE_LENGTHS.length)]! : Math.floor(next() * 3000)
      const [name, make] = MAKERS[Math.floor(next() * MAKERS.length)]!
      const part = await make(bytesOf(next, length))
      identities.push(identityOf(part))
      parts.push(part)
      made.push(`${name}(${length})`)
    }
    const gzip = gzipOf(parts)
    assert.deepEqual(gunzipSync(gzip), Buffer.concat(identities), `round ${round}: ${made.join(', ') || 'no parts'}`)
    assert.deepEqual(gunzipExactly(gzip), { body: Buffer.concat(identities), failures: [] }, `round ${round}: ${made.join(', ')}`)
  }
})

test('an empty part after a full one keeps the whole stream’s checksum', () => {
  const shell = Buffer.from('<html><body>an empty room</body></html>')
  const gzip = gzipOf([deflatePart(shell), deflatePart(Buffer.alloc(0)), deflatePart(Buffer.alloc(0))])
  assert.deepEqual(gunzipSync(gzip), shell)
  assert.equal(crc32Combine(crc32(shell), 0, 0), crc32(shell))
  assert.equal(crc32Combine(crc32(shell), crc32(Buffer.from('x')), 1), crc32(Buffer.concat([shell, Buffer.from('x')])))
})

test('a sidebar whose slots are filled in every way, the last one at its very end, is valid gzip', () => {
  const html = `<nav>${unreadSlot(1)}<a>one</a>${unreadSlot(2)}${unreadSlot(3)}</nav>${unreadSlot(4)}`
  const { segments, rooms } = cutAtSlots(html)
  const page = { segments: segments.map((text) => deflatePart(Buffer.from(text, 'utf8'))), rooms }
  for (let mask = 0; mask < 16; mask++) {
    const unread = new Set([1, 2, 3, 4].filter((_, i) => mask & (1 << i)))
    const gzip = filledGzip(page, unread)
    assert.deepEqual(gunzipExactly(gzip).failures, [], `unread ${[...unread]}`)
    assert.deepEqual(gunzipSync(gzip), filledIdentity(page, unread))
  }
})

test('combined checksums equal zlib’s CRC-32 of the joined bytes, for parts of every size', () => {
  for (const [a, b] of [[0, 1], [1, 0], [7, 65_535], [65_536, 3], [300_000, 1_048_577], [12, 2_000_001]] as const) {
    const first = Buffer.alloc(a, 'ab'.repeat(3) + String(a))
    const second = Buffer.alloc(b, 'xyz' + String(b))
    assert.equal(crc32Combine(crc32(first), crc32(second), second.length), crc32(Buffer.concat([first, second])), `${a} + ${b} bytes`)
  }
})
