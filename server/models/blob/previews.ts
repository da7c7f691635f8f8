import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'
import type { NewBlob } from '../blob.ts'
import { variants, type VariantBlob } from './variants.ts'

export const PREVIEW_IMAGE = 'preview_image'

// Active Storage's previews: a video blob's first relevant frame is a JPEG blob of its own,
// attached to the video's blob (record type ActiveStorage::Blob) as 'preview_image'. What pages
// show is a variant of that image, recorded against the image's blob as any variant is.
export function previews(db: Connection) {
  const find = db.prepare<[number], VariantBlob>(
    `SELECT pb.id, pb.key, pb.content_type, pb.byte_size FROM active_storage_attachments pa
     JOIN active_storage_blobs pb ON pb.id = pa.blob_id
     WHERE pa.record_type = 'ActiveStorage::Blob' AND pa.name = '${PREVIEW_IMAGE}' AND pa.record_id = ? ORDER BY pa.id LIMIT 1`,
  )
  const findVariant = db.prepare<[string, number], VariantBlob>(
    `SELECT vb.id, vb.key, vb.content_type, vb.byte_size FROM active_storage_attachments pa
     JOIN active_storage_variant_records v ON v.blob_id = pa.blob_id AND v.variation_digest = ?
     JOIN active_storage_attachments va ON va.record_type = 'ActiveStorage::VariantRecord' AND va.record_id = v.id AND va.name = 'image'
     JOIN active_storage_blobs vb ON vb.id = va.blob_id
     WHERE pa.record_type = 'ActiveStorage::Blob' AND pa.name = '${PREVIEW_IMAGE}' AND pa.record_id = ? ORDER BY pa.id LIMIT 1`,
  )
  const insertBlob = db.prepare(
    "INSERT INTO active_storage_blobs (key, filename, content_type, metadata, service_name, byte_size, checksum, created_at) VALUES (?, ?, ?, ?, 'local', ?, ?, ?)",
  )
  const attach = db.prepare(`INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES ('${PREVIEW_IMAGE}', 'ActiveStorage::Blob', ?, ?, ?)`)
  const imageVariants = variants(db)

  // Records a preview image whose file is already written, answering its blob's id; null when
  // the video has one already (the caller then deletes its own file).
  function record(videoBlobId: number, blob: NewBlob): number | null {
    if (find.get(videoBlobId)) return null
    const imageBlobId = Number(insertBlob.run(blob.key, blob.filename, blob.contentType, JSON.stringify(blob.metadata), blob.byteSize, blob.checksum, dbTime()).lastInsertRowid)
    attach.run(videoBlobId, imageBlobId, dbTime())
    return imageBlobId
  }

  return {
    // The video's preview image, if it has one.
    find: (videoBlobId: number): VariantBlob | undefined => find.get(videoBlobId),
    // The preview image's variant for a variation digest (the poster pages show).
    findVariant: (videoBlobId: number, digest: string): VariantBlob | undefined => findVariant.get(digest, videoBlobId),
    record,
    // A video's preview image and the variant of it that pages show, recorded together; false
    // when the video has a preview image already (nothing is recorded; the files are the
    // caller's to delete).
    recordWithVariant(videoBlobId: number, image: NewBlob, digest: string, variant: NewBlob): boolean {
      const imageBlobId = record(videoBlobId, image)
      if (imageBlobId === null) return false
      return imageVariants.record(imageBlobId, digest, variant)
    },
  }
}
