import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../helper.ts'

test('GET /up answers 200 with a green page and needs no cookie', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/up' })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.ok(response.body.includes('background-color: green'))
  assert.equal(response.headers['set-cookie'], undefined, 'sets no cookie')
})

test('GET /up carries X-Version and X-Rev', async (t) => {
  const { app } = await buildTestApp(t, { env: { APP_VERSION: 'up-check-1' } })
  const response = await app.inject({ method: 'GET', url: '/up' })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['x-version'], 'up-check-1')
  assert.equal(response.headers['x-rev'], 'up-check-1')
})

test('GET /up is not cached', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/up' })
  assert.match(String(response.headers['cache-control']), /no-store/)
})

test('GET /up answers 200 before first run, with no account or users', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const response = await app.inject({ method: 'GET', url: '/up' })
  assert.equal(response.statusCode, 200)
  assert.ok(response.body.includes('background-color: green'))
})

test('GET /up ignores a garbage session cookie', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/up', headers: { cookie: 'session_token=garbage--0000' } })
  assert.equal(response.statusCode, 200)
})

test('HEAD /up answers 200 without a body', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'HEAD', url: '/up' })
  assert.equal(response.statusCode, 200)
  assert.equal(response.body, '')
})
