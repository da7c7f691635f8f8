import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'

// A response kept whole, to be sent again to a request with the very same method, URL and
// headers while the database is at the same generation (Store.generation). What a response may
// depend on is the request, the database and the server's configuration: with the first two the
// same and the third fixed for the process's life, the bytes are the same too. So a hit checks
// nothing else: who asks is in the Cookie header of the key, and that they may still see the
// page, and that it is current, are in the generation.
export interface MemoEntry {
  generation: number
  status: number
  headers: Record<string, string | string[]>
  body: Buffer
}

// Per kept response: the entry, its headers and the map's own slot.
const OVERHEAD_BYTES = 512
const SIGHTINGS_KEPT = 10_000

export class ResponseMemo {
  private readonly entries: LRUCache<string, MemoEntry>
  // Digests of keys asked for (a key, with its headers, is most of a kilobyte), each with the
  // generation it was last asked at: a response is kept only when its request comes a second time
  // at the same generation. A proxy that adds a header of its own to every request (an id), or a
  // chat busy enough that something is written between any two visits to a page, costs no copies
  // that would never be sent again.
  private readonly sightings: LRUCache<string, number>

  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, MemoEntry>({
      maxSize: Math.max(1, maxBytes),
      sizeCalculation: (entry, key) => Math.max(1, entry.body.length + key.length * 2 + OVERHEAD_BYTES),
    })
    this.sightings = new LRUCache<string, number>({ max: SIGHTINGS_KEPT })
  }

  // The response kept under this key for this generation; one from an older generation is
  // dropped as it is found.
  find(key: string, generation: number): MemoEntry | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.generation === generation) return entry
    this.entries.delete(key)
    return undefined
  }

  // Whether a response to this key at this generation would be kept: when the key was last asked
  // for at the same generation.
  wouldKeep(key: string, generation: number): boolean {
    const digest = createHash('sha1').update(key).digest('base64')
    const before = this.sightings.get(digest)
    this.sightings.set(digest, generation)
    return before === generation
  }

  // Keeps the response; a body that is a view into a larger buffer (a pooled slab, zlib's chunk)
  // is copied, so the entry holds its own bytes and nothing more.
  keep(key: string, entry: MemoEntry): void {
    const { body } = entry
    const owned = body.byteOffset === 0 && body.buffer.byteLength === body.length ? body : ownCopy(body)
    this.entries.set(key, owned === body ? entry : { ...entry, body: owned })
  }

  get size(): number {
    return this.entries.size
  }

  get bytes(): number {
    return this.entries.calculatedSize
  }

  clear(): void {
    this.entries.clear()
  }
}

// Outside Node's pool: Buffer.from would copy a small body into a shared 8 KiB slab.
function ownCopy(body: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(body.length)
  body.copy(copy)
  return copy
}
