import { randomBytes } from 'node:crypto'
import zlib from 'node:zlib'
import { crcOfParts, deflatePart, gzipMember, type Part } from './gzip.ts'
import type { CachedShell } from './page-cache.ts'

// A viewer's shell, cached around a shared part (a room's messages, search results): the
// text before and after the part, each compressed once, joined with the part's compressed
// bytes into one gzip member for each request. A few short values that change far more often
// than the rest of the shell (a room's last activity moves with every post) are left as slots
// and written into each response, so the cached shell outlives them.

// A slot's marker carries a nonce made at boot, so no text a page shows can pass for one.
const NONCE = randomBytes(9).toString('hex')

export function slotMarker(name: string): string {
  return `<!--campfire:slot:${NONCE}:${name}-->`
}

// The shell cut at its slots (in the order the names are given) and compressed.
export function shellOf(before: string, after: string, slots: readonly string[]): CachedShell {
  const segments: Part[] = []
  let from = 0
  for (const name of slots) {
    const marker = slotMarker(name)
    const at = before.indexOf(marker, from)
    if (at < 0 || before.indexOf(marker, at + 1) >= 0) throw new Error(`the slot ${name} must appear exactly once before the cached part`)
    segments.push(deflatePart(Buffer.from(before.slice(from, at), 'utf8')))
    from = at + marker.length
  }
  segments.push(deflatePart(Buffer.from(before.slice(from), 'utf8')))
  return { segments, tail: deflatePart(Buffer.from(after, 'utf8')), joined: undefined }
}

// What a shell was rendered from: the template, its data (slots as their markers), the
// person's row and the account, as one JSON text, compared whole (cheaper than a digest of it;
// the cache counts its length). Everything else a layout shows is fixed for the life of the
// process (assets, version, VAPID key), and a flash is never cached.
export function shellSignature(template: string, data: Record<string, unknown>, user: unknown, account: unknown): string {
  return JSON.stringify([template, data, user, account])
}

// A slot's value as deflate stored blocks: every part ends byte-aligned (a sync flush), so the
// value's bytes can follow as they are, behind a 5-byte header per 64 KiB, with no compressor.
const STORED_MAX = 0xffff

function storedPart(value: string): Part {
  const bytes = Buffer.from(value, 'utf8')
  const blocks = Math.max(1, Math.ceil(bytes.length / STORED_MAX))
  const stored = Buffer.allocUnsafe(5 * blocks + bytes.length)
  let at = 0
  for (let from = 0, i = 0; i < blocks; i++, from += STORED_MAX) {
    const chunk = bytes.subarray(from, from + STORED_MAX)
    stored[at] = 0x00
    stored.writeUInt16LE(chunk.length, at + 1)
    stored.writeUInt16LE(~chunk.length & 0xffff, at + 3)
    chunk.copy(stored, at + 5)
    at += 5 + chunk.length
  }
  return { deflated: stored, crc: zlib.crc32(bytes), length: bytes.length }
}

// The whole page: the shell's segments with the slots' values between them, the part, the
// tail. The CRC of the whole is combined from its pieces once per shell, part and values, and
// kept with the shell for the requests that follow.
export function splicedGzip(shell: CachedShell, part: Part, values: readonly string[]): Buffer {
  const parts: Part[] = []
  shell.segments.forEach((segment, i) => {
    parts.push(segment)
    if (i < values.length) parts.push(storedPart(values[i]!))
  })
  parts.push(part, shell.tail)
  const filled = values.join('\0')
  let joined = shell.joined
  // The CRC of the whole depends on each piece's CRC and length only, so the part is known by
  // those two: holding the part itself would keep an evicted page's bytes alive with the shell.
  if (joined?.partCrc !== part.crc || joined.partLength !== part.length || joined.filled !== filled) {
    shell.joined = joined = { partCrc: part.crc, partLength: part.length, filled, crc: crcOfParts(parts) }
  }
  return gzipMember(parts, joined.crc)
}
