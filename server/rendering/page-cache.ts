import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import { deflatePartAsync, deflatePiecesAsync, gzipOf, ownBytes, partOfGzip, type Part } from './gzip.ts'
import { cutAtSlots, type SlottedPage } from './unread-slots.ts'
import { onFirstUse } from '../lib/on-first-use.ts'

// A cached page (or the shared part of one): its bytes, and its compressed bytes, made once.
export interface CachedPage {
  part: Part
  gzip: Buffer
}

// A viewer's shell around a shared part: the compressed text before the part, cut at its slots
// (segments[i] comes before slot i), the text after it, and the CRC of the last whole page it
// was joined into, with the CRC and length of the part and the slot values it was joined with
// (shell-splice.ts).
export interface CachedShell {
  segments: Part[]
  tail: Part
  joined?: { partCrc: number; partLength: number; filled: string; crc: number }
}

// Which shared part a person's search gave, and under what signature: while nothing they can
// reach has changed, the search need not run again to find it (routes/searches.ts).
export interface CachedResults {
  partKey: string
  signature: string
  count: number
}

// What the cache holds: whole pages (or shared parts), sidebars with unread slots, shells, and
// search results.
type Stored = CachedPage | SlottedPage | CachedShell | CachedResults

interface Entry {
  signature: string
  // A cheaper version the entry was last found valid under, read in the same transaction as the
  // signature was (a room's content_version for its message pages): while it stays the same,
  // the signature need not be computed (findQuick).
  quick?: string
  page: Stored
}

function bytesOf(page: Stored): number {
  if ('gzip' in page) return page.gzip.length
  if ('tail' in page) return page.segments.reduce((sum, part) => sum + part.deflated.length, page.tail.deflated.length)
  if ('partKey' in page) return page.partKey.length + page.signature.length
  // Each segment, plus room for the gzips of its fillings (unread-slots.ts keeps two).
  return page.segments.reduce((sum, part) => sum + 3 * part.deflated.length + 32, 0)
}

async function compressed(html: string | readonly string[], level?: number): Promise<CachedPage> {
  const part = typeof html === 'string' ? await deflatePartAsync(Buffer.from(html, 'utf8'), level) : await deflatePiecesAsync(html, level)
  const gzip = ownBytes(gzipOf([part]))
  return { part: partOfGzip(gzip, part.crc, part.length), gzip }
}

export interface PageCacheStats {
  hits: number
  misses: number
  builds: number
  joined: number
}

const MAX_ENTRY_FRACTION = 8
const SIGHTINGS_KEPT = 20_000

// Pages by key, each valid for one signature: the versions of what the page shows, read in the
// same read transaction as its data, so an entry is never stored under a newer signature than its
// content, and a request whose signature differs (any writer changed something shown) never gets
// it. Concurrent misses on the same key and signature share one build (single flight).
export class PageCache {
  private readonly entries: LRUCache<string, Entry>
  // Digests of keys asked for once and not stored (seenBefore).
  private readonly sightings = onFirstUse(() => new LRUCache<string, true>({ max: SIGHTINGS_KEPT }))
  private readonly inflight = new Map<string, Promise<Stored>>()
  readonly stats: PageCacheStats = { hits: 0, misses: 0, builds: 0, joined: 0 }

  constructor(readonly maxBytes: number) {
    this.entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      maxEntrySize: Math.max(Math.floor(maxBytes / MAX_ENTRY_FRACTION), 1),
      sizeCalculation: (entry, key) => bytesOf(entry.page) + key.length + entry.signature.length + 128,
    })
  }

  // A stored page, a build already under way for this key and signature, or undefined. A key
  // holds one kind of page: whole (admit) or slotted (admitSlotted), as its route stores it.
  find<T extends Stored = CachedPage>(key: string, signature: string): T | Promise<T> | undefined {
    const entry = this.entries.get(key)
    if (entry && entry.signature === signature) {
      this.stats.hits++
      return entry.page as T
    }
    const pending = this.inflight.get(`${key}\0${signature}`)
    if (pending) {
      this.stats.joined++
      return pending as Promise<T>
    }
    this.stats.misses++
    return undefined
  }

  // The stored page if it was last found valid under `quick`, or if `signature()` (computed only
  // then) still matches it, in which case `quick` is remembered for the next request. Call it in
  // the read transaction that read both. A build under way is joined by find(), not here.
  findQuick<T extends Stored = CachedPage>(key: string, quick: string, signature: () => string): { page: T } | { signature: string } {
    const entry = this.entries.get(key)
    if (entry && entry.quick === quick) {
      this.stats.hits++
      return { page: entry.page as T }
    }
    const current = signature()
    if (entry && entry.signature === current) {
      entry.quick = quick
      this.stats.hits++
      return { page: entry.page as T }
    }
    return { signature: current }
  }

  // The stored page if it was last found valid under `quick`, without computing anything else.
  peekQuick<T extends Stored = CachedPage>(key: string, quick: string): T | undefined {
    const entry = this.entries.get(key)
    if (!entry || entry.quick !== quick) return undefined
    this.stats.hits++
    return entry.page as T
  }

  // The same without counting a hit: for bookkeeping entries (which part a search gave) whose
  // lookup is followed by the real one (find on the part), so a hit is counted once.
  recall<T extends Stored = CachedPage>(key: string, quick: string): T | undefined {
    const entry = this.entries.get(key)
    return entry && entry.quick === quick ? (entry.page as T) : undefined
  }

  // An admission filter for pages most of which are asked for only once (search results):
  // true when the key was asked for before, among the last SIGHTINGS_KEPT keys seen, so only a
  // page wanted twice takes the cache's room from pages that are wanted again and again.
  seenBefore(key: string): boolean {
    const digest = createHash('sha1').update(key).digest('base64')
    if (this.sightings().get(digest)) return true
    this.sightings().set(digest, true)
    return false
  }

  // Compresses a page for one response without storing it.
  compressOnly(html: string | readonly string[], level?: number): Promise<CachedPage> {
    return compressed(html, level)
  }

  // Stores a shell (small, and compressed by the caller) or search results at once; `quick`
  // as for findQuick.
  store(key: string, signature: string, page: CachedShell | CachedResults, quick?: string): void {
    this.entries.set(key, { signature, quick, page })
  }

  // Compresses the rendered HTML once and stores it. Call it in the same tick as the find() that
  // missed, so a concurrent request finds the build under way. A string is compressed off the
  // main thread, as are pieces (message fragments), written into one buffer first
  // (deflatePiecesAsync), which costs less than making them one string.
  // `level` is zlib's: a page that is rarely served twice (search results) is worth less work.
  admit(key: string, signature: string, html: string | readonly string[], quick?: string, level?: number): Promise<CachedPage> {
    return this.build(key, signature, quick, () => compressed(html, level))
  }

  // The same for a page with unread slots (unread-slots.ts): it is cut at its slots and each
  // segment is compressed once; requests fill the slots.
  admitSlotted(key: string, signature: string, html: string): Promise<SlottedPage> {
    return this.build(key, signature, undefined, async () => {
      const { segments, rooms } = cutAtSlots(html)
      return { segments: await Promise.all(segments.map((text) => deflatePartAsync(Buffer.from(text, 'utf8')))), rooms }
    })
  }

  private build<T extends Stored>(key: string, signature: string, quick: string | undefined, make: () => Promise<T>): Promise<T> {
    const flight = `${key}\0${signature}`
    const existing = this.inflight.get(flight)
    if (existing) return existing as Promise<T>
    this.stats.builds++
    const build = make()
      .then((page) => {
        this.entries.set(key, { signature, quick, page })
        return page
      })
      .finally(() => this.inflight.delete(flight))
    this.inflight.set(flight, build)
    return build
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.calculatedSize }
  }

  clear(): void {
    this.entries.clear()
  }
}
