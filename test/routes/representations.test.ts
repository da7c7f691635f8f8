import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { buildTestApp, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { all, exec, get, one } from './messages/support.ts'
import { jpeg, solid } from '../support/images.ts'
import { blobPath as diskPath } from '../../server/lib/files.ts'
import { postMessage } from '../../server/models/message/posting.ts'
import { AVATAR_SQUARE, thumbVariation, VIDEO_POSTER } from '../../server/models/blob/variations.ts'

const designers = rooms.designers.id // david, jason, jz; not kevin

// The digest Rails gives the :thumb of a .jpg (test/fixtures/rails-variants/vectors.json).
const RAILS_THUMB_JPG = 'IBhrLAIapu+NCId+2Kz6EqUWRKY='

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}

let keys = 0
// A key as Active Storage makes them (28 lowercase base-36 characters), unique in the test.
const railsKey = (tag: string) => `${tag}${String(++keys).padStart(4, '0')}`.padEnd(28, 'k').slice(0, 28)

// A blob as Rails writes one: the row, and the file where the Disk service keeps it.
function railsBlob(app: FastifyInstance, filesPath: string, blob: { filename: string; contentType: string; bytes: Buffer; metadata: Record<string, unknown> }): number {
  const key = railsKey(blob.filename.replace(/[^a-z]/g, '').slice(0, 10))
  const path = diskPath(filesPath, key)!
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, blob.bytes)
  return app.store.writeNow((m) =>
    Number(
      m.db
        .prepare("INSERT INTO active_storage_blobs (key, filename, content_type, metadata, service_name, byte_size, checksum, created_at) VALUES (?, ?, ?, ?, 'local', ?, ?, '2025-06-01 12:00:00.000000')")
        .run(key, blob.filename, blob.contentType, JSON.stringify(blob.metadata), blob.bytes.length, createHash('md5').update(blob.bytes).digest('base64')).lastInsertRowid,
    ),
  )
}

function railsAttach(app: FastifyInstance, name: string, recordType: string, recordId: number, blobId: number): void {
  app.store.writeNow((m) =>
    m.db.prepare("INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES (?, ?, ?, ?, '2025-06-01 12:00:00.000000')").run(name, recordType, recordId, blobId),
  )
}

// A variant as Rails records it: the record, the variant's blob, and its 'image' attachment.
function railsVariant(app: FastifyInstance, filesPath: string, originalId: number, digest: string, variant: { filename: string; contentType: string; bytes: Buffer }): number {
  const recordId = app.store.writeNow((m) => Number(m.db.prepare('INSERT INTO active_storage_variant_records (blob_id, variation_digest) VALUES (?, ?)').run(originalId, digest).lastInsertRowid))
  const blobId = railsBlob(app, filesPath, { ...variant, metadata: { identified: true, analyzed: true } })
  railsAttach(app, 'image', 'ActiveStorage::VariantRecord', recordId, blobId)
  return blobId
}

// A message in the Designers room with the blob attached, as a Rails database has it.
async function railsAttachmentMessage(app: FastifyInstance, blobId: number, filename: string): Promise<number> {
  const message = await app.store.write((m) => postMessage(m, { roomId: designers, creatorId: users.david.id, clientMessageId: `rails-${blobId}`, body: '', plainText: filename }))
  railsAttach(app, 'attachment', 'Message', message.id, blobId)
  return message.id
}

const decoded = (html: string) => html.replace(/&amp;/g, '&')
function src(html: string, attribute: 'src' | 'poster' = 'src'): string {
  const match = new RegExp(`${attribute}="(/rails/active_storage/representations/redirect/[^"]+)"`).exec(html)
  return decoded(match?.[1] ?? assert.fail(`a representation URL as ${attribute}`))
}
const messageHtml = async (app: FastifyInstance, cookie: string, messageId: number) => (await get(app, cookie, `/rooms/${designers}/messages/${messageId}`)).body

test('a database Rails made keeps its thumbnails: the page points at the recorded variant, whose bytes are served as they are', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const original = await jpeg(4000, 3000)
  const originalId = railsBlob(app, config.filesPath, { filename: 'Beach.jpg', contentType: 'image/jpeg', bytes: original, metadata: { identified: true, width: 4000, height: 3000, analyzed: true } })
  // A marker, not what sharp would make of the original: 7 × 5, solid blue.
  const marker = await solid(7, 5, 'jpeg', '#0000ff')
  railsVariant(app, config.filesPath, originalId, RAILS_THUMB_JPG, { filename: 'Beach.jpg', contentType: 'image/jpeg', bytes: marker })
  const messageId = await railsAttachmentMessage(app, originalId, 'Beach.jpg')
  const filesBefore = filesUnder(config.filesPath).length

  const html = await messageHtml(app, david, messageId)
  assert.match(html, /<img src="\/rails\/active_storage\/representations\/redirect\/[^"]+\/Beach\.jpg" width="1067" height="800" class="message__attachment"/)
  const served = await get(app, david, src(html))
  assert.equal(served.statusCode, 200)
  assert.equal(served.headers['content-type'], 'image/jpeg')
  assert.deepEqual(served.rawPayload, marker, 'the recorded variant’s own bytes')
  assert.equal(all(app, 'SELECT id FROM active_storage_variant_records').length, 1, 'nothing made again')
  assert.equal(filesUnder(config.filesPath).length, filesBefore)

  // Rails' older path for the same controller serves it too.
  const legacy = src(html).replace('/representations/redirect/', '/representations/')
  assert.deepEqual((await get(app, david, legacy)).rawPayload, marker)
})

test('an image Rails stored without its thumbnail gets one on the first request, recorded under Rails’ digest', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const originalId = railsBlob(app, config.filesPath, { filename: 'dunes.jpg', contentType: 'image/jpeg', bytes: await jpeg(2400, 1600), metadata: { identified: true, width: 2400, height: 1600, analyzed: true } })
  const messageId = await railsAttachmentMessage(app, originalId, 'dunes.jpg')
  const url = src(await messageHtml(app, david, messageId))
  const [first, second] = await Promise.all([get(app, david, url), get(app, david, url)])
  for (const response of [first!, second!]) {
    const size = await sharp(response.rawPayload).metadata()
    assert.deepEqual([response.statusCode, size.format, size.width, size.height], [200, 'jpeg', 1200, 800])
  }
  assert.deepEqual(all(app, 'SELECT blob_id, variation_digest FROM active_storage_variant_records'), [{ blob_id: originalId, variation_digest: RAILS_THUMB_JPG }], 'made once, for both requests')
  assert.deepEqual((await get(app, david, url)).rawPayload, first!.rawPayload)
})

test('an image that cannot be processed falls back to its original, and leaves nothing behind', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const broken = Buffer.concat([(await solid(40, 40, 'png')).subarray(0, 50), Buffer.alloc(100, 7)])
  const originalId = railsBlob(app, config.filesPath, { filename: 'broken.png', contentType: 'image/png', bytes: broken, metadata: { identified: true, width: 40, height: 40, analyzed: true } })
  const messageId = await railsAttachmentMessage(app, originalId, 'broken.png')
  const url = src(await messageHtml(app, david, messageId))
  for (let i = 0; i < 2; i++) {
    const served = await get(app, david, url)
    assert.equal(served.statusCode, 200)
    assert.equal(served.headers['content-type'], 'image/png')
    assert.deepEqual(served.rawPayload, broken)
  }
  assert.equal(all(app, 'SELECT id FROM active_storage_variant_records').length, 0)
  assert.equal(all(app, 'SELECT id FROM active_storage_blobs').length, 1)
  assert.equal(filesUnder(config.filesPath).length, 1)
})

test('a video’s poster is its preview image as WebP within 1200×800; a video without one has no poster', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const videoId = railsBlob(app, config.filesPath, { filename: 'launch.mp4', contentType: 'video/mp4', bytes: Buffer.from('not really a video'), metadata: { identified: true, width: 1920, height: 1080, analyzed: true } })
  const frame = await jpeg(1920, 1080)
  const previewId = railsBlob(app, config.filesPath, { filename: 'launch.jpg', contentType: 'image/jpeg', bytes: frame, metadata: { identified: true, width: 1920, height: 1080, analyzed: true } })
  railsAttach(app, 'preview_image', 'ActiveStorage::Blob', videoId, previewId)
  const withPoster = await railsAttachmentMessage(app, videoId, 'launch.mp4')
  const bareId = railsBlob(app, config.filesPath, { filename: 'bare.mp4', contentType: 'video/mp4', bytes: Buffer.from('also not a video'), metadata: { identified: true, analyzed: true } })
  const bare = await railsAttachmentMessage(app, bareId, 'bare.mp4')

  const html = await messageHtml(app, david, withPoster)
  assert.match(html, /<video src="\/rails\/active_storage\/blobs\/redirect\/[^"]+\/launch\.mp4" poster="\/rails\/active_storage\/representations\/redirect\/[^"]+\/launch\.mp4" controls preload="none"/)
  assert.match(html, /style="width: 420px; aspect-ratio: 1\.777778;"/)
  const poster = await get(app, david, src(html, 'poster'))
  assert.equal(poster.statusCode, 200)
  assert.equal(poster.headers['content-type'], 'image/webp')
  assert.equal(poster.headers['content-disposition'], `inline; filename="launch.webp"; filename*=UTF-8''launch.webp`)
  const size = await sharp(poster.rawPayload).metadata()
  assert.deepEqual([size.format, size.width, size.height], ['webp', 1200, 675])
  assert.deepEqual(all(app, 'SELECT blob_id, variation_digest FROM active_storage_variant_records'), [{ blob_id: previewId, variation_digest: VIDEO_POSTER.digest }])

  const bareHtml = await messageHtml(app, david, bare)
  assert.match(bareHtml, /<video src="[^"]+\/bare\.mp4" controls preload="none"/)
  assert.doesNotMatch(bareHtml, /poster=/)
  // The same poster key on a video without a preview image, or on an image, names nothing.
  const posterKey = src(html, 'poster').split('/').at(-2)!
  const bareSigned = /<video src="\/rails\/active_storage\/blobs\/redirect\/([^/"]+)\//.exec(bareHtml)![1]!
  assert.equal((await get(app, david, `/rails/active_storage/representations/redirect/${bareSigned}/${posterKey}/bare.mp4`)).statusCode, 404)
  const previewSigned = app.signing.signedId('ActiveStorage::Blob', previewId, 'blob_id')
  assert.equal((await get(app, david, `/rails/active_storage/representations/redirect/${previewSigned}/${posterKey}/launch.jpg`)).statusCode, 404, 'the preview image is attached to no message')
})

test('a representation is served only to members of the room, and only for the variations declared, by signed keys', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const kevin = await signIn(app, 'kevin')
  const originalId = railsBlob(app, config.filesPath, { filename: 'plan.jpg', contentType: 'image/jpeg', bytes: await jpeg(300, 200), metadata: { identified: true, width: 300, height: 200, analyzed: true } })
  const messageId = await railsAttachmentMessage(app, originalId, 'plan.jpg')
  const url = src(await messageHtml(app, david, messageId))
  const [, , , , , signedBlob, variationKey] = url.split('/')
  assert.equal((await get(app, david, url)).statusCode, 200)

  // Kevin is not in Designers; a signed-out visitor is sent to sign in; neither gets the image.
  const foreign = await get(app, kevin, url)
  assert.equal(foreign.statusCode, 404)
  assert.notEqual(foreign.headers['content-type'], 'image/jpeg')
  const signedOut = await app.inject({ method: 'GET', url })
  assert.deepEqual([signedOut.statusCode, signedOut.headers.location], [302, '/session/new'])

  const at = (blob: string, key: string) => get(app, david, `/rails/active_storage/representations/redirect/${blob}/${key}/plan.jpg`)
  const sign = (transformations: Record<string, unknown>) => encodeURIComponent(app.signing.variationKey(transformations))
  const forged = decodeURIComponent(variationKey!).replace(/.$/, (c) => (c === '0' ? '1' : '0'))
  for (const [why, key] of [
    ['a forged signature', encodeURIComponent(forged)],
    ['not a key at all', 'thumb'],
    ['the avatar’s variation', sign(AVATAR_SQUARE.transformations)],
    ['a PNG thumbnail of a .jpg', sign(thumbVariation('png').transformations)],
    ['a thumbnail with more in it', sign({ ...thumbVariation('jpg').transformations, rotate: 90 })],
    ['a larger thumbnail', sign({ format: 'jpg', resize_to_limit: [4000, 3000] })],
    ['the poster’s variation, on an image', sign(VIDEO_POSTER.transformations)],
    ['a signed id in place of the key', app.signing.signedId('ActiveStorage::Blob', originalId, 'blob_id')],
  ] as const) {
    assert.equal((await at(signedBlob!, key)).statusCode, 404, why)
  }
  for (const [why, blob] of [
    ['a bare id', String(originalId)],
    ['a signed id for avatars', app.signing.signedId('User', originalId, 'avatar')],
    ['a blob that does not exist', app.signing.signedId('ActiveStorage::Blob', 9999, 'blob_id')],
  ] as const) {
    assert.equal((await at(blob, variationKey!)).statusCode, 404, why)
  }
  // A file that is not an image has no thumbnail.
  const textId = railsBlob(app, config.filesPath, { filename: 'notes.txt', contentType: 'text/plain', bytes: Buffer.from('notes'), metadata: { identified: true, analyzed: true } })
  await railsAttachmentMessage(app, textId, 'notes.txt')
  assert.equal((await at(app.signing.signedId('ActiveStorage::Blob', textId, 'blob_id'), sign(thumbVariation('txt').transformations))).statusCode, 404)
  assert.equal(all(app, 'SELECT id FROM active_storage_variant_records').length, 1, 'only the thumbnail David asked for')
  await exec(app, 'DELETE FROM memberships WHERE user_id = ? AND room_id = ?', users.david.id, designers)
  assert.equal((await get(app, david, url)).statusCode, 404, 'gone with the membership')
})
