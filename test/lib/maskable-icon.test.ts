import assert from 'node:assert/strict'
import { test } from 'node:test'
import sharp from 'sharp'
import { ImageError } from '../../server/lib/images.ts'
import { MASKABLE_CONTENT, MASKABLE_SAFE_RADIUS, MASKABLE_SIZE, maskableIcon } from '../../server/lib/maskable-icon.ts'

test('the safe square fits inside the safe zone: its corners are within 40% of the width from the centre', () => {
  assert.ok(Math.hypot(MASKABLE_CONTENT / 2, MASKABLE_CONTENT / 2) < MASKABLE_SAFE_RADIUS)
  assert.ok(Math.hypot((MASKABLE_CONTENT + 2) / 2, (MASKABLE_CONTENT + 2) / 2) > MASKABLE_SAFE_RADIUS - 2, 'and is about as large as it can be')
})

test('a small picture is enlarged to the safe square, centred on an opaque white 512 PNG', async () => {
  const icon = await maskableIcon(await sharp({ create: { width: 32, height: 32, channels: 3, background: '#000000' } }).png().toBuffer())
  const { data, info } = await sharp(icon).raw().toBuffer({ resolveWithObject: true })
  assert.deepEqual([info.width, info.height, info.channels], [MASKABLE_SIZE, MASKABLE_SIZE, 3])
  const at = (x: number, y: number) => data[(y * info.width + x) * 3]!
  const first = (MASKABLE_SIZE - MASKABLE_CONTENT) / 2
  assert.equal(at(first - 1, 256), 255)
  assert.ok(at(first + 2, 256) < 40)
  assert.ok(at(first + MASKABLE_CONTENT - 3, 256) < 40)
  assert.equal(at(first + MASKABLE_CONTENT, 256), 255)
})

test('what is not a picture we read (garbage, an SVG) is an ImageError', async () => {
  await assert.rejects(maskableIcon(Buffer.from('not a picture')), ImageError)
  await assert.rejects(maskableIcon(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')), ImageError)
})
