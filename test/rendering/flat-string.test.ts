import { test } from 'node:test'
import assert from 'node:assert/strict'
import { serialize } from 'node:v8'
import { compacted, heapBytes, latin1Html } from '../../server/rendering/flat-string.ts'
import { REACTIONS } from '../../server/rendering/helpers/index.ts'

// V8's serializer writes a string as it holds it: tag 0x22 for one byte a character, 0x63 for two.
const oneByte = (text: string) => serialize(text)[2] === 0x22

// Latin-1 text that V8 holds at two bytes a character: what `replace` makes of a two-byte string.
const wideButLatin1 = () => `<p>${'x'.repeat(200)}</p>❤️`.replace(/[^\u0000-\u00ff]/gu, '.')

test('every quick boost, the red heart’s two code points included, is HTML of one byte a character', () => {
  assert.equal(oneByte(wideButLatin1()), false, 'the setting this guards against')
  for (const [character] of REACTIONS) {
    const html = latin1Html(character)
    assert.match(html, /^(&#x[0-9A-F]+;)+$/)
    assert.equal(oneByte(html), true, `${character} as ${html}`)
  }
  assert.equal(latin1Html('❤️'), '&#x2764;&#xFE0F;')
})

test('a string kept in a cache is one byte a character when its characters allow, and keeps its value', () => {
  const wide = wideButLatin1()
  assert.equal(compacted(wide), wide)
  assert.equal(oneByte(compacted(wide)), true)
  assert.equal(oneByte(compacted('<p>é ü ÿ</p>')), true)
  const emoji = '<p>Ship it 🚢</p>'
  assert.equal(compacted(emoji), emoji)
  assert.equal(oneByte(compacted(emoji)), false)
  assert.equal(compacted(''), '')
})

test('a kept string’s heap bytes are its length, or twice it beyond Latin-1', () => {
  assert.equal(heapBytes('<p>é</p>'), 8)
  assert.equal(heapBytes('<p>🚢</p>'), 18)
  assert.equal(heapBytes(''), 0)
})
