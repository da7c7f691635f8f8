import zlib from 'node:zlib'

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
  return { deflated: zlib.deflateRawSync(identity, { ...OPTIONS, level }), crc: zlib.crc32(identity), length: identity.length }
}

// Off the main thread (libuv's pool), for parts that are cached.
export function deflatePartAsync(identity: Buffer): Promise<Part> {
  return new Promise((resolve, reject) => {
    zlib.deflateRaw(identity, OPTIONS, (error, deflated) => (error ? reject(error) : resolve({ deflated, crc: zlib.crc32(identity), length: identity.length })))
  })
}

// A page made of many pieces (message fragments) written one after another into one buffer
// that is kept and reused, then compressed. Joining them into one string first would make V8
// allocate (and the kernel fault in) a new megabyte-sized string for every page, which on this
// kind of machine costs more than compressing it.
const SCRATCH_KEPT = 8 * 1024 * 1024
let scratch = Buffer.allocUnsafeSlow(1024 * 1024)

export function deflatePieces(pieces: readonly string[], level = LEVEL): Part {
  let most = 0
  for (const piece of pieces) most += piece.length * 3
  let target = scratch
  if (most > target.length) {
    target = Buffer.allocUnsafeSlow(most)
    if (most <= SCRATCH_KEPT) scratch = target
  }
  let length = 0
  for (const piece of pieces) length += target.write(piece, length, 'utf8')
  const bytes = target.subarray(0, length)
  return { deflated: zlib.deflateRawSync(bytes, { ...OPTIONS, level }), crc: zlib.crc32(bytes), length }
}

// The part's own bytes again.
export function identityOf(part: Part): Buffer {
  return part.length === 0 ? Buffer.alloc(0) : zlib.inflateRawSync(part.deflated, { finishFlush: zlib.constants.Z_SYNC_FLUSH })
}

// One gzip member made of the parts in order: header, each part's deflate blocks, a final empty
// block, then the CRC-32 and length of the whole (the CRCs are combined, not recomputed).
export function gzipOf(parts: Part[]): Buffer {
  let crc = 0
  let length = 0
  for (const part of parts) {
    crc = crc32Combine(crc, part.crc, part.length)
    length += part.length
  }
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
// leaves A's CRC as it is (its own CRC is 0).
export function crc32Combine(crc1: number, crc2: number, length2: number): number {
  if (length2 <= 0) return crc1 >>> 0
  const even = new Array<number>(32)
  const odd = new Array<number>(32)
  odd[0] = 0xedb88320
  let row = 1
  for (let n = 1; n < 32; n++) {
    odd[n] = row
    row = (row << 1) >>> 0
  }
  square(even, odd)
  square(odd, even)
  let crc = crc1 >>> 0
  let len = length2
  do {
    square(even, odd)
    if (len % 2 === 1) crc = times(even, crc)
    len = Math.floor(len / 2)
    if (len === 0) break
    square(odd, even)
    if (len % 2 === 1) crc = times(odd, crc)
    len = Math.floor(len / 2)
  } while (len !== 0)
  return (crc ^ crc2) >>> 0
}

function times(matrix: number[], vector: number): number {
  let sum = 0
  let i = 0
  let v = vector >>> 0
  while (v !== 0) {
    if (v & 1) sum ^= matrix[i]!
    v >>>= 1
    i++
  }
  return sum >>> 0
}

function square(target: number[], matrix: number[]): void {
  for (let n = 0; n < 32; n++) target[n] = times(matrix, matrix[n]!)
}
