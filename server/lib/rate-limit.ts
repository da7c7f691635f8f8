import { LRUCache } from 'lru-cache'

// A fixed-window counter per key (an IP, say), bounded in memory like every cache here.
export class RateLimit {
  private readonly windows: LRUCache<string, { count: number }>

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    maxKeys = 50_000,
  ) {
    this.windows = new LRUCache({ max: maxKeys, ttl: windowMs, ttlAutopurge: false })
  }

  // Counts one attempt and says whether it is still within the limit.
  hit(key: string): boolean {
    const window = this.windows.get(key)
    if (!window) {
      this.windows.set(key, { count: 1 })
      return true
    }
    window.count++
    return window.count <= this.limit
  }

  reset(): void {
    this.windows.clear()
  }
}
