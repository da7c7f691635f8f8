import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { VIDEO_POSTER } from '../../../server/models/blob/variations.ts'

const blob = (key: string, filename: string, contentType: string) => ({ key, filename, contentType, metadata: { identified: true }, byteSize: 10, checksum: 'x' })
const TABLES = ['active_storage_blobs', 'active_storage_attachments', 'active_storage_variant_records']

test('a video’s preview image is attached to its blob as Rails attaches it, with the poster recorded as the image’s variant', async (t) => {
  const { app } = await buildTestApp(t)
  const result = await app.store.write((m) => {
    const video = m.blobs.create(blob('videokey0000000', 'clip.mp4', 'video/mp4'))
    const recorded = m.blobPreviews.recordWithVariant(video, blob('previewkey00000', 'clip.jpg', 'image/jpeg'), VIDEO_POSTER.digest, blob('posterkey000000', 'clip.webp', 'image/webp'))
    const again = m.blobPreviews.recordWithVariant(video, blob('previewkey00001', 'clip.jpg', 'image/jpeg'), VIDEO_POSTER.digest, blob('posterkey000001', 'clip.webp', 'image/webp'))
    const attachment = m.db.prepare(`SELECT a.name, a.record_type, a.record_id, b.filename, b.content_type FROM active_storage_attachments a
      JOIN active_storage_blobs b ON b.id = a.blob_id WHERE a.record_type = 'ActiveStorage::Blob'`).all()
    return { video, recorded, again, attachment, image: m.blobPreviews.find(video)?.key, poster: m.blobPreviews.findVariant(video, VIDEO_POSTER.digest)?.key }
  })
  assert.deepEqual([result.recorded, result.again], [true, false])
  assert.deepEqual(result.attachment, [{ name: 'preview_image', record_type: 'ActiveStorage::Blob', record_id: result.video, filename: 'clip.jpg', content_type: 'image/jpeg' }])
  assert.deepEqual([result.image, result.poster], ['previewkey00000', 'posterkey000000'])
})

test('deleting a video message purges the video, its preview image and the poster, and names all three files', async (t) => {
  const { app } = await buildTestApp(t)
  const result = await app.store.write((m) => {
    const before = TABLES.map((table) => m.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get())
    const message = m.messages.create({ roomId: rooms.hq.id, creatorId: users.david.id, clientMessageId: 'video-message', body: '', plainText: 'clip.mp4' })
    const video = m.blobs.create(blob('videokey0000000', 'clip.mp4', 'video/mp4'))
    m.blobs.attach('attachment', 'Message', message.id, video)
    m.blobPreviews.recordWithVariant(video, blob('previewkey00000', 'clip.jpg', 'image/jpeg'), VIDEO_POSTER.digest, blob('posterkey000000', 'clip.webp', 'image/webp'))
    const keys = m.blobs.purgeFrom('Message', message.id)
    const after = TABLES.map((table) => m.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get())
    const violations = m.db.prepare('PRAGMA foreign_key_check').all()
    return { before, after, keys, violations }
  })
  assert.deepEqual(result.keys.sort(), ['posterkey000000', 'previewkey00000', 'videokey0000000'])
  assert.deepEqual(result.after, result.before)
  assert.deepEqual(result.violations, [])
})
