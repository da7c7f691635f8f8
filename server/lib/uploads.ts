import { createHash, randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, open, rename, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { blobPath } from './files.ts'

export interface StoredUpload {
  key: string
  path: string
  byteSize: number
  checksum: string
  contentType: string
  metadata: Record<string, unknown>
}

// Active Storage's blob keys: SecureRandom.base36(28).
export function generateBlobKey(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
  const bytes = randomBytes(28)
  return Array.from(bytes, (b) => alphabet[b % 36]).join('')
}

// Types we store on the client's word; everything else (and images whose bytes don't match) is
// kept as application/octet-stream. Images are recognised from their first bytes (PNG, JPEG, GIF,
// WebP and TIFF, and AVIF and HEIF/HEIC by their ISO brand).
const CLIENT_TYPES = /^(text\/plain|text\/csv|application\/pdf|application\/zip|application\/gzip|audio\/(mpeg|mp4|ogg|wav|webm|aac)|video\/(mp4|webm|quicktime))$/

export function sniffImage(head: Buffer): string | null {
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png'
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg'
  if (head.length >= 6 && /^GIF8[79]a$/.test(head.subarray(0, 6).toString('latin1'))) return 'image/gif'
  if (head.length >= 12 && head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp'
  if (head.length >= 4 && ['II*\0', 'MM\0*'].includes(head.subarray(0, 4).toString('latin1'))) return 'image/tiff'
  // An ISO media file (as MP4 is) whose major brand names a still image format.
  if (head.length >= 12 && head.subarray(4, 8).toString('latin1') === 'ftyp') return ISO_IMAGE_BRANDS[head.subarray(8, 12).toString('latin1')] ?? null
  return null
}

const ISO_IMAGE_BRANDS: Record<string, string> = {
  avif: 'image/avif', avis: 'image/avif',
  heic: 'image/heic', heix: 'image/heic', heim: 'image/heic', heis: 'image/heic',
  mif1: 'image/heif', msf1: 'image/heif',
}

export function chooseContentType(head: Buffer, claimed: string | undefined): string {
  const sniffed = sniffImage(head)
  if (sniffed) return sniffed
  const type = (claimed ?? '').split(';')[0]!.trim().toLowerCase()
  return CLIENT_TYPES.test(type) ? type : 'application/octet-stream'
}

export class UploadTooLarge extends Error {}
export class EmptyUpload extends Error {}

// Streams an upload to <filesRoot>/<k0k1>/<k2k3>/<key> (as Rails' disk service lays it out),
// hashing as it goes; nothing is held in memory but the first bytes. The file is removed
// again on any failure, so the caller only has to remove it if its own write fails.
// `space`, when given, counts each chunk against the disk's reserve before it is written (and
// throws to refuse the rest: plugins/disk-space.ts).
export async function storeUpload(filesRoot: string, source: Readable & { truncated?: boolean }, claimedType: string | undefined, maxBytes: number, space?: { wrote(bytes: number): void }): Promise<StoredUpload> {
  const key = generateBlobKey()
  const path = blobPath(filesRoot, key)!
  const temp = join(filesRoot, 'tmp', `${key}.upload`)
  await mkdir(dirname(temp), { recursive: true })
  const md5 = createHash('md5')
  let size = 0
  let head = Buffer.alloc(0)
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      if (size > maxBytes) return done(new UploadTooLarge('That file is too large.'))
      try {
        space?.wrote(chunk.length)
      } catch (error) {
        return done(error as Error)
      }
      md5.update(chunk)
      if (head.length < 64) head = Buffer.concat([head, chunk.subarray(0, 64 - head.length)])
      done(null, chunk)
    },
  })
  const output = createWriteStream(temp, { flags: 'wx' })
  try {
    await pipeline(source, meter, output)
    if (source.truncated) throw new UploadTooLarge('That file is too large.')
    if (size === 0) throw new EmptyUpload('That file is empty.')
    const contentType = chooseContentType(head, claimedType)
    const metadata: Record<string, unknown> = { identified: true }
    if (contentType.startsWith('image/')) {
      const size = await imageDimensions(temp, contentType)
      if (size) Object.assign(metadata, size)
    }
    metadata.analyzed = true
    await mkdir(dirname(path), { recursive: true })
    await rename(temp, path)
    return { key, path, byteSize: size, checksum: md5.digest('base64'), contentType, metadata }
  } catch (error) {
    // A failed pipeline can answer before the file has finished opening; removed earlier, the
    // file would be created again just after.
    output.destroy()
    if (!output.closed) await new Promise<void>((resolve) => output.once('close', () => resolve()))
    await rm(temp, { force: true })
    throw error
  }
}

// Width and height from the file's header (PNG, GIF, WebP) or its first SOF segment (JPEG).
export async function imageDimensions(path: string, contentType: string): Promise<{ width: number; height: number } | null> {
  const file = await open(path, 'r')
  try {
    const read = async (position: number, length: number): Promise<Buffer> => {
      const buffer = Buffer.alloc(length)
      const { bytesRead } = await file.read(buffer, 0, length, position)
      return buffer.subarray(0, bytesRead)
    }
    const head = await read(0, 64)
    const ok = (w: number, h: number) => (w > 0 && h > 0 ? { width: w, height: h } : null)
    switch (contentType) {
      case 'image/png':
        return head.length >= 24 && head.subarray(12, 16).toString('latin1') === 'IHDR' ? ok(head.readUInt32BE(16), head.readUInt32BE(20)) : null
      case 'image/gif':
        return head.length >= 10 ? ok(head.readUInt16LE(6), head.readUInt16LE(8)) : null
      case 'image/webp': {
        const chunk = head.subarray(12, 16).toString('latin1')
        if (chunk === 'VP8 ' && head.length >= 30) return ok(head.readUInt16LE(26) & 0x3fff, head.readUInt16LE(28) & 0x3fff)
        if (chunk === 'VP8L' && head.length >= 25) {
          const bits = head.readUInt32LE(21)
          return ok((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1)
        }
        if (chunk === 'VP8X' && head.length >= 30) return ok(head.readUIntLE(24, 3) + 1, head.readUIntLE(27, 3) + 1)
        return null
      }
      case 'image/jpeg': {
        let offset = 2
        for (let i = 0; i < 1000; i++) {
          const marker = await read(offset, 4)
          if (marker.length < 4 || marker[0] !== 0xff) return null
          const type = marker[1]!
          if (type === 0xff) { offset += 1; continue }
          if (type === 0xd8 || (type >= 0xd0 && type <= 0xd7) || type === 0x01) { offset += 2; continue }
          const length = marker.readUInt16BE(2)
          const isSof = type >= 0xc0 && type <= 0xcf && type !== 0xc4 && type !== 0xc8 && type !== 0xcc
          if (isSof) {
            const sof = await read(offset + 5, 4)
            return sof.length < 4 ? null : ok(sof.readUInt16BE(2), sof.readUInt16BE(0))
          }
          if (type === 0xd9 || type === 0xda) return null
          offset += 2 + length
        }
        return null
      }
      default:
        return null
    }
  } finally {
    await file.close()
  }
}
