// A token bucket: it holds at most `burst` tokens and gains `perSecond` of them a second. The
// rate and burst are passed on every take, so a bucket follows the server's limits object as it
// is (tests tighten it) and costs two numbers, not a copy of its settings.
export class TokenBucket {
  private tokens: number
  private at: number

  constructor(burst: number, now: number) {
    this.tokens = burst
    this.at = now
  }

  // Takes one token if there is one. `now` is in milliseconds, from a monotonic clock.
  take(perSecond: number, burst: number, now: number): boolean {
    const elapsed = Math.max(0, now - this.at)
    this.at = now
    this.tokens = Math.min(burst, this.tokens + (elapsed / 1000) * perSecond)
    if (this.tokens < 1) return false
    this.tokens -= 1
    return true
  }
}
