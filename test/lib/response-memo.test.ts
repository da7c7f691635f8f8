import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ResponseMemo } from '../../server/lib/response-memo.ts'

const entry = (generation: number, body: Buffer) => ({ generation, status: 200, headers: { 'content-type': 'text/html' }, body })

test('a response is worth keeping once its request has come twice at the same generation', () => {
  const memo = new ResponseMemo(1024 * 1024)
  assert.equal(memo.wouldKeep('GET /a', 1), false)
  assert.equal(memo.wouldKeep('GET /a', 1), true)
  assert.equal(memo.wouldKeep('GET /b', 1), false)
  // Something was written between two visits: the second is a first sighting again.
  assert.equal(memo.wouldKeep('GET /b', 2), false)
  assert.equal(memo.wouldKeep('GET /b', 3), false)
  assert.equal(memo.wouldKeep('GET /b', 3), true)
})

test('a kept response is found at its own generation only, and dropped once found stale', () => {
  const memo = new ResponseMemo(1024 * 1024)
  memo.keep('GET /a', entry(7, Buffer.from('page')))
  assert.equal(memo.find('GET /a', 7)?.body.toString(), 'page')
  assert.equal(memo.find('GET /a', 8), undefined)
  assert.equal(memo.size, 0)
  assert.equal(memo.find('GET /a', 7), undefined)
})

test('a body that is a view into a larger buffer is kept as its own bytes', () => {
  const memo = new ResponseMemo(1024 * 1024)
  const slab = Buffer.alloc(8192, 1)
  memo.keep('GET /a', entry(1, slab.subarray(100, 110)))
  const kept = memo.find('GET /a', 1)!.body
  assert.equal(kept.length, 10)
  assert.equal(kept.buffer.byteLength, 10)
  slab.fill(2)
  assert.deepEqual([...kept], new Array(10).fill(1))
})

test('the memo holds at most its budget, dropping the least recently used', () => {
  const memo = new ResponseMemo(64 * 1024)
  for (let i = 0; i < 20; i++) memo.keep(`GET /${i}`, entry(1, Buffer.alloc(10 * 1024)))
  assert.ok(memo.bytes <= 64 * 1024, `${memo.bytes} bytes`)
  assert.ok(memo.size < 20)
  assert.ok(memo.find('GET /19', 1))
  assert.equal(memo.find('GET /0', 1), undefined)
})
