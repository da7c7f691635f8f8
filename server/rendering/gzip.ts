import zlib from 'node:zlib'
import { COMPRESSION, enter } from '../lib/cpu-ledger.ts'

// A compressed part of a page: raw deflate ending in a sync flush (byte-aligned, not final), so
// parts compressed separately can follow one another inside one gzip member. A cached part is
// compressed once; per-request parts (a page's viewer-specific shell) are small. Only the
// compressed bytes are kept (a 40-message part is about 350 KB of HTML and 25 KB deflated);
// the rare client that takes no gzip gets them inflated (identityOf).
export interface Part {
  deflated: Buffer
  crc: number
  length: number
}

const LEVEL = 6
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03])
const FINAL_EMPTY_BLOCK = Buffer.from([0x03, 0x00])
const OPTIONS: zlib.ZlibOptions = { level: LEVEL, finishFlush: zlib.constants.Z_SYNC_FLUSH }

export function deflatePart(identity: Buffer, level = LEVEL): Part {
  const was = enter(COMPRESSION)
  const part = { deflated: ownBytes(zlib.deflateRawSync(identity, { ...OPTIONS, level })), crc: zlib.crc32(identity), length: identity.length }
  enter(was)
  return part
}

// A Buffer that holds only its own bytes. zlib hands back a view into its 16 KiB output chunk
// when the output fits in one, and Buffer.concat a view into an 8 KiB pool slab for a short
// result: kept in a cache, a 300-byte part would hold the whole chunk alive (a shell of three
// parts held about 50 KB while the cache counted 3 KB of it).
export function ownBytes(buffer: Buffer): Buffer {
  if (buffer.byteOffset === 0 && buffer.length === buffer.buffer.byteLength) return buffer
  const own = Buffer.allocUnsafeSlow(buffer.length)
  buffer.copy(own)
  return own
}

// Off the main thread (libuv's pool), for parts that are cached.
export function deflatePartAsync(identity: Buffer, level = LEVEL): Promise<Part> {
  return new Promise((resolve, reject) => {
    zlib.deflateRaw(identity, { ...OPTIONS, level }, (error, deflated) => (error ? reject(error) : resolve({ deflated: ownBytes(deflated), crc: zlib.crc32(identity), length: identity.length })))
  })
}

// A page made of many pieces (message fragments), compressed off the main thread: a 40-message
// page is ~350 KB of HTML, milliseconds of work at level 6 that would stall the event loop. The
// pieces are written one after another into a buffer of their own (joining them into one string
// first would make V8 build a megabyte-sized string), which the compression then reads. The
// buffer is the page's exact size: it waits in libuv's queue until a thread is free, and sized
// for the worst case (three bytes a character) a search page's held 2.5 MB, not 0.85.
export function deflatePiecesAsync(pieces: readonly string[], level = LEVEL): Promise<Part> {
  let size = 0
  for (const piece of pieces) size += Buffer.byteLength(piece, 'utf8')
  const target = Buffer.allocUnsafeSlow(size)
  let length = 0
  for (const piece of pieces) length += target.write(piece, length, 'utf8')
  return deflatePartAsync(target, level)
}

// The part's own bytes again.
export function identityOf(part: Part): Buffer {
  if (part.length === 0) return Buffer.alloc(0)
  const was = enter(COMPRESSION)
  const identity = zlib.inflateRawSync(part.deflated, { finishFlush: zlib.constants.Z_SYNC_FLUSH })
  enter(was)
  return identity
}

// One gzip member made of the parts in order: header, each part's deflate blocks, a final empty
// block, then the CRC-32 and length of the whole (the CRCs are combined, not recomputed).
export function gzipOf(parts: Part[]): Buffer {
  return gzipMember(parts, crcOfParts(parts))
}

// The CRC-32 of the parts' bytes one after another.
export function crcOfParts(parts: readonly Part[]): number {
  let crc = 0
  for (const part of parts) crc = crc32Combine(crc, part.crc, part.length)
  return crc
}

// The same, given the CRC of the whole (a caller that joins the same parts again keeps it).
export function gzipMember(parts: readonly Part[], crc: number): Buffer {
  let length = 0
  for (const part of parts) length += part.length
  const trailer = Buffer.alloc(8)
  trailer.writeUInt32LE(crc >>> 0, 0)
  trailer.writeUInt32LE(length % 0x100000000, 4)
  return Buffer.concat([HEADER, ...parts.map((part) => part.deflated), FINAL_EMPTY_BLOCK, trailer])
}

// The part inside a gzip member made by gzipOf([part]), sharing its memory.
export function partOfGzip(gzip: Buffer, crc: number, length: number): Part {
  return { deflated: gzip.subarray(HEADER.length, gzip.length - FINAL_EMPTY_BLOCK.length - 8), crc, length }
}

export function acceptsGzip(acceptEncoding: string | string[] | undefined): boolean {
  const header = String(acceptEncoding ?? '').toLowerCase()
  if (!header.includes('gzip') && !header.includes('*')) return false
  return !/\bgzip\s*;\s*q\s*=\s*0(\.0*)?\s*(,|$)/.test(header)
}

// zlib's crc32_combine: the CRC of A followed by B from crc(A), crc(B) and len(B). An empty B
// leaves A's CRC as it is (its own CRC is 0). As zlib 1.2.12 and later do it: crc(A) is
// multiplied, modulo the CRC polynomial, by x^(8·len(B)), which is made from a table of
// x^(2^n), one product per bit of the length (a few microseconds, not a matrix per call).
const POLYNOMIAL = 0xedb88320

// a·b modulo the polynomial, in the CRC's reflected bit order.
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000
  let product = 0
  for (;;) {
    if ((a & m) !== 0) {
      product ^= b
      if ((a & (m - 1)) === 0) break
    }
    m >>>= 1
    b = b & 1 ? (b >>> 1) ^ POLYNOMIAL : b >>> 1
  }
  return product >>> 0
}

// X_TO_2_TO_THE[n] = x^(2^n) modulo the polynomial.
const X_TO_2_TO_THE: number[] = []
for (let n = 0, power = 0x40000000; n < 32; n++) {
  X_TO_2_TO_THE.push(power)
  power = multiplyModP(power, power)
}

// x^(n·2^k) modulo the polynomial.
function xToTheModP(n: number, k: number): number {
  let power = 0x80000000
  while (n > 0) {
    if (n % 2 === 1) power = multiplyModP(X_TO_2_TO_THE[k & 31]!, power)
    n = Math.floor(n / 2)
    k++
  }
  return power
}

export function crc32Combine(crc1: number, crc2: number, length2: number): number {
  if (length2 <= 0) return crc1 >>> 0
  return (multiplyModP(xToTheModP(length2, 3), crc1 >>> 0) ^ crc2) >>> 0
}
