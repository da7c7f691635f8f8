import { test } from 'node:test'
import assert from 'node:assert/strict'
import { onFirstUse } from '../../server/lib/on-first-use.ts'

test('the value is made on the first call, not before, and only once', () => {
  let made = 0
  const cache = onFirstUse(() => ({ made: ++made }))
  assert.equal(made, 0)
  const first = cache()
  assert.equal(made, 1)
  assert.equal(cache(), first)
  assert.equal(made, 1)
})

test('a value that is undefined is made once too', () => {
  let calls = 0
  const nothing = onFirstUse(() => {
    calls++
    return undefined
  })
  nothing()
  nothing()
  assert.equal(calls, 1)
})
