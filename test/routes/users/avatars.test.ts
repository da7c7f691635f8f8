import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { buildTestApp } from '../../helper.ts'
import { users } from '../../fixtures.ts'

test('an avatar is found by its signed token, without signing in', async (t) => {
  const { app } = await buildTestApp(t)
  const token = app.signing.signedId('User', users.kevin.id, 'avatar')
  const response = await app.inject({ url: `/users/${token}/avatar` })
  assert.equal(response.statusCode, 200)
  assert.match(response.headers['content-type'] as string, /^image\/svg\+xml/)
  assert.match(response.body, />KM</)
  assert.match(response.headers['cache-control'] as string, /public/)
})

test('a numeric id, a forged token or a transfer token is not an avatar token', async (t) => {
  const { app } = await buildTestApp(t)
  const transfer = app.signing.signedId('User', users.kevin.id, 'transfer', { expiresInMs: 3_600_000 })
  for (const token of [String(users.kevin.id), 'garbage', transfer]) {
    assert.equal((await app.inject({ url: `/users/${encodeURIComponent(token)}/avatar` })).statusCode, 404, token)
  }
})

test('the same person always gets the same colour, and an unchanged avatar answers 304', async (t) => {
  const { app } = await buildTestApp(t)
  const token = app.signing.signedId('User', users.jz.id, 'avatar')
  const first = await app.inject({ url: `/users/${token}/avatar` })
  const second = await app.inject({ url: `/users/${token}/avatar` })
  assert.equal(first.body, second.body)
  const cached = await app.inject({ url: `/users/${token}/avatar`, headers: { 'if-none-match': first.headers.etag as string } })
  assert.equal(cached.statusCode, 304)
})

test('a bot without an avatar gets the bot picture instead of initials', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ url: `/users/${app.signing.signedId('User', users.bender.id, 'avatar')}/avatar` })
  assert.equal(response.statusCode, 200)
  assert.doesNotMatch(response.body, /<text/)
})

test('the processed square WebP variant Active Storage made is sent when there is one', async (t) => {
  const { app, config } = await buildTestApp(t)
  const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 '), Buffer.alloc(200, 7)])
  const key = 'abcd1234variantkey'
  mkdirSync(join(config.filesPath, 'ab', 'cd'), { recursive: true })
  writeFileSync(join(config.filesPath, 'ab', 'cd', key), webp)
  app.store.writeNow((m) => {
    const t0 = '2026-03-01 12:00:00'
    m.db.prepare("INSERT INTO active_storage_blobs (id, key, filename, content_type, service_name, byte_size, created_at) VALUES (1, 'origkey000001', 'moon.jpg', 'image/jpeg', 'local', 10, ?)").run(t0)
    m.db.prepare("INSERT INTO active_storage_blobs (id, key, filename, content_type, service_name, byte_size, created_at) VALUES (2, ?, 'moon.webp', 'image/webp', 'local', ?, ?)").run(key, webp.length, t0)
    m.db.prepare("INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES ('avatar', 'User', ?, 1, ?)").run(users.jason.id, t0)
    m.db.prepare("INSERT INTO active_storage_variant_records (id, blob_id, variation_digest) VALUES (1, 1, 'digest')").run()
    m.db.prepare("INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES ('image', 'ActiveStorage::VariantRecord', 1, 2, ?)").run(t0)
  })
  const response = await app.inject({ url: `/users/${app.signing.signedId('User', users.jason.id, 'avatar')}/avatar` })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'image/webp')
  assert.deepEqual(response.rawPayload, webp)
})
