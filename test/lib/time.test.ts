import { test } from 'node:test'
import assert from 'node:assert/strict'
import { dbTime, nowMicros, parseDbTime } from '../../server/lib/time.ts'

test('database times are written as Rails writes datetime(6) columns', () => {
  assert.equal(dbTime(Date.UTC(2026, 2, 2, 16, 0, 0, 123) * 1000 + 456), '2026-03-02 16:00:00.123456')
})

test('database times parse back to milliseconds with the microseconds as a fraction', () => {
  assert.equal(parseDbTime('2026-03-02 16:00:00.123456'), Date.UTC(2026, 2, 2, 16, 0, 0, 123) + 0.456)
  assert.equal(parseDbTime('2026-03-02 16:00:00'), Date.UTC(2026, 2, 2, 16, 0, 0))
  assert.equal(parseDbTime('2026-03-02T16:00:00Z'), Date.UTC(2026, 2, 2, 16, 0, 0))
  assert.equal(parseDbTime('not a time'), null)
})

test('timestamps we write never repeat, even within one millisecond', () => {
  const frozen = () => 1_000
  const values = Array.from({ length: 100 }, () => nowMicros(frozen))
  assert.equal(new Set(values).size, 100)
  assert.deepEqual([...values].sort((a, b) => a - b), values)
})
