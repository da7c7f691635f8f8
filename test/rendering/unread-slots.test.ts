import { test } from 'node:test'
import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { deflatePart } from '../../server/rendering/gzip.ts'
import { cutAtSlots, filledGzip, filledIdentity, unreadClass, unreadSlot } from '../../server/rendering/unread-slots.ts'

const html = `<a class="room${unreadClass('slot', 3)}">Three</a><a class="direct${unreadClass('slot', 12)}">Twelve</a><p>placeholders</p>`

function slotted() {
  const { segments, rooms } = cutAtSlots(html)
  return { segments: segments.map((text) => deflatePart(Buffer.from(text))), rooms }
}

test('a tile says unread, nothing, or (for the cache) its room’s slot', () => {
  assert.equal(unreadClass(true, 3), ' unread')
  assert.equal(unreadClass(false, 3), '')
  assert.equal(unreadClass('slot', 3), unreadSlot(3))
})

test('a page is cut at its slots, in order, with the rooms they belong to', () => {
  const { segments, rooms } = cutAtSlots(html)
  assert.deepEqual(rooms, [3, 12])
  assert.deepEqual(segments, ['<a class="room', '">Three</a><a class="direct', '">Twelve</a><p>placeholders</p>'])
})

test('filling the slots gives the same page, plain or gzipped, for any unread set', () => {
  const page = slotted()
  for (const [unread, expected] of [
    [new Set<number>(), '<a class="room">Three</a><a class="direct">Twelve</a><p>placeholders</p>'],
    [new Set([12]), '<a class="room">Three</a><a class="direct unread">Twelve</a><p>placeholders</p>'],
    [new Set([3, 12, 99]), '<a class="room unread">Three</a><a class="direct unread">Twelve</a><p>placeholders</p>'],
  ] as const) {
    assert.equal(filledIdentity(page, unread).toString('utf8'), expected)
    assert.equal(gunzipSync(filledGzip(page, unread)).toString('utf8'), expected)
  }
})

test('only slots made by this process are cut: a look-alike in unescaped text stays as it is', () => {
  const lookAlike = '<style>/* <!--campfire:unread:7--> */</style>'
  const { segments, rooms } = cutAtSlots(`${lookAlike}<a class="room${unreadSlot(7)}">`)
  assert.deepEqual(rooms, [7])
  assert.equal(segments[0], `${lookAlike}<a class="room`)
})
