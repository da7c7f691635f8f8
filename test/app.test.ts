import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import { buildApp } from '../server/app.ts'
import { tempStorage, testConfig } from './helper.ts'

test('a route that declares a schema fails when the app gets ready, saying schemas are not compiled here', async (t) => {
  const app = await buildApp({ config: testConfig(tempStorage(t)), logger: false, passwordCost: 4 })
  t.after(() => app.close())
  app.post('/schema-test', { schema: { body: { type: 'object', properties: { name: { type: 'string' } } } } }, async () => 'ok')
  await assert.rejects(async () => {
    await app.ready()
  }, /route schemas are not compiled here/)
})

// (Fastify's precompiled error serializer still takes fast-json-stringify's small runtime.)
test('getting the app ready loads no schema compiler (Ajv, fast-json-stringify)', async (t) => {
  const app = await buildApp({ config: testConfig(tempStorage(t)), logger: false, passwordCost: 4 })
  t.after(() => app.close())
  await app.ready()
  const loaded = Object.keys(createRequire(import.meta.url).cache)
  assert.ok(loaded.some((file) => file.includes('/node_modules/fastify/')), 'fastify itself is in the cache this test reads')
  assert.deepEqual(loaded.filter((file) => /\/node_modules\/(ajv|ajv-formats|@fastify\/ajv-compiler|@fastify\/fast-json-stringify-compiler)\/|\/node_modules\/fast-json-stringify\/index\.js$/.test(file)), [])
})

// (The address parser, one file of nodemailer's, reads email addresses in settings.)
test('getting the app ready loads none of the packages kept for later: sharp, nodemailer, prom-client, yazl, pino-pretty', async (t) => {
  const app = await buildApp({ config: testConfig(tempStorage(t)), logger: false, passwordCost: 4 })
  t.after(() => app.close())
  await app.ready()
  const loaded = Object.keys(createRequire(import.meta.url).cache)
  assert.deepEqual(loaded.filter((file) => /\/node_modules\/(sharp|nodemailer(?!\/lib\/addressparser\/)|prom-client|yazl|pino-pretty)\//.test(file)), [])
})
