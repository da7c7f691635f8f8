import { IMAGE_CONTENT_TYPES, ImageError, MAX_INPUT_PIXELS, probe } from '../../lib/images.ts'
import type { StoredUpload } from '../../lib/uploads.ts'
import { writeVariant } from '../../lib/variant-files.ts'
import type { NewBlob } from '../../models/blob.ts'
import { LOGO_LARGE, LOGO_SMALL } from '../../models/blob/variations.ts'
import { UploadRefused } from '../multipart-form.ts'
import { removeFiles } from '../../lib/files.ts'

// A logo ready to be attached: the original and its two PNGs, all three written.
export interface PreparedLogo {
  original: NewBlob
  large: NewBlob
  small: NewBlob
  paths: string[]
}

// Checks that an uploaded logo is an image we can read and makes both sizes now. Anything else
// is refused with a 422, and every file written for it is removed again.
export async function prepareLogo(filesRoot: string, upload: StoredUpload, filename: string): Promise<PreparedLogo> {
  const paths = [upload.path]
  try {
    const image = await probe(upload.path)
    const { path: largePath, ...large } = await writeVariant(filesRoot, upload.path, filename, LOGO_LARGE, image)
    paths.push(largePath)
    const { path: smallPath, ...small } = await writeVariant(filesRoot, upload.path, filename, LOGO_SMALL, image)
    paths.push(smallPath)
    const original: NewBlob = {
      key: upload.key,
      filename,
      contentType: upload.contentType.startsWith('image/') ? upload.contentType : (IMAGE_CONTENT_TYPES[image.format] ?? upload.contentType),
      metadata: { identified: true, width: image.width, height: image.height, analyzed: true },
      byteSize: upload.byteSize,
      checksum: upload.checksum,
    }
    return { original, large, small, paths }
  } catch (error) {
    await removeFiles(paths)
    if (error instanceof ImageError) throw new UploadRefused(422, refusal(error))
    throw error
  }
}

function refusal(error: ImageError): string {
  if (/too large/.test(error.message)) return `That logo is too large: at most ${MAX_INPUT_PIXELS / 1_000_000} megapixels, please.`
  return 'That file is not a picture we can use. Please choose a JPEG, PNG, GIF or WebP image.'
}
