import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { marshalDump, rubyHash, symbol, variationDigest, type RubyValue } from '../../../server/lib/rails/variation.ts'
import { AVATAR_SQUARE, LOGO_LARGE, LOGO_SMALL, thumbVariation, thumbVariationFor, VIDEO_POSTER } from '../../../server/models/blob/variations.ts'

// Made by Debian's ruby with test/fixtures/rails-variants/generate.rb.
const vectors = JSON.parse(readFileSync(new URL('../../fixtures/rails-variants/vectors.json', import.meta.url), 'utf8')) as {
  variants: { name: string; marshal: string; digest: string }[]
}
const golden = (name: string) => vectors.variants.find((v) => v.name === name)!

const limit = (format: RubyValue, width: number, height: number) => rubyHash({ format, resize_to_limit: [width, height] })
const CASES: [string, RubyValue][] = [
  ['avatar square', limit(symbol('webp'), 512, 512)],
  ['logo large', limit(symbol('png'), 512, 512)],
  ['logo small', limit(symbol('png'), 192, 192)],
  ['thumb jpg', limit('jpg', 1200, 800)],
  ['thumb jpeg', limit('jpeg', 1200, 800)],
  ['thumb png', limit('png', 1200, 800)],
  ['thumb gif', limit('gif', 1200, 800)],
  ['thumb webp', limit('webp', 1200, 800)],
  ['thumb other image', limit(symbol('png'), 1200, 800)],
  ['thumb JPG', limit('JPG', 1200, 800)],
  ['video poster', limit(symbol('webp'), 1200, 800)],
  ['large numbers', rubyHash({ format: symbol('png'), resize_to_limit: [70000, 123], other: [-1, -200, 300, 0] })],
]

for (const [name, transformations] of CASES) {
  test(`the ${name} transformations marshal and digest byte for byte as Ruby's`, () => {
    assert.equal(marshalDump(transformations).toString('hex'), golden(name).marshal)
    assert.equal(variationDigest(transformations), golden(name).digest)
  })
}

test('the declared variants carry Rails’ digests, and a thumbnail is named by its file’s extension', () => {
  assert.equal(AVATAR_SQUARE.digest, golden('avatar square').digest)
  assert.equal(LOGO_LARGE.digest, golden('logo large').digest)
  assert.equal(LOGO_SMALL.digest, golden('logo small').digest)
  assert.equal(thumbVariation('jpg').digest, golden('thumb jpg').digest)
  assert.equal(thumbVariation('webp').format, 'webp')
  assert.deepEqual([thumbVariation('tiff').digest, thumbVariation('tiff').format], [golden('thumb other image').digest, 'png'])
})

test('a video’s poster and an attachment’s thumbnail carry Rails’ digests, the thumbnail’s format picked as Blob#default_variant_format picks it', () => {
  assert.equal(VIDEO_POSTER.digest, golden('video poster').digest)
  assert.deepEqual(VIDEO_POSTER.transformations, { format: 'webp', resize_to_limit: [1200, 800] })
  const thumb = (filename: string, contentType: string) => thumbVariationFor({ filename, content_type: contentType })
  assert.equal(thumb('photo.jpg', 'image/jpeg').digest, golden('thumb jpg').digest)
  assert.equal(thumb('PHOTO.JPG', 'image/jpeg').digest, golden('thumb JPG').digest, 'the extension’s case is kept')
  assert.equal(thumb('scan.png', 'image/png').digest, golden('thumb png').digest)
  // An extension that does not name the blob's type gives way to the type's own extension.
  assert.equal(thumb('really-a-jpeg.png', 'image/jpeg').digest, golden('thumb jpeg').digest)
  assert.equal(thumb('no-extension', 'image/gif').digest, golden('thumb gif').digest)
  assert.deepEqual([thumb('scan.tiff', 'image/tiff').digest, thumb('scan.tiff', 'image/tiff').format], [golden('thumb other image').digest, 'png'])
  assert.deepEqual(thumb('photo.jpg', 'image/jpeg').transformations, { format: 'jpg', resize_to_limit: [1200, 800] })
})
