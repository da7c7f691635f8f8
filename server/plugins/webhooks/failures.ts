import { LRUCache } from 'lru-cache'

// How failing webhooks are kept cheap and quiet. A destination (an origin) that could not be
// reached at all (refused, unreachable, unresolvable, or refused by the address policy) is
// left alone for `pauseMs`: deliveries to it meanwhile are skipped, as they would fail the same
// way (upstream does not retry a failed delivery either). Each destination's failures are
// logged at most once per `logIntervalMs`, with the number skipped or failed since.
export const UNREACHABLE = /ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|did not resolve|non-public/

export interface FailureOptions {
  pauseMs: number
  logIntervalMs: number
  now?: () => number
}

interface Destination {
  pausedUntil: number
  loggedAt: number
  unlogged: number
}

export class WebhookFailures {
  private readonly destinations = new LRUCache<string, Destination>({ max: 1000 })
  private readonly now: () => number

  constructor(private readonly options: FailureOptions) {
    this.now = options.now ?? Date.now
  }

  // True when deliveries to this destination are paused; the skip is counted for the next log.
  paused(destination: string): boolean {
    const known = this.destinations.get(destination)
    if (!known || known.pausedUntil <= this.now()) return false
    known.unlogged++
    return true
  }

  // Records a failed delivery; answers the number to report when it is time to log one (the
  // failures and skips since the last line, this one included), or null to stay quiet.
  failed(destination: string, reason: string): number | null {
    const now = this.now()
    const known = this.destinations.get(destination) ?? { pausedUntil: 0, loggedAt: -Infinity, unlogged: 0 }
    if (UNREACHABLE.test(reason)) known.pausedUntil = now + this.options.pauseMs
    known.unlogged++
    this.destinations.set(destination, known)
    if (now - known.loggedAt < this.options.logIntervalMs) return null
    const count = known.unlogged
    known.loggedAt = now
    known.unlogged = 0
    return count
  }
}

// Where a webhook goes, for pausing and the log: the origin only, since a URL's path or query
// may hold a secret.
export function destination(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return 'invalid URL'
  }
}
