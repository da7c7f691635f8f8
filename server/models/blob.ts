import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'

export interface NewBlob {
  key: string
  filename: string
  contentType: string
  metadata: Record<string, unknown>
  byteSize: number
  checksum: string
}

export interface ServedBlob {
  id: number
  key: string
  filename: string
  content_type: string | null
  byte_size: number
}

// Active Storage's rows, as Rails writes them: a blob on the 'local' (disk) service and the
// attachment joining it to its record under a name.
export function blobs(db: Connection) {
  const insertBlob = db.prepare(
    "INSERT INTO active_storage_blobs (key, filename, content_type, metadata, service_name, byte_size, checksum, created_at) VALUES (?, ?, ?, ?, 'local', ?, ?, ?)",
  )
  const insertAttachment = db.prepare('INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES (?, ?, ?, ?, ?)')
  // A blob is shown to whoever belongs to the room of a message it is attached to.
  const findForViewer = db.prepare<[number, number], ServedBlob>(
    `SELECT b.id, b.key, b.filename, b.content_type, b.byte_size FROM active_storage_blobs b
     WHERE b.id = ? AND EXISTS (
       SELECT 1 FROM active_storage_attachments a JOIN messages m ON m.id = a.record_id
       JOIN memberships ms ON ms.room_id = m.room_id
       WHERE a.blob_id = b.id AND a.record_type = 'Message' AND ms.user_id = ?)`,
  )

  const detach = db.prepare<[string, number, string | null, string | null], number>(
    'DELETE FROM active_storage_attachments WHERE record_type = ? AND record_id = ? AND (? IS NULL OR name = ?) RETURNING blob_id',
  ).pluck()
  const attached = db.prepare<[number], number>('SELECT 1 FROM active_storage_attachments WHERE blob_id = ? LIMIT 1').pluck()
  // A blob's variants: each record's 'image' attachment and blob, then the records.
  const detachVariants = db.prepare<[number], number>(
    `DELETE FROM active_storage_attachments WHERE record_type = 'ActiveStorage::VariantRecord' AND name = 'image'
     AND record_id IN (SELECT id FROM active_storage_variant_records WHERE blob_id = ?) RETURNING blob_id`,
  ).pluck()
  const deleteBlob = db.prepare<[number], string>('DELETE FROM active_storage_blobs WHERE id = ? RETURNING key').pluck()
  const deleteVariantRecords = db.prepare('DELETE FROM active_storage_variant_records WHERE blob_id = ?')
  function purgeVariants(blobId: number): string[] {
    const keys = detachVariants.all(blobId).flatMap((variantBlobId) => deleteBlob.get(variantBlobId) ?? [])
    deleteVariantRecords.run(blobId)
    return keys
  }
  // A video's preview image (attached to its blob as 'preview_image'), with the image's variants.
  const detachPreviews = db.prepare<[number], number>(
    "DELETE FROM active_storage_attachments WHERE record_type = 'ActiveStorage::Blob' AND name = 'preview_image' AND record_id = ? RETURNING blob_id",
  ).pluck()
  // A blob nothing points at any more, and what hangs off it: its variants and preview image.
  function purgeBlob(blobId: number): string[] {
    const previewKeys = detachPreviews.all(blobId).flatMap((imageBlobId) => (attached.get(imageBlobId) !== undefined ? [] : purgeBlob(imageBlobId)))
    const variantKeys = purgeVariants(blobId)
    const key = deleteBlob.get(blobId)
    return [...(key === undefined ? [] : [key]), ...variantKeys, ...previewKeys]
  }

  // Original blobs nothing is attached to (a deleted room's files): variants and preview images
  // are attached to their variant record or video, so they are never listed here themselves.
  const unattached = db.prepare<[number], number>(
    'SELECT id FROM active_storage_blobs b WHERE NOT EXISTS (SELECT 1 FROM active_storage_attachments a WHERE a.blob_id = b.id) ORDER BY id LIMIT ?',
  ).pluck()
  const countUnattached = db.prepare<[], number>(
    'SELECT count(*) FROM active_storage_blobs b WHERE NOT EXISTS (SELECT 1 FROM active_storage_attachments a WHERE a.blob_id = b.id)',
  ).pluck()
  const keyExists = db.prepare<[string], number>('SELECT 1 FROM active_storage_blobs WHERE key = ?').pluck()

  return {
    // Deletes up to limit unattached blobs with their variants and previews, and returns their
    // files' keys (to delete after the commit) and whether any are left.
    purgeUnattached(limit: number): { keys: string[]; purged: number; done: boolean } {
      const ids = unattached.all(limit)
      return { keys: ids.flatMap((id) => purgeBlob(id)), purged: ids.length, done: ids.length < limit }
    },
    countUnattached: (): number => countUnattached.get() ?? 0,
    keyExists: (key: string): boolean => keyExists.get(key) !== undefined,
    // Detaches a record's files and deletes the blobs nothing else points at, with their
    // variants and preview images; the keys of all their files are returned so the caller can
    // delete the files once the transaction has committed. With a name, only that attachment
    // (an avatar) goes.
    purgeFrom(recordType: string, recordId: number, name: string | null = null): string[] {
      return detach.all(recordType, recordId, name, name).flatMap((blobId) => (attached.get(blobId) !== undefined ? [] : purgeBlob(blobId)))
    },
    create(blob: NewBlob): number {
      return Number(insertBlob.run(blob.key, blob.filename, blob.contentType, JSON.stringify(blob.metadata), blob.byteSize, blob.checksum, dbTime()).lastInsertRowid)
    },
    attach(name: string, recordType: string, recordId: number, blobId: number): void {
      insertAttachment.run(name, recordType, recordId, blobId, dbTime())
    },
    findForViewer: (blobId: number, userId: number): ServedBlob | undefined => findForViewer.get(blobId, userId),
  }
}
