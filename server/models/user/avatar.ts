import type { Connection } from '../database.ts'
import type { NewBlob } from '../blob.ts'
import { attachedOne, type OriginalBlob } from '../blob/attached-one.ts'
import { variants, type VariantBlob } from '../blob/variants.ts'
import { AVATAR_SQUARE } from '../blob/variations.ts'

// User::Avatar: the uploaded original, attached as 'avatar', and its processed square WebP, an
// Active Storage variant record found by the variation's digest. Only the variant is ever sent;
// without one the person shows their initials.
export function avatars(db: Connection) {
  const blobVariants = variants(db)
  const attached = attachedOne(db, 'User', 'avatar', 'users')
  return {
    ...attached,
    squareOf: (blob: Pick<OriginalBlob, 'id'>): VariantBlob | undefined => blobVariants.find(blob.id, AVATAR_SQUARE.digest),
    attach: (userId: number, upload: NewBlob, square: NewBlob): string[] => attached.attach(userId, upload, [[AVATAR_SQUARE.digest, square]]),
  }
}

// User#initials: the first letter of each word.
export function initials(name: string): string {
  return (name.match(/\b\w/gu) ?? []).join('')
}
