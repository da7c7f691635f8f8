import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { buildTestApp, form, inject, signIn } from '../../helper.ts'
import { users } from '../../fixtures.ts'
import { blobPath } from '../../../server/lib/files.ts'
import { AVATAR_NOTICE } from '../../../server/routes/users/profiles.ts'
import { botCookie } from '../rooms/support.ts'
import { filesUnder, flashOf, multipartBody, png, rows, sendMultipart, uploadAvatar, value } from './support.ts'

const SQUARE_DIGEST = '6gwfjNKv9eUy9jNUtEZvQFLU0hQ='

function avatarUrl(app: FastifyInstance, userId: number): string {
  return `/users/${app.signing.signedId('User', userId, 'avatar')}/avatar`
}

function nothingStored(app: FastifyInstance, filesPath: string, label: string): void {
  assert.equal(value<number>(app, 'SELECT count(*) FROM active_storage_blobs'), 0, `${label}: no blob row`)
  assert.equal(value<number>(app, 'SELECT count(*) FROM active_storage_attachments'), 0, `${label}: no attachment row`)
  assert.equal(value<number>(app, 'SELECT count(*) FROM active_storage_variant_records'), 0, `${label}: no variant record`)
  assert.deepEqual(filesUnder(filesPath), [], `${label}: no file`)
}

// A Rails-made original with no variant yet: a blob, its file, and the attachment.
function railsOriginal(app: FastifyInstance, filesPath: string, userId: number, bytes: Buffer, filename: string, contentType: string): void {
  const key = 'railsoriginal0000000000000ab'
  const path = blobPath(filesPath, key)!
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, bytes)
  app.store.writeNow((m) => {
    const t0 = '2026-03-01 12:00:00.000000'
    const blob = m.db.prepare("INSERT INTO active_storage_blobs (key, filename, content_type, metadata, service_name, byte_size, checksum, created_at) VALUES (?, ?, ?, '{\"identified\":true}', 'local', ?, 'x', ?)").run(key, filename, contentType, bytes.length, t0)
    m.db.prepare("INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES ('avatar', 'User', ?, ?, ?)").run(userId, blob.lastInsertRowid, t0)
  })
}

test('an avatar is only for people who are signed in; bots get 403', async (t) => {
  const { app } = await buildTestApp(t)
  const url = avatarUrl(app, users.kevin.id)
  assert.equal((await app.inject({ url, headers: { accept: 'image/avif,image/webp,*/*' } })).statusCode, 302)
  assert.equal((await app.inject({ url, headers: { accept: 'image/webp' } })).statusCode, 401)
  assert.equal((await inject(app, await botCookie(app), { url })).statusCode, 403)
  assert.equal((await inject(app, await signIn(app, 'jz'), { url })).statusCode, 200)
})

test('without an avatar, a person gets their initials as SVG with upstream’s caching headers and a 304 for an unchanged one', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const url = avatarUrl(app, users.kevin.id)
  const response = await inject(app, cookie, { url })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'image/svg+xml; charset=utf-8')
  assert.equal(response.headers['cache-control'], 'max-age=1800, public, stale-while-revalidate=604800')
  assert.match(response.headers.etag as string, /^W\/"user-4-\d+"$/)
  assert.match(response.body, /viewBox="0 0 512 512" class="avatar" aria-hidden="true"/)
  assert.match(response.body, />KM</)
  assert.equal((await inject(app, cookie, { url })).body, response.body)
  const cached = await inject(app, cookie, { url, headers: { 'if-none-match': response.headers.etag as string } })
  assert.equal(cached.statusCode, 304)
  assert.equal(cached.body, '')
})

test('a numeric id, a forged token or a transfer token is a 404 with no body', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const transfer = app.signing.signedId('User', users.kevin.id, 'transfer', { expiresInMs: 3_600_000 })
  const missing = app.signing.signedId('User', 999, 'avatar')
  for (const token of [String(users.kevin.id), 'not-a-valid-token', transfer, missing]) {
    const response = await inject(app, cookie, { url: `/users/${encodeURIComponent(token)}/avatar` })
    assert.equal(response.statusCode, 404, token)
    assert.equal(response.body, '')
  }
})

test('a bot without an avatar gets the bot picture instead of initials', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await inject(app, await signIn(app, 'jz'), { url: avatarUrl(app, users.bender.id) })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'image/svg+xml')
  assert.doesNotMatch(response.body, /<text/)
})

test('an uploaded avatar is stored as Rails stores it, with its square WebP made at once, and served from the square', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const before = app.store.read((m) => m.users.find(users.jz.id))!.updated_at
  const original = await png(1000, 800)
  const response = await uploadAvatar(app, cookie, { filename: 'moon.png', bytes: original })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/users/me/profile')
  assert.deepEqual(flashOf(response), { notice: AVATAR_NOTICE })
  assert.notEqual(app.store.read((m) => m.users.find(users.jz.id))!.updated_at, before, 'the person is touched, so ?v= moves')

  const [attachment] = rows<{ name: string; record_type: string; record_id: number; blob_id: number }>(app, "SELECT name, record_type, record_id, blob_id FROM active_storage_attachments WHERE record_type = 'User'")
  assert.deepEqual({ ...attachment, blob_id: undefined }, { name: 'avatar', record_type: 'User', record_id: users.jz.id, blob_id: undefined })
  const blob = rows<Record<string, unknown>>(app, 'SELECT * FROM active_storage_blobs WHERE id = ?', attachment!.blob_id)[0]!
  assert.equal(blob.filename, 'moon.png')
  assert.equal(blob.content_type, 'image/png')
  assert.equal(blob.service_name, 'local')
  assert.equal(blob.byte_size, original.length)
  assert.equal(blob.checksum, createHash('md5').update(original).digest('base64'))
  assert.deepEqual(JSON.parse(blob.metadata as string), { identified: true, width: 1000, height: 800, analyzed: true })
  assert.deepEqual(readFileSync(blobPath(config.filesPath, blob.key as string)!), original)

  const [record] = rows<{ id: number; blob_id: number; variation_digest: string }>(app, 'SELECT id, blob_id, variation_digest FROM active_storage_variant_records')
  assert.equal(record!.blob_id, attachment!.blob_id)
  assert.equal(record!.variation_digest, SQUARE_DIGEST)
  const [image] = rows<{ name: string; blob_id: number }>(app, "SELECT name, blob_id FROM active_storage_attachments WHERE record_type = 'ActiveStorage::VariantRecord' AND record_id = ?", record!.id)
  assert.equal(image!.name, 'image')
  const square = rows<Record<string, unknown>>(app, 'SELECT * FROM active_storage_blobs WHERE id = ?', image!.blob_id)[0]!
  assert.match(square.key as string, /^[0-9a-z]{28}$/)
  assert.equal(square.filename, 'moon.webp')
  assert.equal(square.content_type, 'image/webp')
  assert.equal(square.service_name, 'local')
  const squareBytes = readFileSync(blobPath(config.filesPath, square.key as string)!)
  assert.equal(square.byte_size, squareBytes.length)
  assert.equal(square.checksum, createHash('md5').update(squareBytes).digest('base64'))
  assert.deepEqual(JSON.parse(square.metadata as string), { identified: true, width: 512, height: 410, analyzed: true })

  const served = await inject(app, cookie, { url: avatarUrl(app, users.jz.id) })
  assert.equal(served.statusCode, 200)
  assert.equal(served.headers['content-type'], 'image/webp')
  assert.equal(served.headers['content-disposition'], `inline; filename="${square.key}"; filename*=UTF-8''${square.key}`)
  assert.equal(served.headers['content-transfer-encoding'], 'binary')
  assert.deepEqual(served.rawPayload, squareBytes)
  const meta = await sharp(served.rawPayload).metadata()
  assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 512, 410])
})

test('a JPEG turned by its EXIF orientation comes out upright, and a small picture is never enlarged', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  // 600 wide, 300 tall as stored; orientation 6 means it is shown turned a quarter: 300 × 600.
  const left = await sharp({ create: { width: 300, height: 300, channels: 3, background: { r: 255, g: 0, b: 0 } } }).png().toBuffer()
  const turned = await sharp({ create: { width: 600, height: 300, channels: 3, background: { r: 0, g: 0, b: 255 } } })
    .composite([{ input: left, left: 0, top: 0 }])
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer()
  assert.equal((await uploadAvatar(app, cookie, { filename: 'portrait.jpg', type: 'image/jpeg', bytes: turned })).statusCode, 302)
  const served = await inject(app, cookie, { url: avatarUrl(app, users.jz.id) })
  const meta = await sharp(served.rawPayload).metadata()
  assert.deepEqual([meta.width, meta.height], [256, 512])
  assert.equal(meta.orientation, undefined, 'no EXIF left to turn it again')
  // Turned clockwise, the red left half of the stored picture is now its top half.
  const { data } = await sharp(served.rawPayload).extract({ left: 128, top: 64, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true })
  assert.ok(data[0]! > 200 && data[2]! < 60, `the top is red: ${[...data]}`)
  const blob = rows<{ metadata: string }>(app, "SELECT metadata FROM active_storage_blobs WHERE filename = 'portrait.jpg'")[0]!
  assert.deepEqual(JSON.parse(blob.metadata), { identified: true, width: 300, height: 600, analyzed: true })

  assert.equal((await uploadAvatar(app, cookie, { filename: 'tiny.png', bytes: await png(40, 30) })).statusCode, 302)
  const small = await sharp((await inject(app, cookie, { url: avatarUrl(app, users.jz.id) })).rawPayload).metadata()
  assert.deepEqual([small.width, small.height], [40, 30])
})

test('a new avatar replaces the old one: its blob, variant, their rows and files are all gone', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  await uploadAvatar(app, cookie, { filename: 'first.png', bytes: await png(300, 300) })
  const firstFiles = filesUnder(config.filesPath)
  assert.equal(firstFiles.length, 2)
  await uploadAvatar(app, cookie, { filename: 'second.png', bytes: await png(200, 200, { r: 10, g: 200, b: 10 }) })
  assert.deepEqual(rows<{ filename: string }>(app, 'SELECT filename FROM active_storage_blobs ORDER BY id').map((r) => r.filename), ['second.png', 'second.webp'])
  assert.equal(value<number>(app, 'SELECT count(*) FROM active_storage_attachments'), 2)
  assert.equal(value<number>(app, 'SELECT count(*) FROM active_storage_variant_records'), 1)
  const files = filesUnder(config.filesPath)
  assert.equal(files.length, 2)
  for (const path of firstFiles) assert.ok(!files.includes(path), `${path} was deleted`)
})

test('DELETE /users/:id/avatar removes the signed-in person’s own avatar, whatever the id, and goes back to the profile', async (t) => {
  const { app, config } = await buildTestApp(t)
  const jz = await signIn(app, 'jz')
  const kevin = await signIn(app, 'kevin')
  await uploadAvatar(app, jz, { bytes: await png(100, 100) })
  await uploadAvatar(app, kevin, { bytes: await png(100, 100) })
  assert.match((await inject(app, jz, { url: '/users/me/profile' })).body, /Delete avatar/)
  const response = await inject(app, jz, { method: 'POST', url: `/users/${users.kevin.id}/avatar`, ...form({ _method: 'delete' }) })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/users/me/profile')
  assert.deepEqual(rows<{ record_id: number }>(app, "SELECT record_id FROM active_storage_attachments WHERE record_type = 'User'").map((r) => r.record_id), [users.kevin.id])
  assert.equal(filesUnder(config.filesPath).length, 2, 'only Kevin’s two files are left')
  assert.match((await inject(app, jz, { url: avatarUrl(app, users.jz.id) })).headers['content-type'] as string, /^image\/svg\+xml/)
  const again = await inject(app, jz, { method: 'DELETE', url: '/users/me/avatar', headers: { 'sec-fetch-site': 'same-origin' } })
  assert.equal(again.statusCode, 302)
  assert.equal((await app.inject({ method: 'DELETE', url: '/users/me/avatar', headers: { 'sec-fetch-site': 'same-origin' } })).statusCode, 401)
  assert.equal((await inject(app, await botCookie(app), { method: 'DELETE', url: '/users/me/avatar', headers: { 'sec-fetch-site': 'same-origin' } })).statusCode, 403)
})

test('a file that is not a picture we can read, or is too large, is a 422 with a clear message and leaves nothing behind', async (t) => {
  const { app, config } = await buildTestApp(t, { env: { CAMPFIRE_MAX_UPLOAD_MB: '1' } })
  const cookie = await signIn(app, 'jz')
  const before = app.store.read((m) => m.users.find(users.jz.id))!.updated_at
  const bomb = await sharp({ create: { width: 10_000, height: 5_000, channels: 3, background: { r: 0, g: 0, b: 0 } } }).png({ compressionLevel: 9 }).toBuffer()
  assert.ok(bomb.length < 1024 * 1024, `the 50-megapixel PNG is small: ${bomb.length} bytes`)
  const truncated = (await png(400, 400)).subarray(0, 200)
  const cases: [string, { filename: string; type: string; bytes: Buffer }, RegExp][] = [
    ['text called PNG', { filename: 'fake.png', type: 'image/png', bytes: Buffer.from('this is just text, not a picture at all\n'.repeat(20)) }, /not a picture we can use/],
    ['an SVG', { filename: 'drawing.svg', type: 'image/svg+xml', bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>') }, /not a picture we can use/],
    ['a BMP', { filename: 'old.bmp', type: 'image/bmp', bytes: Buffer.concat([Buffer.from('BM'), Buffer.alloc(200, 1)]) }, /not a picture we can use/],
    ['a cut-off PNG', { filename: 'cut.png', type: 'image/png', bytes: truncated }, /not a picture we can use/],
    ['a 50-megapixel PNG', { filename: 'bomb.png', type: 'image/png', bytes: bomb }, /too large: at most 40 megapixels/],
    ['over the upload limit', { filename: 'big.png', type: 'image/png', bytes: Buffer.concat([await png(10, 10), Buffer.alloc(1024 * 1024 + 10)]) }, /too large: the limit is 1 MB/],
    ['an empty file', { filename: 'empty.png', type: 'image/png', bytes: Buffer.alloc(0) }, /That file is empty/],
  ]
  for (const [label, file, message] of cases) {
    const response = await uploadAvatar(app, cookie, file)
    assert.equal(response.statusCode, 422, label)
    assert.match(response.body, message, label)
    assert.match(response.body, /role="alert"/, label)
    nothingStored(app, config.filesPath, label)
  }
  assert.equal(app.store.read((m) => m.users.find(users.jz.id))!.updated_at, before)
})

test('a multipart body cut short, or without a boundary, is a 400 that leaves nothing behind', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const full = multipartBody([['_method', 'patch']], { name: 'user[avatar]', filename: 'moon.png', type: 'image/png', bytes: await png(300, 300) })
  // Many times over: a file removed while it was still being opened used to come back.
  for (let round = 0; round < 40; round++) {
    for (const cut of [30, full.indexOf('filename=') + 4, Math.floor(full.length / 2), full.length - 4]) {
      const response = await sendMultipart(app, cookie, '/users/me/profile', full.subarray(0, cut))
      assert.equal(response.statusCode, 400, `cut at ${cut}`)
      nothingStored(app, config.filesPath, `round ${round}, cut at ${cut}`)
    }
  }
  const noBoundary = await inject(app, cookie, { method: 'POST', url: '/users/me/profile', payload: full, headers: { 'content-type': 'multipart/form-data', 'sec-fetch-site': 'same-origin' } })
  assert.equal(noBoundary.statusCode, 400)
  nothingStored(app, config.filesPath, 'no boundary')
})

test('a multipart form with the file input left empty saves the other fields and no avatar', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const body = multipartBody([['_method', 'patch'], ['user[bio]', 'From a multipart form']], { name: 'user[avatar]', filename: '', type: 'application/octet-stream', bytes: Buffer.alloc(0) })
  const response = await sendMultipart(app, cookie, '/users/me/profile', body)
  assert.equal(response.statusCode, 302)
  assert.deepEqual(flashOf(response), { notice: '✓' })
  assert.equal(app.store.read((m) => m.users.find(users.jz.id))!.bio, 'From a multipart form')
  nothingStored(app, config.filesPath, 'empty file input')
})

test('an original Rails stored without its variant gets its square on the first request, recorded as Rails records it', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  railsOriginal(app, config.filesPath, users.jason.id, await sharp({ create: { width: 700, height: 700, channels: 3, background: '#336699' } }).jpeg().toBuffer(), 'moon.jpg', 'image/jpeg')
  const first = await inject(app, cookie, { url: avatarUrl(app, users.jason.id) })
  assert.equal(first.statusCode, 200)
  assert.equal(first.headers['content-type'], 'image/webp')
  const record = rows<{ variation_digest: string }>(app, 'SELECT variation_digest FROM active_storage_variant_records')
  assert.deepEqual(record, [{ variation_digest: SQUARE_DIGEST }])
  assert.deepEqual(rows(app, "SELECT filename, content_type FROM active_storage_blobs WHERE filename = 'moon.webp'"), [{ filename: 'moon.webp', content_type: 'image/webp' }])
  const second = await inject(app, cookie, { url: avatarUrl(app, users.jason.id) })
  assert.deepEqual(second.rawPayload, first.rawPayload)
  assert.equal(value<number>(app, 'SELECT count(*) FROM active_storage_variant_records'), 1)
})

test('an original that cannot be a variant (a BMP) falls back to initials, never the original, and gets no variant', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  railsOriginal(app, config.filesPath, users.jason.id, Buffer.concat([Buffer.from('BM'), Buffer.alloc(100)]), 'pixel.bmp', 'image/bmp')
  const response = await inject(app, cookie, { url: avatarUrl(app, users.jason.id) })
  assert.match(response.headers['content-type'] as string, /^image\/svg\+xml/)
  assert.match(response.body, />JF</)
  assert.equal(value<number>(app, 'SELECT count(*) FROM active_storage_variant_records'), 0)
})

test('a variant Rails made is found by its digest, not just any variant of the blob', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  railsOriginal(app, config.filesPath, users.jason.id, await png(64, 64), 'moon.png', 'image/png')
  const webp = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } }).webp().toBuffer()
  const key = 'abcd1234variantkeyabcd12345x'
  mkdirSync(join(config.filesPath, 'ab', 'cd'), { recursive: true })
  writeFileSync(join(config.filesPath, 'ab', 'cd', key), webp)
  app.store.writeNow((m) => {
    const t0 = '2026-03-01 12:00:00'
    const original = m.db.prepare("SELECT id FROM active_storage_blobs WHERE filename = 'moon.png'").pluck().get() as number
    const other = m.db.prepare("INSERT INTO active_storage_variant_records (blob_id, variation_digest) VALUES (?, 'someOtherDigest=')").run(original)
    const otherBlob = m.db.prepare("INSERT INTO active_storage_blobs (key, filename, content_type, service_name, byte_size, created_at) VALUES ('otherkey00000000000000000000', 'moon.png', 'image/png', 'local', 1, ?)").run(t0)
    m.db.prepare("INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES ('image', 'ActiveStorage::VariantRecord', ?, ?, ?)").run(other.lastInsertRowid, otherBlob.lastInsertRowid, t0)
    const square = m.db.prepare('INSERT INTO active_storage_variant_records (blob_id, variation_digest) VALUES (?, ?)').run(original, SQUARE_DIGEST)
    const squareBlob = m.db.prepare("INSERT INTO active_storage_blobs (key, filename, content_type, service_name, byte_size, created_at) VALUES (?, 'moon.webp', 'image/webp', 'local', ?, ?)").run(key, webp.length, t0)
    m.db.prepare("INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES ('image', 'ActiveStorage::VariantRecord', ?, ?, ?)").run(square.lastInsertRowid, squareBlob.lastInsertRowid, t0)
  })
  const response = await inject(app, cookie, { url: avatarUrl(app, users.jason.id) })
  assert.equal(response.headers['content-type'], 'image/webp')
  assert.deepEqual(response.rawPayload, webp)
})

test('an avatar change moves the URL’s ?v= in every cached page that shows the person', async (t) => {
  const { app } = await buildTestApp(t)
  const jz = await signIn(app, 'jz')
  const jason = await signIn(app, 'jason')
  assert.equal((await inject(app, jz, { method: 'POST', url: '/rooms/2/messages', ...form({ 'message[body]': 'Hi from JZ' }) })).statusCode, 303)
  const token = app.signing.signedId('User', users.jz.id, 'avatar')
  const versions = (body: string) => [...body.matchAll(new RegExp(`/users/${token}/avatar\\?v=(\\d+)`, 'g'))].map((m) => m[1]!)
  const pages = ['/rooms/2', '/rooms/2/messages', '/users/me/sidebar']
  const before = new Map<string, string[]>()
  for (const url of pages) {
    await inject(app, jason, { url })
    const body = (await inject(app, jason, { url })).body
    assert.ok(versions(body).length > 0, `${url} shows JZ’s avatar`)
    before.set(url, versions(body))
  }
  assert.equal((await uploadAvatar(app, jz, { bytes: await png(120, 120) })).statusCode, 302)
  for (const url of pages) {
    const after = versions((await inject(app, jason, { url })).body)
    assert.ok(after.length > 0 && after.every((v) => !before.get(url)!.includes(v!)), `${url}: ${before.get(url)} → ${after}`)
  }
})

test('a refused upload keeps the avatar the person had', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  await uploadAvatar(app, cookie, { filename: 'keep.png', bytes: await png(64, 64) })
  const files = filesUnder(config.filesPath).sort()
  const served = (await inject(app, cookie, { url: avatarUrl(app, users.jz.id) })).rawPayload
  assert.equal((await uploadAvatar(app, cookie, { filename: 'bad.png', bytes: Buffer.from('nope') })).statusCode, 422)
  assert.deepEqual(filesUnder(config.filesPath).sort(), files)
  assert.deepEqual(rows<{ filename: string }>(app, 'SELECT filename FROM active_storage_blobs ORDER BY id').map((r) => r.filename), ['keep.png', 'keep.webp'])
  assert.deepEqual((await inject(app, cookie, { url: avatarUrl(app, users.jz.id) })).rawPayload, served)
})
