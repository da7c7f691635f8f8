import { deflateSync } from 'node:zlib'
import sharp from 'sharp'

// Test images, made with sharp (real encoders), and a few hostile files made by hand.

// A photo-like JPEG: noise, so its thumbnail is not trivially small, at the size asked.
export function jpeg(width: number, height: number, options: { orientation?: number; quality?: number } = {}): Promise<Buffer> {
  let image = sharp({ create: { width, height, channels: 3, background: '#7a8b9c', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).jpeg({ quality: options.quality ?? 70 })
  if (options.orientation) image = image.withMetadata({ orientation: options.orientation })
  return image.toBuffer()
}

export function solid(width: number, height: number, format: 'png' | 'gif' | 'webp' | 'jpeg', background = '#cc3311'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } }).toFormat(format).toBuffer()
}

// An animated GIF of `frames` frames, alternating colours.
export async function animatedGif(width: number, height: number, frames: number): Promise<Buffer> {
  const pages = await Promise.all(Array.from({ length: frames }, (_, i) => solid(width, height, 'png', i % 2 ? '#ff0000' : '#00ff00')))
  return sharp(pages, { join: { animated: true } }).gif({ loop: 0 }).toBuffer()
}

function crc32(buf: Buffer): number {
  let c = 0xffffffff
  for (const byte of buf) {
    c ^= byte
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  }
  return (c ^ 0xffffffff) >>> 0
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const sum = Buffer.alloc(4)
  sum.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, sum])
}

// A real, valid greyscale PNG of the given size, made synchronously (all black).
export function grayPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 0 // greyscale
  const rows = Buffer.alloc((width + 1) * height) // each row: filter byte 0, then its pixels
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))])
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

// A decompression bomb: a well-formed PNG whose header claims width × height (100000 × 100000
// is ten gigapixels), with a little compressed data. Decoding it would take 30 GB.
export function pngBomb(width = 100_000, height = 100_000): Buffer {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 2 // truecolour
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.alloc(64 * 1024))),
    pngChunk('IEND', Buffer.alloc(0)),
  ])
}

// A BMP (which Campfire never decodes), 2 × 2, 24-bit.
export function bmp(): Buffer {
  const pixels = Buffer.alloc(16, 0x80)
  const header = Buffer.alloc(54)
  header.write('BM', 0, 'latin1')
  header.writeUInt32LE(54 + pixels.length, 2)
  header.writeUInt32LE(54, 10)
  header.writeUInt32LE(40, 14)
  header.writeInt32LE(2, 18)
  header.writeInt32LE(2, 22)
  header.writeUInt16LE(1, 26)
  header.writeUInt16LE(24, 28)
  header.writeUInt32LE(pixels.length, 34)
  return Buffer.concat([header, pixels])
}
