import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, inject, signIn } from '../helper.ts'
import { rooms } from '../fixtures.ts'
import { get, post, seed } from '../routes/messages/support.ts'
import { freePort } from '../support/ports.ts'
import { parseScrape, valueOf, type Family } from '../support/prometheus-text.ts'

const TOKEN = 'metrics-token-0123456789abcdef'
const bearer = { authorization: `Bearer ${TOKEN}` }

async function scrape(app: FastifyInstance): Promise<Map<string, Family>> {
  const response = await app.inject({ method: 'GET', url: '/metrics', headers: bearer })
  assert.equal(response.statusCode, 200, response.body)
  assert.equal(response.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
  return parseScrape(response.body)
}

const roomPage = { method: 'GET', route: '/rooms/:id', status: '200' }

test('without METRICS_TOKEN or METRICS_BIND there are no metrics: /metrics is not found, token or not', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/metrics', headers: bearer })
  assert.equal(response.statusCode, 404)
  assert.doesNotMatch(response.body, /process_cpu|campfire_/)
})

test('with METRICS_TOKEN, /metrics answers only that bearer token: not no token, a wrong one, or a signed-in administrator', async (t) => {
  const { app } = await buildTestApp(t, { env: { METRICS_TOKEN: TOKEN } })
  const admin = await signIn(app, 'david')
  const answers = [
    await app.inject({ method: 'GET', url: '/metrics' }),
    await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}x` } }),
    await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` } }),
    await inject(app, admin, { method: 'GET', url: '/metrics' }),
    await inject(app, admin, { method: 'GET', url: `/metrics?token=${TOKEN}` }),
  ]
  for (const response of answers) {
    assert.equal(response.statusCode, 401)
    assert.equal(response.headers['www-authenticate'], 'Bearer realm="metrics"')
    assert.doesNotMatch(response.body, /campfire_|process_/)
  }
  const families = await scrape(app)
  assert.ok(families.has('process_cpu_user_seconds'), 'Node’s default process metrics are there')
  assert.ok(families.has('campfire_http_request_duration_seconds'))
})

test('requests, posts and cache hits move their counters between two scrapes', async (t) => {
  const { app } = await buildTestApp(t, { env: { METRICS_TOKEN: TOKEN } })
  await seed(app, rooms.hq.id, 1, 5)
  const david = await signIn(app, 'david')
  const jason = await signIn(app, 'jason')
  const before = await scrape(app)

  assert.equal((await get(app, david, `/rooms/${rooms.hq.id}`)).statusCode, 200)
  assert.equal((await get(app, jason, `/rooms/${rooms.hq.id}`)).statusCode, 200)
  const posted = await post(app, david, rooms.hq.id, 'Counted by the metrics')
  assert.ok(posted.statusCode < 400, `the post was taken: ${posted.statusCode}`)
  assert.equal((await get(app, david, '/no/such/page')).statusCode, 404)
  const after = await scrape(app)

  const moved = (series: string, labels: Record<string, string> = {}) => valueOf(after, series, labels) - valueOf(before, series, labels)
  assert.equal(moved('campfire_http_request_duration_seconds_count', roomPage), 2)
  assert.equal(moved('campfire_http_request_duration_seconds_count', { method: 'POST', route: '/rooms/:room_id/messages', status: String(posted.statusCode) }), 1)
  assert.equal(moved('campfire_http_request_duration_seconds_count', { route: '(unmatched)', status: '404' }), 1)
  assert.ok(moved('campfire_http_request_duration_seconds_sum', roomPage) > 0, 'the room pages took some time')
  assert.equal(moved('campfire_http_request_duration_seconds_bucket', { ...roomPage, le: '+Inf' }), 2)
  assert.equal(moved('campfire_cache_answers_total', { cache: 'page', outcome: 'miss' }), 1)
  assert.equal(moved('campfire_cache_answers_total', { cache: 'page', outcome: 'hit' }), 1)
  assert.ok(moved('campfire_cache_lookups_total', { cache: 'fragment' }) >= 5, 'the room page looked its messages up')
  assert.ok(moved('campfire_writer_writes_total') >= 1, 'the post went through the writer')
  assert.ok(moved('campfire_writer_transaction_seconds_count') >= 1)
  assert.equal(valueOf(after, 'campfire_writer_queue_depth'), 0)
  assert.ok(valueOf(after, 'campfire_database_bytes') > 0)
  // The scrape itself is counted too, once it has been answered.
  assert.equal(moved('campfire_http_request_duration_seconds_count', { route: '/metrics', status: '200' }), 1)
})

test('with METRICS_BIND, a loopback listener of its own answers without a token, and the app’s port has no /metrics', async (t) => {
  const port = await freePort()
  const { app } = await buildTestApp(t, { env: { METRICS_BIND: `127.0.0.1:${port}` } })
  await app.inject({ method: 'GET', url: '/up' })
  const response = await fetch(`http://127.0.0.1:${port}/metrics`)
  assert.equal(response.status, 200)
  const families = parseScrape(await response.text())
  assert.equal(valueOf(families, 'campfire_http_request_duration_seconds_count', { route: '/up', status: '200' }), 1)
  assert.equal((await fetch(`http://127.0.0.1:${port}/`)).status, 404)
  assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status, 405)
  assert.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404)
})
