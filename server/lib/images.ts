import { availableParallelism } from 'node:os'
import type Sharp from 'sharp'
import { lowerImageThreads } from './background-priority.ts'
import { lazyPackage } from './lazy-package.ts'

// Image processing for avatars, logos and thumbnails, with sharp (libvips on libuv's pool, so
// the event loop never waits on it). Only the formats Campfire lets libvips load are decoded:
// JPEG, PNG, GIF, WebP, TIFF, AVIF and HEIF; no BMP, ICO, PSD or SVG.

export class ImageError extends Error {}

// libvips' loaders are all blocked, then those of these formats let through again (upstream's
// Vips.block_untrusted, and its variable types without BMP, ICO and PSD): an SVG, PDF or anything
// ImageMagick would read is refused before a byte of it is parsed, whatever calls sharp.
// sharp itself is loaded with the first image (after the server listens: startImageThreads),
// and blocked before it is handed out: take it only from here.
const LOADERS = ['Jpeg', 'Png', 'Nsgif', 'Webp', 'Tiff', 'Heif'].flatMap((format) => ['File', 'Buffer', 'Source'].map((from) => `VipsForeignLoad${format}${from}`))
export const sharpPackage = lazyPackage<typeof Sharp>('sharp', (loaded) => {
  loaded.block({ operation: ['VipsForeignLoad'] })
  loaded.unblock({ operation: LOADERS })
})

const DECODABLE = new Set(['jpeg', 'png', 'gif', 'webp', 'tiff', 'heif', 'avif'])
// A decompression bomb is refused before it is decoded: 40 megapixels covers any camera.
export const MAX_INPUT_PIXELS = 40_000_000
const INPUT = { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 } as const

export interface ImageInfo {
  format: string
  width: number
  height: number
  // Frames of an animated GIF or WebP (1 for a still image).
  pages: number
}

// What the bytes are, from their header; throws ImageError for anything we will not decode.
export async function probe(input: Buffer | string): Promise<ImageInfo> {
  let metadata: Sharp.Metadata
  try {
    metadata = await sharpPackage()(input, INPUT).metadata()
    lowerImageThreads()
  } catch (error) {
    if (/pixel limit/i.test((error as Error).message)) throw new ImageError('That image is too large.')
    throw new ImageError('That file is not an image we can read.')
  }
  const format = metadata.format ?? ''
  if (!DECODABLE.has(format) || !metadata.width || !metadata.height) throw new ImageError('That file is not an image we can read.')
  if (metadata.width * metadata.height > MAX_INPUT_PIXELS) throw new ImageError('That image is too large.')
  const turned = (metadata.orientation ?? 1) >= 5
  return { format, width: turned ? metadata.height : metadata.width, height: turned ? metadata.width : metadata.height, pages: metadata.pages ?? 1 }
}

export type OutputFormat = 'webp' | 'png' | 'jpeg' | 'gif'

// The content type of each format probe answers.
export const IMAGE_CONTENT_TYPES: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', tiff: 'image/tiff', heif: 'image/heif', avif: 'image/avif' }

// Decoding a large photo takes a core for a good part of a second: at most this many run at once
// (one core is left to the event loop), the rest wait their turn, and libvips' threads run at
// the lowest priority (lib/background-priority.ts), so requests go first on a busy core.
const IMAGE_JOBS = Math.max(1, availableParallelism() - 1)
let running = 0
const waiting: (() => void)[] = []

async function inImageSlot<T>(job: () => Promise<T>): Promise<T> {
  if (running >= IMAGE_JOBS) await new Promise<void>((resolve) => waiting.push(resolve))
  running++
  try {
    return await job()
  } finally {
    lowerImageThreads()
    running--
    waiting.shift()?.()
  }
}

// Active Storage's resize_to_limit: fit within width × height, never enlarged, turned upright
// by its EXIF orientation, with no metadata kept. The result's own size is answered with it.
// With `animated`, an animated GIF or WebP made into a GIF or WebP keeps its frames (when all of
// them together are within the pixel limit; else its first frame is taken).
export async function resizeToLimit(
  input: Buffer | string,
  width: number,
  height: number,
  format: OutputFormat,
  options: { animated?: boolean; probed?: ImageInfo } = {},
): Promise<{ bytes: Buffer; width: number; height: number }> {
  // A caller that has probed the image already (to record its size) passes what it read.
  const image = options.probed ?? (await probe(input))
  const animate = options.animated === true && image.pages > 1 && (format === 'gif' || format === 'webp') && image.width * image.height * image.pages <= MAX_INPUT_PIXELS
  return inImageSlot(async () => {
    try {
      const { data, info } = await sharpPackage()(input, { ...INPUT, pages: animate ? -1 : 1 })
        .rotate()
        .resize(width, height, { fit: 'inside', withoutEnlargement: true })
        .toFormat(format)
        .toBuffer({ resolveWithObject: true })
      const frames = animate ? image.pages : 1
      return { bytes: data, width: info.width, height: Math.round(info.height / frames) }
    } catch {
      throw new ImageError('That image could not be processed.')
    }
  })
}

// libvips starts its threads with the first image it works on; one tiny image at boot starts
// them, so they are lowered before the first real one.
export async function startImageThreads(): Promise<void> {
  await sharpPackage()({ create: { width: 64, height: 64, channels: 3, background: '#000' } }).resize(32, 32).png().toBuffer()
  lowerImageThreads()
}
