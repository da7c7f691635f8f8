import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helper.ts'
import { users } from '../../fixtures.ts'
import { AVATAR_SQUARE } from '../../../server/models/blob/variations.ts'
import { variants } from '../../../server/models/blob/variants.ts'

const blob = (key: string, filename: string) => ({ key, filename, contentType: 'image/png', metadata: { identified: true }, byteSize: 10, checksum: 'x' })

test('a variant is recorded as Rails records it, once, and purging its original takes the variant’s rows and names its file', async (t) => {
  const { app } = await buildTestApp(t)
  const result = await app.store.write((m) => {
    const original = m.blobs.create(blob('originalkey0000', 'moon.png'))
    m.blobs.attach('avatar', 'User', users.jason.id, original)
    const recorded = variants(m.db)
    const first = recorded.record(original, AVATAR_SQUARE.digest, { ...blob('variantkey00000', 'moon.webp'), contentType: 'image/webp' })
    const again = recorded.record(original, AVATAR_SQUARE.digest, { ...blob('variantkey00001', 'moon.webp'), contentType: 'image/webp' })
    const found = recorded.find(original, AVATAR_SQUARE.digest)
    const shape = m.db.prepare(`SELECT v.variation_digest, a.name, a.record_type, b.filename, b.content_type FROM active_storage_variant_records v
      JOIN active_storage_attachments a ON a.record_id = v.id JOIN active_storage_blobs b ON b.id = a.blob_id WHERE v.blob_id = ?`).all(original)
    const keys = m.blobs.purgeFrom('User', users.jason.id, 'avatar')
    const left = ['active_storage_blobs', 'active_storage_attachments', 'active_storage_variant_records'].map((table) => m.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get())
    return { first, again, found, shape, keys, left }
  })
  assert.deepEqual([result.first, result.again], [true, false])
  assert.equal(result.found?.key, 'variantkey00000')
  assert.deepEqual(result.shape, [{ variation_digest: '6gwfjNKv9eUy9jNUtEZvQFLU0hQ=', name: 'image', record_type: 'ActiveStorage::VariantRecord', filename: 'moon.webp', content_type: 'image/webp' }])
  assert.deepEqual(result.keys, ['originalkey0000', 'variantkey00000'])
  assert.deepEqual(result.left, [0, 0, 0])
})
