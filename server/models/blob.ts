import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'
import { variants } from './blob/variants.ts'

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
  const deleteOrphan = db.prepare<[number], string>(
    'DELETE FROM active_storage_blobs WHERE id = ? AND NOT EXISTS (SELECT 1 FROM active_storage_attachments WHERE blob_id = active_storage_blobs.id) RETURNING key',
  ).pluck()
  const blobVariants = variants(db)

  return {
    // Detaches a record's files and deletes the blobs nothing else points at, with their
    // variants; the keys of all their files are returned so the caller can delete the files
    // once the transaction has committed.
    // With a name, only that attachment (a person's avatar) goes.
    purgeFrom(recordType: string, recordId: number, name: string | null = null): string[] {
      return detach.all(recordType, recordId, name, name).flatMap((blobId) => {
        const key = deleteOrphan.get(blobId)
        if (key === undefined) return []
        return [key, ...blobVariants.purge(blobId)]
      })
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
