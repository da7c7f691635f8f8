import type { Connection } from '../database.ts'
import { blobs, type NewBlob } from '../blob.ts'
import { variants, type VariantBlob } from '../blob/variants.ts'
import { AVATAR_SQUARE } from '../blob/variations.ts'
import { dbTime } from '../../lib/time.ts'

export interface OriginalBlob {
  id: number
  key: string
  filename: string
  content_type: string | null
}

// User::Avatar: the uploaded original, attached as 'avatar', and its processed square WebP, an
// Active Storage variant record found by the variation's digest. Only the variant is ever sent.
export function avatars(db: Connection) {
  const original = db.prepare<[number], OriginalBlob>(
    `SELECT b.id, b.key, b.filename, b.content_type FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id
     WHERE a.record_type = 'User' AND a.name = 'avatar' AND a.record_id = ? ORDER BY a.id DESC LIMIT 1`,
  )
  const touch = db.prepare('UPDATE users SET updated_at = ? WHERE id = ?')
  const files = blobs(db)
  const blobVariants = variants(db)

  return {
    originalFor: (userId: number): OriginalBlob | undefined => original.get(userId),
    squareOf: (blob: Pick<OriginalBlob, 'id'>): VariantBlob | undefined => blobVariants.find(blob.id, AVATAR_SQUARE.digest),

    // Replaces the person's avatar with an upload whose square is already made (both files are
    // on disk). Answers the keys of the files the old avatar leaves behind, for the caller to
    // delete once this has committed. Touching the person moves the avatar URL's ?v=.
    attach(userId: number, upload: NewBlob, square: NewBlob): string[] {
      const stale = files.purgeFrom('User', userId, 'avatar')
      const blobId = files.create(upload)
      files.attach('avatar', 'User', userId, blobId)
      blobVariants.record(blobId, AVATAR_SQUARE.digest, square)
      touch.run(dbTime(), userId)
      return stale
    },

    // Removes the avatar; the person falls back to their initials.
    detach(userId: number): string[] {
      if (original.get(userId) === undefined) return []
      const stale = files.purgeFrom('User', userId, 'avatar')
      touch.run(dbTime(), userId)
      return stale
    },
  }
}


// User#initials: the first letter of each word.
export function initials(name: string): string {
  return (name.match(/\b\w/gu) ?? []).join('')
}
