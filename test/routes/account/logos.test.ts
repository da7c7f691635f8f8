import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, inject, signIn } from '../../helper.ts'
import { LOGO_LARGE, LOGO_SMALL } from '../../../server/models/blob/variations.ts'
import { blobPath } from '../../../server/lib/files.ts'
import { accountRow, dimensions, get, multipart, picture, query, send } from './support.ts'

function upload(app: FastifyInstance, cookie: string, data: Buffer, options: { filename?: string; type?: string; fields?: [string, string][]; url?: string } = {}) {
  const fields = (options.fields ?? [['_method', 'patch']]).map(([name, value]) => ({ name, value }))
  const body = multipart([...fields, { name: 'account[logo]', filename: options.filename ?? 'logo.png', type: options.type ?? 'image/png', data }])
  return inject(app, cookie, { method: 'POST', url: options.url ?? '/account', ...body })
}

const blobCount = (app: FastifyInstance) => query<number>(app, 'SELECT count(*) FROM active_storage_blobs')

// Every file under the storage's blob folders.
function storedFiles(filesPath: string): string[] {
  if (!existsSync(filesPath)) return []
  return readdirSync(filesPath, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}

test('without a logo, /account/logo answers our own 512 and 192 pixel icons, to anyone, with upstream’s caching headers', async (t) => {
  const { app } = await buildTestApp(t)
  const large = await app.inject({ url: '/account/logo?v=20260301120000' })
  assert.equal(large.statusCode, 200)
  assert.equal(large.headers['content-type'], 'image/png')
  assert.equal(large.headers['cache-control'], 'max-age=300, public, stale-while-revalidate=604800')
  assert.equal(large.headers['content-disposition'], `inline; filename="app-icon.png"; filename*=UTF-8''app-icon.png`)
  assert.equal(large.headers['content-transfer-encoding'], 'binary')
  assert.deepEqual(await dimensions(large.rawPayload), { width: 512, height: 512, format: 'png' })
  const small = await app.inject({ url: '/account/logo?size=small&v=20260301120000' })
  assert.equal(small.headers['content-disposition'], `inline; filename="app-icon-192.png"; filename*=UTF-8''app-icon-192.png`)
  assert.deepEqual(await dimensions(small.rawPayload), { width: 192, height: 192, format: 'png' })
  assert.deepEqual(await dimensions((await app.inject({ url: '/account/logo?size=huge' })).rawPayload), { width: 512, height: 512, format: 'png' })
})

test('the logo answers 304 to a request that already has it, and a new ETag once the account changes', async (t) => {
  const { app } = await buildTestApp(t)
  const etag = (await app.inject({ url: '/account/logo' })).headers.etag as string
  assert.match(etag, /^W\/"account-1-\d+"$/)
  const again = await app.inject({ url: '/account/logo', headers: { 'if-none-match': etag } })
  assert.equal(again.statusCode, 304)
  assert.equal(again.rawPayload.length, 0)
  assert.equal((await app.inject({ url: '/account/logo', headers: { 'if-none-match': `W/"other", ${etag}` } })).statusCode, 304)
  await send(app, await signIn(app, 'david'), 'PATCH', '/account', [['account[name]', 'Renamed']])
  const after = await app.inject({ url: '/account/logo', headers: { 'if-none-match': etag } })
  assert.equal(after.statusCode, 200)
  assert.notEqual(after.headers.etag, etag)
})

test('before the first run there is no account, and the stock icon is served', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const response = await app.inject({ url: '/account/logo?size=small' })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers.etag, undefined)
  assert.deepEqual(await dimensions(response.rawPayload), { width: 192, height: 192, format: 'png' })
})

test('an administrator uploads a logo: its large and small PNGs are stored as Rails stores variants and served', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const before = accountRow(app).updated_at
  const response = await upload(app, cookie, await picture(1000, 800, 'jpeg'), { filename: 'moon.jpg', type: 'image/jpeg' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/account/edit')
  assert.notEqual(accountRow(app).updated_at, before, 'the account is touched')
  const original = app.store.read((m) => m.db.prepare(
    `SELECT b.id, b.filename, b.content_type, b.metadata FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id
     WHERE a.record_type = 'Account' AND a.record_id = 1 AND a.name = 'logo'`,
  ).get()) as { id: number; filename: string; content_type: string; metadata: string }
  assert.equal(original.filename, 'moon.jpg')
  assert.equal(original.content_type, 'image/jpeg')
  assert.deepEqual(JSON.parse(original.metadata), { identified: true, width: 1000, height: 800, analyzed: true })
  const variants = app.store.read((m) => m.db.prepare(
    `SELECT v.variation_digest, vb.filename, vb.content_type, vb.key FROM active_storage_variant_records v
     JOIN active_storage_attachments va ON va.record_type = 'ActiveStorage::VariantRecord' AND va.record_id = v.id AND va.name = 'image'
     JOIN active_storage_blobs vb ON vb.id = va.blob_id WHERE v.blob_id = ? ORDER BY v.id`,
  ).all(original.id)) as { variation_digest: string; filename: string; content_type: string; key: string }[]
  assert.deepEqual(variants.map((v) => [v.variation_digest, v.filename, v.content_type]), [
    [LOGO_LARGE.digest, 'moon.png', 'image/png'],
    [LOGO_SMALL.digest, 'moon.png', 'image/png'],
  ])
  for (const variant of variants) assert.ok(existsSync(blobPath(config.filesPath, variant.key)!))

  const large = await app.inject({ url: '/account/logo' })
  assert.equal(large.headers['content-type'], 'image/png')
  assert.equal(large.headers['content-disposition'], `inline; filename="${variants[0]!.key}"; filename*=UTF-8''${variants[0]!.key}`)
  assert.deepEqual(await dimensions(large.rawPayload), { width: 512, height: 410, format: 'png' })
  assert.deepEqual(await dimensions((await app.inject({ url: '/account/logo?size=small' })).rawPayload), { width: 192, height: 154, format: 'png' })

  const page = (await get(app, cookie, '/account/edit')).body
  assert.match(page, /<body class="admin account-has-logo"/)
  assert.match(page, /Delete logo/)
  const manifest = (await app.inject({ url: '/webmanifest.json' })).json() as { icons: { src: string; sizes: string }[] }
  assert.deepEqual(manifest.icons.map((icon) => icon.sizes), ['192x192', '512x512', '512x512'])
  assert.match(manifest.icons[0]!.src, /^\/account\/logo\?size=small&v=\d{20}$/)
  assert.match((await get(app, cookie, '/rooms/1')).body, /<figure class="account-logo account-logo--nav margin-none"><img src="\/account\/logo\?size=small&amp;v=\d{20}"/)
})

test('a logo stored without its variants (as a database Rails wrote may hold it) gets them on its first request', async (t) => {
  const { app } = await buildTestApp(t)
  await upload(app, await signIn(app, 'david'), await picture(300, 300))
  app.store.writeNow((m) => {
    m.db.prepare("DELETE FROM active_storage_attachments WHERE record_type = 'ActiveStorage::VariantRecord'").run()
    m.db.prepare('DELETE FROM active_storage_variant_records').run()
  })
  const small = await app.inject({ url: '/account/logo?size=small' })
  assert.deepEqual(await dimensions(small.rawPayload), { width: 192, height: 192, format: 'png' })
  assert.equal(query<number>(app, 'SELECT count(*) FROM active_storage_variant_records WHERE variation_digest = ?', LOGO_SMALL.digest), 1)
  assert.deepEqual(await dimensions((await app.inject({ url: '/account/logo' })).rawPayload), { width: 300, height: 300, format: 'png' }, 'never enlarged')
})

for (const [label, data, filename, type] of [
  ['a text file named like a picture', Buffer.from('not a picture at all'), 'logo.png', 'image/png'],
  ['an SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), 'logo.svg', 'image/svg+xml'],
  ['a truncated PNG', Buffer.from('\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR', 'latin1'), 'logo.png', 'image/png'],
  ['an empty file', Buffer.alloc(0), 'logo.png', 'image/png'],
] as [string, Buffer, string, string][]) {
  test(`uploading ${label} as the logo answers 422 with the page and leaves no blob or file behind`, async (t) => {
    const { app, config } = await buildTestApp(t)
    const before = accountRow(app)
    const response = await upload(app, await signIn(app, 'david'), data, { filename, type })
    assert.equal(response.statusCode, 422)
    assert.match(response.body, /role="alert">That (file is not a picture we can use|file is empty)/)
    assert.equal(blobCount(app), 0)
    assert.deepEqual(storedFiles(config.filesPath), [])
    assert.deepEqual(accountRow(app), before)
  })
}

test('a logo over the upload limit answers 422 and stores nothing', async (t) => {
  const { app, config } = await buildTestApp(t, { env: { CAMPFIRE_MAX_UPLOAD_MB: '0.002' } })
  assert.equal(config.maxUploadBytes, 2097)
  const response = await upload(app, await signIn(app, 'david'), await picture(800, 800, 'jpeg'))
  assert.equal(response.statusCode, 422)
  assert.equal(blobCount(app), 0)
  assert.deepEqual(storedFiles(config.filesPath), [])
})

test('members may not upload or delete the logo, and nothing is written for them', async (t) => {
  const { app, config } = await buildTestApp(t)
  const member = await signIn(app, 'kevin')
  assert.equal((await upload(app, member, await picture(64, 64))).statusCode, 403)
  assert.equal(blobCount(app), 0)
  assert.deepEqual(storedFiles(config.filesPath), [])
  await upload(app, await signIn(app, 'david'), await picture(64, 64))
  assert.equal((await send(app, member, 'DELETE', '/account/logo')).statusCode, 403)
  assert.equal((await send(app, member, 'POST', '/account/logo', [['_method', 'delete']])).statusCode, 403)
  assert.equal(query<number>(app, "SELECT count(*) FROM active_storage_attachments WHERE record_type = 'Account'"), 1)
})

test('a new logo replaces the old one, whose blobs, variants and files are purged', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  await upload(app, cookie, await picture(64, 64))
  const first = storedFiles(config.filesPath)
  assert.equal(first.length, 3, 'the original and its two sizes')
  await upload(app, cookie, await picture(80, 40), { filename: 'wide.png' })
  const second = storedFiles(config.filesPath)
  assert.equal(second.length, 3)
  assert.ok(first.every((file) => !second.includes(file)), 'the old files are gone')
  assert.equal(blobCount(app), 3)
  assert.equal(query<number>(app, 'SELECT count(*) FROM active_storage_variant_records'), 2)
})

test('the logo form may also rename the account, and a multipart form must say PATCH or PUT', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await upload(app, cookie, await picture(64, 64), { fields: [['_method', 'put'], ['account[name]', 'With a logo']] })
  assert.equal(response.statusCode, 302)
  assert.equal(accountRow(app).name, 'With a logo')
  const refused = await upload(app, cookie, await picture(64, 64), { fields: [['_method', 'delete']] })
  assert.equal(refused.statusCode, 405)
  assert.equal(storedFiles(config.filesPath).length, 3, 'the refused upload left nothing behind')
})

test('deleting the logo removes it, its variants and its files, and brings back the stock icon', async (t) => {
  const { app, config } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  await upload(app, cookie, await picture(64, 64))
  const etag = (await app.inject({ url: '/account/logo' })).headers.etag
  const response = await send(app, cookie, 'POST', '/account/logo', [['_method', 'delete']])
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/account/edit')
  assert.equal(blobCount(app), 0)
  assert.equal(query<number>(app, 'SELECT count(*) FROM active_storage_variant_records'), 0)
  assert.deepEqual(storedFiles(config.filesPath), [])
  const logo = await app.inject({ url: '/account/logo' })
  assert.notEqual(logo.headers.etag, etag)
  assert.equal(logo.headers['content-disposition'], `inline; filename="app-icon.png"; filename*=UTF-8''app-icon.png`)
  assert.ok(!(await get(app, cookie, '/account/edit')).body.includes('account-has-logo'))
  assert.equal((await send(app, cookie, 'DELETE', '/account/logo')).statusCode, 302, 'deleting no logo is a no-op')
})
