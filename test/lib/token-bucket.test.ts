import { test } from 'node:test'
import assert from 'node:assert/strict'
import { TokenBucket } from '../../server/lib/token-bucket.ts'

function takes(bucket: TokenBucket, count: number, now: number): boolean[] {
  return Array.from({ length: count }, () => bucket.take(1, 3, now))
}

test('a token bucket allows its burst at once, then one take per refilled token', () => {
  const bucket = new TokenBucket(3, 0)
  assert.deepEqual(takes(bucket, 4, 0), [true, true, true, false])
  assert.deepEqual(takes(bucket, 2, 999), [false, false])
  assert.deepEqual(takes(bucket, 2, 1000), [true, false])
  assert.deepEqual(takes(bucket, 2, 2500), [true, false])
})

test('a token bucket never holds more than its burst, and a clock going back adds nothing', () => {
  const bucket = new TokenBucket(3, 0)
  assert.deepEqual(takes(bucket, 4, 3_600_000), [true, true, true, false])
  assert.deepEqual(takes(bucket, 1, 1000), [false])
  assert.deepEqual(takes(bucket, 1, 2000), [true])
})
