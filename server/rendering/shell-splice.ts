import { createHash } from 'node:crypto'
import { crcOfParts, deflatePart, gzipMember, type Part } from './gzip.ts'
import type { CachedShell } from './page-cache.ts'

// A viewer's shell, cached around a shared part (a room's messages, search results): the
// text before and after the part, each compressed once, joined with the part's compressed
// bytes into one gzip member for each request.

export function shellOf(before: string, after: string): CachedShell {
  return { head: deflatePart(Buffer.from(before, 'utf8')), tail: deflatePart(Buffer.from(after, 'utf8')) }
}

// What a shell was rendered from: the template, its data, the person's row and the account,
// as a digest. Everything else a layout shows is fixed for the life of the process (assets,
// version, VAPID key), and a flash is never cached.
export function shellSignature(template: string, data: Record<string, unknown>, user: unknown, account: unknown): string {
  return createHash('sha1').update(JSON.stringify([template, data, user, account])).digest('base64')
}

// The whole page: the shell's head, the part, its tail. The CRC of the whole is combined from the
// three (crc32Combine walks the lengths' bits) once per shell and part, then kept with the shell.
export function splicedGzip(shell: CachedShell, part: Part): Buffer {
  const parts = [shell.head, part, shell.tail]
  let joined = shell.joined
  if (joined?.part !== part) shell.joined = joined = { part, crc: crcOfParts(parts) }
  return gzipMember(parts, joined.crc)
}
