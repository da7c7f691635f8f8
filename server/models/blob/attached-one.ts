import type { Connection } from '../database.ts'
import { blobs, type NewBlob } from '../blob.ts'
import { variants } from './variants.ts'
import { dbTime } from '../../lib/time.ts'

export interface OriginalBlob {
  id: number
  key: string
  filename: string
  content_type: string | null
}

// has_one_attached with processed variants (User#avatar, Account#logo): the uploaded original,
// attached under its name, and its variants as Active Storage variant records. Attaching or
// removing it touches the record, as Rails does, so URLs carrying its updated_at move.
export function attachedOne(db: Connection, recordType: 'User' | 'Account', name: string, table: 'users' | 'accounts') {
  const original = db.prepare<[string, string, number], OriginalBlob>(
    `SELECT b.id, b.key, b.filename, b.content_type FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id
     WHERE a.record_type = ? AND a.name = ? AND a.record_id = ? ORDER BY a.id DESC LIMIT 1`,
  )
  const touch = db.prepare(`UPDATE ${table} SET updated_at = ? WHERE id = ?`)
  const files = blobs(db)
  const blobVariants = variants(db)

  return {
    originalFor: (recordId: number): OriginalBlob | undefined => original.get(recordType, name, recordId),

    // Replaces the attachment with an upload whose variants (digest → blob) are already on
    // disk. Answers the keys of the files the old one leaves behind, for the caller to delete
    // once this has committed.
    attach(recordId: number, upload: NewBlob, processed: ReadonlyArray<readonly [string, NewBlob]>): string[] {
      const stale = files.purgeFrom(recordType, recordId, name)
      const blobId = files.create(upload)
      files.attach(name, recordType, recordId, blobId)
      for (const [digest, variant] of processed) blobVariants.record(blobId, digest, variant)
      touch.run(dbTime(), recordId)
      return stale
    },

    // Removes the attachment (a no-op without one).
    detach(recordId: number): string[] {
      if (original.get(recordType, name, recordId) === undefined) return []
      const stale = files.purgeFrom(recordType, recordId, name)
      touch.run(dbTime(), recordId)
      return stale
    },
  }
}
