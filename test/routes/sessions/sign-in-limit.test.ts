import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { PASSWORD, users } from '../../fixtures.ts'
import { form } from '../../helper.ts'
import { eventually } from '../../cable/cable-helper.ts'
import { startRelayedApps } from '../../cable/relay-helper.ts'
import { RedisServer } from '../../support/redis-server.ts'

function attempt(app: FastifyInstance, password: string, remoteAddress = '10.0.0.1') {
  return app.inject({ method: 'POST', url: '/session', remoteAddress, ...form({ email_address: users.david.email!, password }) })
}

test('ten sign-in attempts from one IP split across two processes use up the limit on both', async (t) => {
  const redis = await RedisServer.start(t)
  const [a, b] = await startRelayedApps(t, redis.url, { signInLimit: 'shared' })
  for (let i = 1; i <= 10; i++) {
    const app = i % 2 === 0 ? a!.app : b!.app
    assert.equal((await attempt(app, `wrong-${i}`)).statusCode, 401, `attempt ${i}`)
  }
  assert.equal((await attempt(a!.app, PASSWORD)).statusCode, 429)
  assert.equal((await attempt(b!.app, PASSWORD)).statusCode, 429)
  assert.equal((await attempt(b!.app, PASSWORD, '10.0.0.2')).statusCode, 302, 'another address is counted apart')
})

test('while Redis is down each process falls back to a limit of its own, and never errors', async (t) => {
  const redis = await RedisServer.start(t)
  const [a, b] = await startRelayedApps(t, redis.url, { signInLimit: 'shared' })
  await redis.stop('SIGKILL')
  await eventually(() => !a!.app.redis!.isUp && !b!.app.redis!.isUp, 10_000, 'both apps to notice')
  for (let i = 1; i <= 10; i++) assert.equal((await attempt(a!.app, `wrong-${i}`)).statusCode, 401, `attempt ${i}`)
  assert.equal((await attempt(a!.app, PASSWORD)).statusCode, 429)
  assert.equal((await attempt(b!.app, PASSWORD)).statusCode, 302)
})
