import { LRUCache } from 'lru-cache'

// What a route needs of a limit: count one attempt, and say whether it is still within it.
export interface AttemptLimit {
  readonly limit: number
  readonly windowMs: number
  hit(key: string): boolean | Promise<boolean>
}

// A fixed-window counter per key (an IP, say), bounded in memory like every cache here.
export class RateLimit implements AttemptLimit {
  // Made at the first attempt: a cache of 50,000 keys allocates its slots at once, and a server
  // with a dozen limits would do that for each of them before it could answer anything.
  private windows: LRUCache<string, { count: number }> | null = null

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly maxKeys = 50_000,
  ) {}

  // Counts one attempt and says whether it is still within the limit.
  hit(key: string): boolean {
    this.windows ??= new LRUCache({ max: this.maxKeys, ttl: this.windowMs, ttlAutopurge: false })
    const window = this.windows.get(key)
    if (!window) {
      this.windows.set(key, { count: 1 })
      return true
    }
    window.count++
    return window.count <= this.limit
  }

  reset(): void {
    this.windows?.clear()
  }
}

// Where a shared window is counted: Redis (lib/redis-link.ts), named here only by what it does.
export interface WindowCounters {
  readonly isUp: boolean
  name(suffix: string): string
  // Counts one hit on `key`, whose window opens at its first hit, and answers the count so far.
  countInWindow(key: string, windowMs: number): Promise<number>
}

// The same fixed window, counted in Redis so that every worker process shares it (upstream's
// rate_limit keeps its counts in Rails.cache, which is Redis there too). While Redis cannot be
// reached (down, or slower than its timeout) each process falls back to a window of its own:
// the limit then holds per process rather than failing open, and a sign-in never errors
// because Redis is away.
export class SharedRateLimit implements AttemptLimit {
  private readonly local: RateLimit

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly counters: WindowCounters,
    private readonly scope: string,
  ) {
    this.local = new RateLimit(limit, windowMs)
  }

  async hit(key: string): Promise<boolean> {
    if (!this.counters.isUp) return this.local.hit(key)
    try {
      return (await this.counters.countInWindow(this.counters.name(`${this.scope}:${key}`), this.windowMs)) <= this.limit
    } catch {
      return this.local.hit(key)
    }
  }
}
