import { isIP } from 'node:net'
import { lazyPackage } from './lazy-package.ts'
import { BoundedQueue } from './bounded-queue.ts'
import { GuardError, isPublicAddress } from './private-network-guard.ts'
import { OnePerTurn } from './one-per-turn.ts'
import { VapidTokens, type Vapid } from './vapid-tokens.ts'
import { PushAgent } from './web-push-agent.ts'

const webpush = lazyPackage<typeof import('web-push')>('web-push')

// Delivering Web Push messages off the request path (upstream lib/web_push/pool.rb): at most
// `concurrency` requests in flight and `maxQueue` waiting (more are dropped, never held), one
// deadline per request, and only to permitted endpoints, over the guarded, kept-alive
// connections of server/lib/web-push-agent.ts (public addresses unless told otherwise).
// Encrypting (RFC 8291 aes128gcm), signing the VAPID token (reused per push service, see
// vapid-tokens.ts) and sending are the web-push package's.
export const PUSH_CONCURRENCY = 50
export const PUSH_QUEUE = 10_000
export const PUSH_TIMEOUT_MS = 10_000
// What upstream's web-push gem sends when it is given no TTL: four weeks.
export const PUSH_TTL_SECONDS = 28 * 24 * 60 * 60

export type { Vapid }

export interface Push {
  subscriptionId: number
  endpoint: string
  p256dh: string
  auth: string
  payload: string
}

export interface PushPoolOptions {
  vapid: Vapid
  // Whether an endpoint may be delivered to at all (checked again at delivery, whatever is stored).
  permitsEndpoint: (url: URL) => boolean
  isAllowedAddress?: (address: string) => boolean
  // Certificate authorities to trust besides Node's own (a test's push service).
  ca?: string
  concurrency?: number
  maxQueue?: number
  timeoutMs?: number
  // The push service says the subscription is gone (404 or 410): forget it.
  onGone: (subscriptionId: number) => void
  onFailure?: (push: Push, reason: string) => void
}

export type PushOutcome = 'sent' | 'gone' | 'failed' | 'refused' | 'dropped'

export class WebPushPool {
  readonly stats: Record<PushOutcome, number> = { sent: 0, gone: 0, failed: 0, refused: 0, dropped: 0 }
  private readonly queue: BoundedQueue
  private readonly agent: PushAgent
  private readonly timeoutMs: number
  private readonly concurrency: number
  private readonly maxQueue: number
  private readonly tokens: VapidTokens
  // Queueing never encrypts, and pushes start one per turn of the event loop, so that however
  // many wait, a request's work gets its turn between any two of them.
  private readonly turns = new OnePerTurn()

  constructor(private readonly options: PushPoolOptions) {
    this.timeoutMs = options.timeoutMs ?? PUSH_TIMEOUT_MS
    this.concurrency = options.concurrency ?? PUSH_CONCURRENCY
    this.maxQueue = options.maxQueue ?? PUSH_QUEUE
    this.queue = new BoundedQueue({ concurrency: this.concurrency, maxPending: this.maxQueue })
    this.tokens = new VapidTokens(options.vapid)
    this.agent = new PushAgent({ maxSockets: this.concurrency, deadlineMs: this.timeoutMs, isAllowedAddress: options.isAllowedAddress ?? isPublicAddress, ca: options.ca })
  }

  // How many more pushes would be taken now (free slots and room in the queue).
  get capacity(): number {
    return Math.max(0, this.concurrency - this.queue.running) + Math.max(0, this.maxQueue - this.queue.pending)
  }

  // Pushes waiting for a slot or under way.
  get queued(): number {
    return this.queue.pending + this.queue.running
  }

  // Queues every push; answers how many were taken (the others are dropped: the queue is full).
  queueAll(pushes: readonly Push[]): number {
    if (this.queue.isClosed) return 0
    let taken = 0
    for (const push of pushes) {
      if (this.queue.push((signal) => this.deliver(push, signal))) taken++
      else this.stats.dropped++
    }
    return taken
  }

  // Pushes that were never built because the queue was full count as dropped too.
  dropped(count: number): void {
    this.stats.dropped += count
  }

  idle(): Promise<void> {
    return this.queue.idle()
  }

  // Drops what waits and ends what is in flight.
  async close(): Promise<void> {
    const stopped = this.queue.close()
    this.agent.destroy()
    await stopped
  }

  private async deliver(push: Push, signal: AbortSignal): Promise<void> {
    await this.turns.next()
    if (signal.aborted) return
    const url = endpointUrl(push.endpoint)
    const isAllowed = this.options.isAllowedAddress ?? isPublicAddress
    if (!url || !this.options.permitsEndpoint(url) || (isIP(bare(url.hostname)) !== 0 && !isAllowed(bare(url.hostname)))) {
      return this.settle(push, 'refused', 'endpoint not permitted')
    }
    try {
      const sending = webpush().sendNotification({ endpoint: push.endpoint, keys: { p256dh: push.p256dh, auth: push.auth } }, push.payload, {
        headers: { Authorization: this.tokens.authorization(url.origin) },
        vapidDetails: null,
        TTL: PUSH_TTL_SECONDS,
        urgency: 'high',
        agent: this.agent,
        timeout: this.timeoutMs,
      })
      await settledWithin(sending, this.timeoutMs + 1000, signal)
      this.settle(push, 'sent')
    } catch (error) {
      const status = (error as { statusCode?: unknown }).statusCode
      if (status === 404 || status === 410) {
        this.settle(push, 'gone')
        if (!signal.aborted) this.options.onGone(push.subscriptionId)
      } else if (error instanceof GuardError) {
        this.settle(push, 'refused', error.message)
      } else {
        this.settle(push, 'failed', typeof status === 'number' ? `status ${status}` : (error as Error).message)
      }
    }
  }

  private settle(push: Push, outcome: PushOutcome, reason?: string): void {
    this.stats[outcome]++
    if (reason !== undefined) this.options.onFailure?.(push, reason)
  }
}

function endpointUrl(endpoint: string): URL | null {
  try {
    return new URL(endpoint)
  } catch {
    return null
  }
}

const bare = (hostname: string) => (hostname.startsWith('[') ? hostname.slice(1, -1) : hostname)

// Settles with the promise, or fails after `ms` or when the signal fires (the agent has
// destroyed the request by then; this only stops waiting on it).
function settledWithin<T>(promise: Promise<T>, ms: number, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const fail = () => reject(new Error('push abandoned'))
    const timer = setTimeout(fail, ms)
    timer.unref()
    signal.addEventListener('abort', fail, { once: true })
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer)
      signal.removeEventListener('abort', fail)
    })
  })
}
