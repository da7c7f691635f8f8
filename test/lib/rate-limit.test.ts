import { test } from 'node:test'
import assert from 'node:assert/strict'
import { RateLimit, SharedRateLimit } from '../../server/lib/rate-limit.ts'
import { RedisLink } from '../../server/lib/redis-link.ts'
import { eventually } from '../cable/cable-helper.ts'
import { RedisServer } from '../support/redis-server.ts'

const quiet = { info() {}, warn() {}, error() {} }

test('a local window allows `limit` hits per key and refuses the next', () => {
  const limit = new RateLimit(3, 60_000)
  assert.deepEqual([1, 2, 3, 4].map(() => limit.hit('a')), [true, true, true, false])
  assert.equal(limit.hit('b'), true)
})

test('a shared window is one count for every limiter on the same Redis, and falls back to its own when Redis is away', async (t) => {
  const redis = await RedisServer.start(t)
  const links = [0, 1].map(() => new RedisLink({ url: redis.url, namespace: 'campfire_test:campfire-ts', log: quiet }))
  for (const link of links) t.after(() => link.close())
  await Promise.all(links.map((link) => link.start(5000)))
  const [a, b] = links.map((link) => new SharedRateLimit(3, 60_000, link, 'sign_in'))
  assert.deepEqual([await a!.hit('ip'), await b!.hit('ip'), await a!.hit('ip'), await b!.hit('ip')], [true, true, true, false])
  assert.equal(await a!.hit('other'), true)

  await redis.stop('SIGKILL')
  await eventually(() => !links[0]!.isUp, 10_000, 'the link to notice')
  assert.deepEqual([await a!.hit('ip'), await a!.hit('ip'), await a!.hit('ip'), await a!.hit('ip')], [true, true, true, false])
})
