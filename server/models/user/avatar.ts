import type { Connection } from '../database.ts'
import { join } from 'node:path'

export interface StoredImage {
  key: string
  contentType: string
}

// The square variant Active Storage processed for a person's avatar (a WebP), else the
// uploaded original when it is an image we can send as it is.
export function avatars(db: Connection) {
  const variant = db.prepare<[number], { key: string; content_type: string | null }>(
    `SELECT vb.key, vb.content_type FROM active_storage_attachments a
     JOIN active_storage_variant_records v ON v.blob_id = a.blob_id
     JOIN active_storage_attachments va ON va.record_type = 'ActiveStorage::VariantRecord' AND va.record_id = v.id AND va.name = 'image'
     JOIN active_storage_blobs vb ON vb.id = va.blob_id
     WHERE a.record_type = 'User' AND a.name = 'avatar' AND a.record_id = ? ORDER BY v.id DESC LIMIT 1`,
  )
  const original = db.prepare<[number], { key: string; content_type: string | null }>(
    `SELECT b.key, b.content_type FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id
     WHERE a.record_type = 'User' AND a.name = 'avatar' AND a.record_id = ? ORDER BY a.id DESC LIMIT 1`,
  )

  return {
    imageFor(userId: number): StoredImage | null {
      const found = variant.get(userId) ?? original.get(userId)
      if (!found || !/^image\/(webp|png|jpeg|gif)$/.test(found.content_type ?? '')) return null
      return { key: found.key, contentType: found.content_type! }
    },
  }
}

// Active Storage's disk service keeps a blob at <root>/<k[0..1]>/<k[2..3]>/<key>.
export function blobPath(filesRoot: string, key: string): string | null {
  if (!/^[A-Za-z0-9]{4,}$/.test(key)) return null
  return join(filesRoot, key.slice(0, 2), key.slice(2, 4), key)
}

// User#initials: the first letter of each word.
export function initials(name: string): string {
  return (name.match(/\b\w/gu) ?? []).join('')
}
