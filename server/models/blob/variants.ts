import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'
import type { NewBlob } from '../blob.ts'

export interface VariantBlob {
  id: number
  key: string
  content_type: string | null
  byte_size: number
}

// Active Storage's variant records: a row naming the original blob and the variation's digest,
// and the processed file as a blob of its own, attached to that row under 'image'.
export function variants(db: Connection) {
  const find = db.prepare<[number, string], VariantBlob>(
    `SELECT vb.id, vb.key, vb.content_type, vb.byte_size FROM active_storage_variant_records v
     JOIN active_storage_attachments va ON va.record_type = 'ActiveStorage::VariantRecord' AND va.record_id = v.id AND va.name = 'image'
     JOIN active_storage_blobs vb ON vb.id = va.blob_id
     WHERE v.blob_id = ? AND v.variation_digest = ?`,
  )
  const insertRecord = db.prepare<[number, string], { id: number }>(
    'INSERT INTO active_storage_variant_records (blob_id, variation_digest) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING id',
  )
  const insertBlob = db.prepare(
    "INSERT INTO active_storage_blobs (key, filename, content_type, metadata, service_name, byte_size, checksum, created_at) VALUES (?, ?, ?, ?, 'local', ?, ?, ?)",
  )
  const attach = db.prepare("INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES ('image', 'ActiveStorage::VariantRecord', ?, ?, ?)")

  return {
    find: (blobId: number, digest: string): VariantBlob | undefined => find.get(blobId, digest),
    // Records a processed variant whose file is already written. Answers false when another
    // writer recorded the same variant first (the caller then deletes its own file).
    record(blobId: number, digest: string, blob: NewBlob): boolean {
      const record = insertRecord.get(blobId, digest)
      if (!record) return false
      const variantBlobId = Number(insertBlob.run(blob.key, blob.filename, blob.contentType, JSON.stringify(blob.metadata), blob.byteSize, blob.checksum, dbTime()).lastInsertRowid)
      attach.run(record.id, variantBlobId, dbTime())
      return true
    },
  }
}
