import { test } from 'node:test'
import assert from 'node:assert/strict'
import { WebhookFailures } from '../../../server/plugins/webhooks/failures.ts'

function clocked() {
  let now = 1_000_000
  const failures = new WebhookFailures({ pauseMs: 5000, logIntervalMs: 60_000, now: () => now })
  return { failures, advance: (ms: number) => void (now += ms) }
}

test('a destination that refused a connection is paused for a while, then tried again', () => {
  const { failures, advance } = clocked()
  assert.equal(failures.paused('http://127.0.0.1:9'), false)
  failures.failed('http://127.0.0.1:9', 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9')
  assert.equal(failures.paused('http://127.0.0.1:9'), true)
  assert.equal(failures.paused('http://127.0.0.1:8080'), false, 'other destinations are not affected')
  advance(5000)
  assert.equal(failures.paused('http://127.0.0.1:9'), false)
})

test('a destination that answered badly or too slowly is not paused', () => {
  const { failures } = clocked()
  failures.failed('https://bots.example.com', 'reply is over the 1024-byte limit')
  failures.failed('https://bots.example.com', 'socket hang up')
  assert.equal(failures.paused('https://bots.example.com'), false)
})

test('a destination’s failures are logged once a minute, counting the failures and skips between', () => {
  const { failures, advance } = clocked()
  const origin = 'http://127.0.0.1:9'
  assert.equal(failures.failed(origin, 'ECONNREFUSED'), 1, 'the first failure is logged at once')
  assert.equal(failures.paused(origin), true)
  advance(6000)
  assert.equal(failures.failed(origin, 'ECONNREFUSED'), null)
  advance(60_000)
  assert.equal(failures.failed(origin, 'ECONNREFUSED'), 3, 'one skip and two failures since the last line')
})
