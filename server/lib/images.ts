import sharp from 'sharp'

// Image processing for avatars, logos and thumbnails, with sharp (libvips on libuv's pool, so
// the event loop never waits on it). Only the formats Campfire lets libvips load are decoded:
// JPEG, PNG, GIF, WebP, TIFF, AVIF and HEIF; no BMP, ICO, PSD or SVG.

export class ImageError extends Error {}

const DECODABLE = new Set(['jpeg', 'png', 'gif', 'webp', 'tiff', 'heif', 'avif'])
// A decompression bomb is refused before it is decoded: 40 megapixels covers any camera.
export const MAX_INPUT_PIXELS = 40_000_000
const INPUT = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 } as const

export interface ImageInfo {
  format: string
  width: number
  height: number
}

// What the bytes are, from their header; throws ImageError for anything we will not decode.
export async function probe(input: Buffer | string): Promise<ImageInfo> {
  let metadata: sharp.Metadata
  try {
    metadata = await sharp(input, INPUT).metadata()
  } catch (error) {
    if (/pixel limit/i.test((error as Error).message)) throw new ImageError('That image is too large.')
    throw new ImageError('That file is not an image we can read.')
  }
  const format = metadata.format ?? ''
  if (!DECODABLE.has(format) || !metadata.width || !metadata.height) throw new ImageError('That file is not an image we can read.')
  if (metadata.width * metadata.height > MAX_INPUT_PIXELS) throw new ImageError('That image is too large.')
  const turned = (metadata.orientation ?? 1) >= 5
  return { format, width: turned ? metadata.height : metadata.width, height: turned ? metadata.width : metadata.height }
}

export type OutputFormat = 'webp' | 'png' | 'jpeg' | 'gif'

// Active Storage's resize_to_limit: fit within width × height, never enlarged, turned upright
// by its EXIF orientation, with no metadata kept. The result's own size is answered with it.
export async function resizeToLimit(input: Buffer | string, width: number, height: number, format: OutputFormat): Promise<{ bytes: Buffer; width: number; height: number }> {
  await probe(input)
  try {
    const { data, info } = await sharp(input, INPUT)
      .rotate()
      .resize(width, height, { fit: 'inside', withoutEnlargement: true })
      .toFormat(format)
      .toBuffer({ resolveWithObject: true })
    return { bytes: data, width: info.width, height: info.height }
  } catch {
    throw new ImageError('That image could not be processed.')
  }
}
