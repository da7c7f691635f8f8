import type { Connection } from '../database.ts'
import type { OriginalBlob } from '../blob/attached-one.ts'

// Message#attachment (has_one_attached): the blob attached to a message under 'attachment'.
export function messageAttachments(db: Connection) {
  const find = db.prepare<[number], OriginalBlob>(
    `SELECT b.id, b.key, b.filename, b.content_type FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id
     WHERE a.record_type = 'Message' AND a.name = 'attachment' AND a.record_id = ? ORDER BY a.id DESC LIMIT 1`,
  )
  return {
    find: (messageId: number): OriginalBlob | undefined => find.get(messageId),
  }
}
