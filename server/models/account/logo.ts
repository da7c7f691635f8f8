import type { Connection } from '../database.ts'
import type { NewBlob } from '../blob.ts'
import { attachedOne } from '../blob/attached-one.ts'
import { LOGO_LARGE, LOGO_SMALL } from '../blob/variations.ts'

// Account#logo: the uploaded original, attached as 'logo', with its large (512) and small (192)
// PNG variants; the stock icon stands in without one.
export function logos(db: Connection) {
  const attached = attachedOne(db, 'Account', 'logo', 'accounts')
  return {
    ...attached,
    attach: (accountId: number, upload: NewBlob, large: NewBlob, small: NewBlob): string[] =>
      attached.attach(accountId, upload, [[LOGO_LARGE.digest, large], [LOGO_SMALL.digest, small]]),
  }
}
