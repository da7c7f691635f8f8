import { LRUCache } from 'lru-cache'
import { deflatePartAsync, gzipOf, type Part } from './gzip.ts'

// A cached page (or the shared part of one): its bytes, and its compressed bytes, made once.
export interface CachedPage {
  part: Part
  gzip: Buffer
}

interface Entry {
  signature: string
  page: CachedPage
}

export interface PageCacheStats {
  hits: number
  misses: number
  builds: number
  joined: number
}

const MAX_ENTRY_FRACTION = 8

// Pages by key, each valid for one signature: the versions of what the page shows, read in the
// same read transaction as its data, so an entry is never stored under a newer signature than its
// content, and a request whose signature differs (any writer changed something shown) never gets
// it. Concurrent misses on the same key and signature share one build (single flight).
export class PageCache {
  private readonly entries: LRUCache<string, Entry>
  private readonly inflight = new Map<string, Promise<CachedPage>>()
  readonly stats: PageCacheStats = { hits: 0, misses: 0, builds: 0, joined: 0 }

  constructor(readonly maxBytes: number) {
    this.entries = new LRUCache<string, Entry>({
      maxSize: maxBytes,
      maxEntrySize: Math.max(Math.floor(maxBytes / MAX_ENTRY_FRACTION), 1),
      sizeCalculation: (entry, key) => entry.page.part.identity.length + entry.page.part.deflated.length + entry.page.gzip.length + key.length + 128,
    })
  }

  // A stored page, a build already under way for this key and signature, or undefined.
  find(key: string, signature: string): CachedPage | Promise<CachedPage> | undefined {
    const entry = this.entries.get(key)
    if (entry && entry.signature === signature) {
      this.stats.hits++
      return entry.page
    }
    const pending = this.inflight.get(`${key}\0${signature}`)
    if (pending) {
      this.stats.joined++
      return pending
    }
    this.stats.misses++
    return undefined
  }

  // Compresses the rendered HTML once (off the main thread) and stores it. Call it in the same
  // tick as the find() that missed, so a concurrent request finds the build under way.
  admit(key: string, signature: string, html: string): Promise<CachedPage> {
    const flight = `${key}\0${signature}`
    const existing = this.inflight.get(flight)
    if (existing) return existing
    this.stats.builds++
    const build = deflatePartAsync(Buffer.from(html, 'utf8'))
      .then((part) => {
        const page = { part, gzip: gzipOf([part]) }
        this.entries.set(key, { signature, page })
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
