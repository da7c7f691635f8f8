import type { Connection } from '../database.ts'
import { blobs, type NewBlob } from '../blob.ts'
import { variants } from '../blob/variants.ts'
import { LOGO_LARGE, LOGO_SMALL } from '../blob/variations.ts'
import type { OriginalBlob } from '../user/avatar.ts'
import { dbTime } from '../../lib/time.ts'

// Account#logo: the uploaded original, attached as 'logo', with its large (512) and small (192)
// PNG variants. Attaching or removing it touches the account, so the logo's ?v= moves.
export function logos(db: Connection) {
  const original = db.prepare<[number], OriginalBlob>(
    `SELECT b.id, b.key, b.filename, b.content_type FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id
     WHERE a.record_type = 'Account' AND a.name = 'logo' AND a.record_id = ? ORDER BY a.id DESC LIMIT 1`,
  )
  const touch = db.prepare('UPDATE accounts SET updated_at = ? WHERE id = ?')
  const files = blobs(db)
  const blobVariants = variants(db)

  return {
    originalFor: (accountId: number): OriginalBlob | undefined => original.get(accountId),

    // Replaces the logo with an upload whose variants are already on disk; answers the keys of
    // the files the old logo leaves behind, to delete once this has committed.
    attach(accountId: number, upload: NewBlob, large: NewBlob, small: NewBlob): string[] {
      const stale = files.purgeFrom('Account', accountId, 'logo')
      const blobId = files.create(upload)
      files.attach('logo', 'Account', accountId, blobId)
      blobVariants.record(blobId, LOGO_LARGE.digest, large)
      blobVariants.record(blobId, LOGO_SMALL.digest, small)
      touch.run(dbTime(), accountId)
      return stale
    },

    // Removes the logo (a no-op without one); the stock icon takes its place.
    detach(accountId: number): string[] {
      if (original.get(accountId) === undefined) return []
      const stale = files.purgeFrom('Account', accountId, 'logo')
      touch.run(dbTime(), accountId)
      return stale
    },
  }
}
