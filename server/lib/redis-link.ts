import { EventEmitter } from 'node:events'
import { createClient } from '@redis/client'

// The app's two connections to Redis (REDIS_URL): one publishes and runs commands (the shared
// sign-in counters), one only listens, since a subscribed connection can do nothing else.
//
// Redis is never waited for: each connection reconnects forever, backing off to 5 s, and
// nothing is queued while it is away. A publish then fails at once and is dropped and
// counted, and the log hears about it at most once per backoff period. Callers learn of
// outages from the 'down' and 'up' events, per connection. A Redis that stops answering without
// closing its connection (stopped, paused, or gone behind a network that never says so) is
// noticed too: `answering` turns false once commands have gone unanswered for STALL_MS, so
// callers stop waiting on it (publishes are still written, up to the pending bounds, and reach
// Redis if it resumes).

type Client = ReturnType<typeof createClient>

export type RedisRole = 'publisher' | 'subscriber'

// Pino's shape, so the app's logger fits without this file knowing Fastify.
export interface LinkLog {
  info(details: object, message: string): void
  warn(details: object, message: string): void
  error(details: object, message: string): void
}

export interface RedisLinkOptions {
  url: string
  // Every key and channel is named under it ("campfire_production:campfire-ts").
  namespace: string
  log: LinkLog
  maxBackoffMs?: number
}

const FIRST_BACKOFF_MS = 50
const MAX_BACKOFF_MS = 5000
// Publishes written and not yet answered. A Redis that stalls without closing the connection
// would otherwise collect them without bound; beyond these, a publish is dropped.
const MAX_PENDING_COMMANDS = 10_000
const MAX_PENDING_BYTES = 64 * 1024 * 1024
// A sign-in waits at most this long for its counter before falling back (rate-limit.ts).
const COMMAND_TIMEOUT_MS = 1000
// Commands unanswered this long, with no answer to any other meanwhile: Redis is not answering.
// A healthy one answers in well under a millisecond, a busy one in a few.
export const STALL_MS = 100
const CLOSE_GRACE_MS = 1000

// unix:///run/redis.sock: a Redis on this host through its Unix socket, so that a redis-server
// beside the workers needs no port (node-redis takes such a socket as a path, not a URL).
export function unixSocketPath(url: string): string | null {
  return url.startsWith('unix://') ? decodeURIComponent(url.slice('unix://'.length)) : null
}

class Connection {
  up = false
  backoffMs = 0
  complainedAt = Number.NEGATIVE_INFINITY

  constructor(
    readonly role: RedisRole,
    readonly client: Client,
  ) {}
}

export class RedisLink extends EventEmitter<{ up: [RedisRole]; down: [RedisRole] }> {
  readonly namespace: string
  private readonly log: LinkLog
  private readonly publisher: Connection
  private readonly subscriber: Connection
  // Channels ("channel <name>") and patterns ("pattern <glob>") listened to, each with its
  // listener, and those Redis has confirmed.
  private readonly listening = new Map<string, { kind: 'channel' | 'pattern'; name: string; listener: (message: Buffer) => void }>()
  private readonly subscribed = new Set<string>()
  private pendingBytes = 0
  // Commands written and not yet answered, and since when the publisher has been waiting for an
  // answer (the first command written while none was pending, or the last answer since).
  private pendingCommands = 0
  private waitingSince = 0
  private droppedTotal = 0
  private droppedUnlogged = 0
  private dropsLoggedAt = Number.NEGATIVE_INFINITY
  private closing = false
  private readonly maxBackoffMs: number

  constructor(options: RedisLinkOptions) {
    super()
    this.namespace = options.namespace
    this.log = options.log
    this.maxBackoffMs = options.maxBackoffMs ?? MAX_BACKOFF_MS
    this.publisher = this.connection('publisher', options.url)
    this.subscriber = this.connection('subscriber', options.url)
  }

  // A key or channel name under the namespace.
  name(suffix: string): string {
    return `${this.namespace}:${suffix}`
  }

  // Whether commands can be sent now (the publishing connection is ready).
  get isUp(): boolean {
    return this.publisher.up
  }

  // Whether Redis answers commands: false while it is down, and while commands have gone
  // unanswered for STALL_MS on a connection that is still open.
  get answering(): boolean {
    return this.publisher.up && (this.pendingCommands === 0 || performance.now() - this.waitingSince < STALL_MS)
  }

  get isListening(): boolean {
    return this.subscriber.up
  }

  // Publishes that never reached Redis (it was away, stalled, or refused them).
  get dropped(): number {
    return this.droppedTotal
  }

  // Starts connecting both; resolves once both are up, or after `waitMs` regardless (the app
  // serves without Redis and catches up when it arrives).
  async start(waitMs = 0): Promise<boolean> {
    for (const connection of [this.publisher, this.subscriber]) {
      connection.client.connect().catch((err: unknown) => {
        if (!this.closing) this.log.error({ err, role: connection.role }, 'redis: gave up connecting')
      })
    }
    return this.ready(waitMs)
  }

  ready(waitMs: number): Promise<boolean> {
    if (this.carrying || waitMs <= 0) return Promise.resolve(this.carrying)
    return new Promise((resolve) => {
      const check = () => {
        if (!this.carrying) return
        done()
      }
      const done = () => {
        clearTimeout(timer)
        this.off('up', check)
        resolve(this.carrying)
      }
      const timer = setTimeout(done, waitMs)
      this.on('up', check)
    })
  }

  // Whether both connections are up: a message published now will be heard here too.
  get carrying(): boolean {
    return this.publisher.up && this.subscriber.up
  }

  // null when the message was dropped instead of sent; else settles with Redis's answer (true
  // once Redis has handed it to every listener, false when it failed). Nothing is retried.
  publish(channel: string, message: string | Buffer): Promise<boolean> | null {
    if (this.closing) return null
    const bytes = message.length
    if (!this.publisher.up || this.pendingBytes + bytes > MAX_PENDING_BYTES) {
      this.noteDrop(null)
      return null
    }
    this.pendingBytes += bytes
    // sendCommand rather than the publish helper, whose argument parsing costs more per call.
    return this.tracked(this.publisher.client.sendCommand(['PUBLISH', channel, message])).then(
      () => {
        this.pendingBytes -= bytes
        return true
      },
      (err: unknown) => {
        this.pendingBytes -= bytes
        this.noteDrop(err)
        return false
      },
    )
  }

  // Counts a command as pending until it settles (answers come in the order commands went).
  private tracked<T>(command: Promise<T>): Promise<T> {
    if (this.pendingCommands++ === 0) this.waitingSince = performance.now()
    const settled = () => {
      this.pendingCommands--
      this.waitingSince = performance.now()
    }
    command.then(settled, settled)
    return command
  }

  // One listener per channel, kept across reconnections; subscribe before start(), so that
  // 'up' means listening. Messages arrive as the bytes Redis sent, so a listener can look at a
  // message before paying to decode it. A listener that throws is logged; the next message
  // still arrives.
  subscribe(channel: string, listener: (message: Buffer) => void): void {
    this.listen('channel', [channel], listener)
  }

  // The same for every channel matching any of these glob patterns (PSUBSCRIBE): one listener,
  // which hears each message once for each pattern its channel matches.
  subscribePatterns(patterns: readonly string[], listener: (message: Buffer) => void): void {
    this.listen('pattern', patterns, listener)
  }

  private listen(kind: 'channel' | 'pattern', names: readonly string[], listener: (message: Buffer) => void): void {
    const guarded = (message: Buffer) => {
      try {
        listener(message)
      } catch (err) {
        this.log.error({ err, [kind]: names.length === 1 ? names[0] : names }, 'redis: a subscriber failed on a message')
      }
    }
    for (const name of names) this.listening.set(`${kind} ${name}`, { kind, name, listener: guarded })
    if (this.subscriber.client.isReady) this.subscribeAll()
  }

  // INCR, and PEXPIRE NX so the window starts at the first hit: the count so far in the window
  // that `key` (already under the namespace) opened. Rejects when Redis is away or slow.
  async countInWindow(key: string, windowMs: number): Promise<number> {
    if (!this.publisher.up) throw new Error('redis is not connected')
    if (!this.answering) throw new Error('redis is not answering')
    const replies = await withTimeout(this.tracked(this.publisher.client.multi().incr(key).pExpire(key, windowMs, 'NX').exec()), COMMAND_TIMEOUT_MS)
    const count = Number(replies[0])
    if (!Number.isSafeInteger(count)) throw new Error(`redis answered INCR with ${String(replies[0])}`)
    return count
  }

  async close(): Promise<void> {
    this.closing = true
    await Promise.all([this.publisher, this.subscriber].map((connection) => closeClient(connection.client)))
    this.removeAllListeners()
  }

  private connection(role: RedisRole, url: string): Connection {
    const maxBackoffMs = this.maxBackoffMs
    const socketPath = unixSocketPath(url)
    const client: Client = createClient({
      ...(socketPath === null ? { url } : {}),
      disableOfflineQueue: true,
      commandsQueueMaxLength: MAX_PENDING_COMMANDS,
      // node-redis arms an AbortSignal.timeout for every command by default, which costs more
      // than the publish itself; the pending bounds above and countInWindow's own timeout do
      // that job here.
      commandOptions: { timeout: 0 },
      socket: {
        ...(socketPath === null ? {} : { path: socketPath }),
        connectTimeout: maxBackoffMs,
        reconnectStrategy: (retries: number): number => {
          connection.backoffMs = Math.min(maxBackoffMs, FIRST_BACKOFF_MS * 2 ** Math.min(retries, 16))
          return connection.backoffMs
        },
      },
    })
    const connection: Connection = new Connection(role, client)
    // Without an 'error' listener an EventEmitter throws, and node-redis reports every failed
    // attempt this way.
    client.on('error', (err: unknown) => this.failed(connection, err))
    client.on('ready', () => this.connected(connection))
    return connection
  }

  private connected(connection: Connection): void {
    connection.backoffMs = 0
    if (connection === this.subscriber && !this.subscribeAll()) return
    this.markUp(connection)
  }

  // Subscribes to the channels and patterns not yet subscribed; true when there were none
  // (node-redis subscribes again by itself after a reconnection, before it reports ready).
  private subscribeAll(): boolean {
    const missing = [...this.listening].filter(([key]) => !this.subscribed.has(key))
    if (missing.length === 0) return true
    for (const [key, { kind, name, listener }] of missing) {
      const subscribing = kind === 'channel' ? this.subscriber.client.subscribe(name, listener, true) : this.subscriber.client.pSubscribe(name, listener, true)
      subscribing.then(
        () => {
          this.subscribed.add(key)
          if (this.subscribed.size === this.listening.size) this.markUp(this.subscriber)
        },
        // The connection went away meanwhile; the next 'ready' tries again.
        (err: unknown) => this.failed(this.subscriber, err),
      )
    }
    return false
  }

  private markUp(connection: Connection): void {
    if (connection.up || this.closing) return
    connection.up = true
    if (connection.complainedAt !== Number.NEGATIVE_INFINITY) {
      const dropped = connection === this.publisher ? this.droppedUnlogged : 0
      this.log.info({ role: connection.role, dropped, droppedTotal: this.droppedTotal }, 'redis: connected again')
      this.droppedUnlogged -= dropped
    }
    connection.complainedAt = Number.NEGATIVE_INFINITY
    this.emit('up', connection.role)
  }

  private failed(connection: Connection, err: unknown): void {
    if (this.closing) return
    this.complain(connection, err)
    if (!connection.up || connection.client.isReady) return
    connection.up = false
    this.emit('down', connection.role)
  }

  // Once per backoff period (node-redis reports each failed attempt, and some twice).
  private complain(connection: Connection, err: unknown): void {
    const now = Date.now()
    if (now - connection.complainedAt < Math.max(connection.backoffMs, FIRST_BACKOFF_MS)) return
    connection.complainedAt = now
    this.log.warn({ err, role: connection.role, retryInMs: connection.backoffMs }, 'redis: connection failed, retrying')
  }

  private noteDrop(err: unknown): void {
    this.droppedTotal++
    this.droppedUnlogged++
    const now = Date.now()
    if (now - this.dropsLoggedAt < this.maxBackoffMs) return
    this.log.warn({ err: err ?? undefined, dropped: this.droppedUnlogged, droppedTotal: this.droppedTotal }, 'redis: publishes dropped')
    this.dropsLoggedAt = now
    this.droppedUnlogged = 0
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

// A graceful close waits for answers to commands in flight, which a stalled Redis never
// sends; after the grace period the connection is cut.
async function closeClient(client: Client): Promise<void> {
  if (!client.isOpen) return
  if (!client.isReady) return client.destroy()
  let timer: NodeJS.Timeout | undefined
  const cut = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      client.destroy()
      resolve()
    }, CLOSE_GRACE_MS)
  })
  await Promise.race([client.close().catch(() => client.destroy()), cut])
  clearTimeout(timer)
}
