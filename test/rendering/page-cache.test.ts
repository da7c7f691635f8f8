import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { PageCache } from '../../server/rendering/page-cache.ts'
import { shellOf } from '../../server/rendering/shell-splice.ts'
import { filledGzip, unreadSlot } from '../../server/rendering/unread-slots.ts'

// A Buffer that is a view into a larger allocation keeps all of it alive.
function ownsItsBytes(buffer: Buffer): boolean {
  return buffer.byteOffset === 0 && buffer.buffer.byteLength === buffer.length
}

test('a page is found only under the signature it was rendered for', async () => {
  const cache = new PageCache(1024 * 1024)
  assert.equal(cache.find('room:1', 'v1'), undefined)
  const page = await cache.admit('room:1', 'v1', '<p>one</p>')
  assert.equal(gunzipSync(page.gzip).toString(), '<p>one</p>')
  assert.equal(cache.find('room:1', 'v1'), page)
  assert.equal(cache.find('room:1', 'v2'), undefined)
})

test('misses of one key and signature arriving together share one build', async () => {
  const cache = new PageCache(1024 * 1024)
  const building = cache.admit('sidebar:1', 's1', '<p>sidebar</p>')
  const joined = cache.find('sidebar:1', 's1')
  assert.ok(joined instanceof Promise)
  assert.equal(await joined, await building)
  assert.equal(cache.stats.builds, 1)
  assert.equal(cache.stats.joined, 1)
})

test('the cache stays within its byte budget', async () => {
  const cache = new PageCache(64 * 1024)
  // Random text hardly compresses, and the cache counts the compressed bytes it keeps.
  for (let i = 0; i < 50; i++) await cache.admit(`page:${i}`, 'v', randomBytes(3000).toString('base64'))
  assert.ok(cache.size.bytes <= 64 * 1024)
  assert.ok(cache.size.entries < 50)
})

test('the admission filter says a key was seen only from its second sighting on', () => {
  const cache = new PageCache(1024 * 1024)
  assert.equal(cache.seenBefore('search:a'), false)
  assert.equal(cache.seenBefore('search:b'), false)
  assert.equal(cache.seenBefore('search:a'), true)
  assert.equal(cache.seenBefore('search:a'), true)
})

test('a search’s remembered results are recalled without counting a hit, so the part’s own lookup counts once', () => {
  const cache = new PageCache(1024 * 1024)
  const results = { partKey: 'search:x:1,2', signature: '1.5,2.6', count: 2 }
  cache.store('search-results:1:x:cats', results.signature, results, '7.3')
  const before = { ...cache.stats }
  assert.deepEqual(cache.recall('search-results:1:x:cats', '7.3'), results)
  assert.equal(cache.recall('search-results:1:x:cats', '8.3'), undefined, 'not once what the person reaches has moved')
  assert.deepEqual(cache.stats, before)
})

test('what the cache keeps holds no more memory than it counts: small pages, shells, slotted segments and their fillings own their bytes', async () => {
  const cache = new PageCache(1024 * 1024)
  const small = await cache.admit('messages:1', 'v', '<p>a short page</p>')
  assert.ok(ownsItsBytes(small.gzip), 'a short page is not a view into zlib’s 16 KiB output chunk')
  const shell = shellOf('<html><body data-at="<!--x-->">', '</body></html>', [])
  for (const part of [...shell.segments, shell.tail]) assert.ok(ownsItsBytes(part.deflated), 'a shell’s part is not a view into zlib’s chunk')
  const sidebar = await cache.admitSlotted('sidebar:1', 'v', `<a class="room${unreadSlot(1)}">one</a><a class="room${unreadSlot(2)}">two</a>`)
  for (const segment of sidebar.segments) assert.ok(ownsItsBytes(segment.deflated), 'a slotted segment is not a view into zlib’s chunk')
  assert.ok(ownsItsBytes(filledGzip(sidebar, new Set([2]))), 'a kept filling is not a view into a pool slab')
})
