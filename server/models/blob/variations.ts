import { rubyHash, symbol, variationDigest, type RubyValue } from '../../lib/rails/variation.ts'

// The variants Campfire declares (User#avatar :square, Account#logo :large and :small,
// Message#attachment :thumb, and a video's poster), as the effective transformations Active
// Storage digests: `format` first, a Symbol when the variant names it, else the original's
// extension as a String.
export interface Variation {
  digest: string
  width: number
  height: number
  format: 'webp' | 'png' | 'jpeg' | 'gif'
  // The transformations as a variation key carries them (ActiveStorage::Variation#key, through
  // the JSON serializer, where a Symbol becomes a String).
  transformations: { format: string; resize_to_limit: [number, number] }
  // The variant's file extension (VariantWithRecord#filename: the variation's format, downcased).
  extension: string
  // A thumbnail of an animated GIF or WebP keeps its frames.
  animated?: boolean
}

function variation(format: RubyValue, width: number, height: number, output: Variation['format']): Variation {
  const name = typeof format === 'string' ? format : (format as { symbol: string }).symbol
  return {
    digest: variationDigest(rubyHash({ format, resize_to_limit: [width, height] })),
    width,
    height,
    format: output,
    transformations: { format: name, resize_to_limit: [width, height] },
    extension: name.toLowerCase(),
  }
}

export const AVATAR_SQUARE = variation(symbol('webp'), 512, 512, 'webp')
export const LOGO_LARGE = variation(symbol('png'), 512, 512, 'png')
export const LOGO_SMALL = variation(symbol('png'), 192, 192, 'png')

// Message::THUMBNAIL_MAX_WIDTH / _HEIGHT: thumbnails and posters fit in this box.
export const THUMBNAIL_MAX_WIDTH = 1200
export const THUMBNAIL_MAX_HEIGHT = 800

// A video's poster: its preview image as WebP, fitted into the thumbnail box
// (preview(format: :webp, resize_to_limit: [1200, 800]) in the attachment presentation).
export const VIDEO_POSTER = variation(symbol('webp'), THUMBNAIL_MAX_WIDTH, THUMBNAIL_MAX_HEIGHT, 'webp')

// Active Storage's variable types (Campfire leaves out BMP, ICO and PSD): only these get a variant.
const VARIABLE = /^image\/(png|gif|jpeg|pjpeg|tiff|webp|avif|heic|heif)$/

export function isVariable(contentType: string | null): boolean {
  return VARIABLE.test(contentType ?? '')
}

// A thumbnail keeps a web image's own format, named by its file's extension (case kept).
const WEB_IMAGE_FORMATS: Record<string, Variation['format']> = { jpg: 'jpeg', jpeg: 'jpeg', jpe: 'jpeg', png: 'png', gif: 'gif', webp: 'webp' }
// MiniMime's extension for a web image type, and the type its extensions name.
const WEB_IMAGE_EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp' }

export function thumbVariation(extension: string): Variation {
  const format = WEB_IMAGE_FORMATS[extension.toLowerCase()]
  const thumb = format ? variation(extension, THUMBNAIL_MAX_WIDTH, THUMBNAIL_MAX_HEIGHT, format) : variation(symbol('png'), THUMBNAIL_MAX_WIDTH, THUMBNAIL_MAX_HEIGHT, 'png')
  return { ...thumb, animated: true }
}

// The :thumb of an attachment, as Blob#default_variant_format picks its format: a web image keeps
// its file's extension when that names the blob's type (else the type's own extension); any
// other image becomes PNG.
export function thumbVariationFor(blob: { filename: string; content_type: string | null }): Variation {
  const type = (blob.content_type ?? '').toLowerCase()
  const typeExtension = WEB_IMAGE_EXTENSIONS[type]
  if (!typeExtension) return thumbVariation('')
  const dot = blob.filename.lastIndexOf('.')
  const extension = dot > 0 ? blob.filename.slice(dot + 1) : ''
  const named = WEB_IMAGE_FORMATS[extension.toLowerCase()]
  return thumbVariation(named && `image/${named}` === type ? extension : typeExtension)
}

// An image that is kept as a plain file (application/octet-stream) rather than decoded says why
// in its blob's metadata, under this key: its header names more pixels than we decode, or it
// could not be read. Rails keeps unknown metadata keys as they are.
export const UNPREVIEWABLE_KEY = 'campfire_unpreviewable'
export type Unpreviewable = 'too_large' | 'unreadable' | 'unplayable'

export function unpreviewable(metadata: Record<string, unknown>): Unpreviewable | null {
  const reason = metadata[UNPREVIEWABLE_KEY]
  return reason === 'too_large' || reason === 'unreadable' || reason === 'unplayable' ? reason : null
}
