import { rm } from 'node:fs/promises'
import { IMAGE_CONTENT_TYPES, ImageError, MAX_INPUT_PIXELS, probe } from '../../lib/images.ts'
import type { StoredUpload } from '../../lib/uploads.ts'
import { writeVariant } from '../../lib/variant-files.ts'
import type { NewBlob } from '../../models/blob.ts'
import { AVATAR_SQUARE } from '../../models/blob/variations.ts'
import { UploadRefused } from '../multipart-form.ts'

// An avatar ready to be attached: the original and its square, both written.
export interface PreparedAvatar {
  original: NewBlob
  square: NewBlob
  paths: string[]
}

// Checks that an uploaded avatar is an image we can read and makes its square now, so the first
// request for it is quick. Anything else is refused with a 422, and the upload is removed.
export async function prepareAvatar(filesRoot: string, upload: StoredUpload, filename: string): Promise<PreparedAvatar> {
  try {
    const image = await probe(upload.path)
    const square = await writeVariant(filesRoot, upload.path, filename, AVATAR_SQUARE, image)
    const { path: squarePath, ...squareBlob } = square
    const contentType = upload.contentType.startsWith('image/') ? upload.contentType : (IMAGE_CONTENT_TYPES[image.format] ?? upload.contentType)
    const original: NewBlob = {
      key: upload.key,
      filename,
      contentType,
      metadata: { identified: true, width: image.width, height: image.height, analyzed: true },
      byteSize: upload.byteSize,
      checksum: upload.checksum,
    }
    return { original, square: squareBlob, paths: [upload.path, squarePath] }
  } catch (error) {
    await rm(upload.path, { force: true })
    if (error instanceof ImageError) throw new UploadRefused(422, refusal(error))
    throw error
  }
}

function refusal(error: ImageError): string {
  if (/too large/.test(error.message)) return `That picture is too large: at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels, please.`
  return 'That file is not a picture we can use. Please choose a JPEG, PNG, GIF or WebP image.'
}

