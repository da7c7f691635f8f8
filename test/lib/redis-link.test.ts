import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { createClient } from '@redis/client'
import { RedisLink, type RedisRole } from '../../server/lib/redis-link.ts'
import { eventually } from '../cable/cable-helper.ts'
import { RedisServer } from '../support/redis-server.ts'

interface Logged {
  level: string
  message: string
  details: Record<string, unknown>
}

function startLink(t: TestContext, url: string) {
  const logged: Logged[] = []
  const record = (level: string) => (details: object, message: string) => logged.push({ level, message, details: details as Record<string, unknown> })
  const link = new RedisLink({ url, namespace: 'campfire_test:campfire-ts', log: { info: record('info'), warn: record('warn'), error: record('error') } })
  const events: string[] = []
  link.on('up', (role: RedisRole) => events.push(`up ${role}`))
  link.on('down', (role: RedisRole) => events.push(`down ${role}`))
  t.after(() => link.close())
  return { link, logged, events }
}

test('what one link publishes, every link subscribed to the channel hears, in order, over TCP and a Unix socket alike', async (t) => {
  const redis = await RedisServer.start(t)
  const heard: string[] = []
  const one = startLink(t, redis.url)
  const other = startLink(t, redis.socketUrl)
  other.link.subscribe(other.link.name('test'), (message) => heard.push(message.toString()))
  assert.equal(await one.link.start(5000), true)
  assert.equal(await other.link.start(5000), true)
  assert.deepEqual(other.events.sort(), ['up publisher', 'up subscriber'])

  const answers = Array.from({ length: 100 }, (_, i) => one.link.publish('campfire_test:campfire-ts:test', `m${i}`))
  assert.deepEqual(await Promise.all(answers), answers.map(() => true), 'Redis answered every publish')
  await eventually(() => heard.length === 100)
  assert.deepEqual(heard, Array.from({ length: 100 }, (_, i) => `m${i}`))
})

test('while Redis is down a publish is dropped at once and counted, and the link comes back by itself', async (t) => {
  const redis = await RedisServer.start(t)
  const heard: string[] = []
  const { link, logged, events } = startLink(t, redis.url)
  link.subscribe(link.name('test'), (message) => heard.push(message.toString()))
  await link.start(5000)

  await redis.stop('SIGKILL')
  await eventually(() => events.includes('down publisher') && events.includes('down subscriber'), 10_000, 'the link to notice')
  for (let i = 0; i < 1000; i++) assert.equal(link.publish(link.name('test'), 'lost'), null)
  assert.equal(link.dropped, 1000)
  assert.equal(logged.filter((line) => line.message === 'redis: publishes dropped').length, 1, 'logged once, not a thousand times')
  await assert.rejects(link.countInWindow(link.name('k'), 60_000), /not connected/)

  await redis.resume()
  await link.ready(15_000)
  assert.deepEqual(events.slice(-2).sort(), ['up publisher', 'up subscriber'])
  assert.equal(await link.publish(link.name('test'), 'back'), true)
  await eventually(() => heard.includes('back'))
  assert.deepEqual(heard, ['back'])
  const connectedAgain = logged.filter((line) => line.message === 'redis: connected again')
  assert.equal(connectedAgain.reduce((sum, line) => sum + Number(line.details.dropped), 0), 999, 'the drops not yet logged are reported on return')
})

test('a Redis that stops answering with its connection open counts as not answering once a command waits 100 ms, until it answers again', async (t) => {
  const redis = await RedisServer.start(t)
  const heard: string[] = []
  const { link } = startLink(t, redis.url)
  link.subscribe(link.name('test'), (message) => heard.push(message.toString()))
  await link.start(5000)
  assert.equal(link.answering, true)
  assert.equal(await link.publish(link.name('test'), 'before'), true)
  assert.equal(link.answering, true, 'nothing pending')

  const pid = redis.pid!
  process.kill(pid, 'SIGSTOP')
  try {
    const pending = link.publish(link.name('test'), 'while stopped')
    assert.ok(pending, 'the connection is still open: the publish is written')
    assert.equal(link.answering, true, 'not yet late')
    await new Promise((resolve) => setTimeout(resolve, 150))
    assert.equal(link.answering, false)
    const started = performance.now()
    await assert.rejects(link.countInWindow(link.name('k'), 60_000), /not answering/)
    assert.ok(performance.now() - started < 50, 'a sign-in counter falls back at once instead of waiting out its timeout')
    process.kill(pid, 'SIGCONT')
    assert.equal(await pending, true, 'Redis answers what was written once it resumes')
    assert.equal(link.answering, true)
    await eventually(() => heard.length === 2)
    assert.deepEqual(heard, ['before', 'while stopped'])
  } finally {
    process.kill(pid, 'SIGCONT')
  }
})

test('a subscriber that throws is logged and the next message still arrives', async (t) => {
  const redis = await RedisServer.start(t)
  const heard: string[] = []
  const { link, logged } = startLink(t, redis.url)
  link.subscribe(link.name('test'), (message) => {
    if (message.toString() === 'bad') throw new Error('boom')
    heard.push(message.toString())
  })
  await link.start(5000)
  link.publish(link.name('test'), 'bad')
  link.publish(link.name('test'), 'good')
  await eventually(() => heard.length === 1)
  assert.deepEqual(heard, ['good'])
  assert.ok(logged.some((line) => line.level === 'error' && line.message === 'redis: a subscriber failed on a message'))
})

test('a window is counted from its first hit: later hits do not extend it', async (t) => {
  const redis = await RedisServer.start(t)
  const { link } = startLink(t, redis.url)
  await link.start(5000)
  const key = link.name('window:10.0.0.1')
  assert.equal(await link.countInWindow(key, 60_000), 1)
  assert.equal(await link.countInWindow(key, 60_000), 2)
  assert.equal(await link.countInWindow(key, 120_000), 3)
  const probe = await createClient({ url: redis.url }).on('error', () => {}).connect()
  t.after(() => probe.destroy())
  // The TTL is still the first hit's minute, not two.
  const ttl = await probe.pTTL(key)
  assert.ok(ttl > 0 && ttl <= 60_000, `ttl ${ttl}`)
})

test('a link whose Redis never answered starts anyway, and closes cleanly', async (t) => {
  const redis = await RedisServer.start(t)
  await redis.stop('SIGKILL')
  const { link } = startLink(t, redis.url)
  link.subscribe(link.name('test'), () => {})
  assert.equal(await link.start(200), false)
  assert.equal(link.publish(link.name('test'), 'nobody'), null)
  await link.close()
})
