import { randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { STALL_MS, type RedisLink } from '../lib/redis-link.ts'
import { DISCONNECT_REASONS, type DisconnectReason } from './protocol.ts'
import { lazyJson, type CableServer, type DisconnectOptions, type Relay, type UnreadNotice } from './server.ts'

// Broadcasts and revocations across processes, through Redis.
//
// Each process publishes on a channel of its own, campfire_<env>:campfire-ts:broadcasts:<origin>
// (the origin is 12 random hex digits), and listens to every other process's through 12
// patterns that together match any 12-digit origin but its own ([^a]???????????, a[^b]??????????,
// …): a process never hears its own messages, and needs to know nothing of the others. Each
// process delivers another's broadcasts in the order that one sent them (Redis keeps the order of
// one connection's publishes), framing each once for its own sockets. Its own it delivers when
// Redis has answered their publish, in order: the answer to the write that made a broadcast goes
// out in the same turn, ahead of the fan-out to the sockets here (as one process answers first).
//
// A write's response waits until Redis has answered its publish (published(), awaited by the
// cable plugin before a non-GET response leaves). Redis writes a message to every listener
// before that answer goes out, so a post acknowledged by one worker is already on its way to
// every other when the person does something next, on any of them.
//
// A message is one or more entries, each a JSON header line and, for a broadcast, a body:
//   ["s",<stream or [streams]>,<n>] + "\n" + <n UTF-16 units of raw text>   a string message
//   ["j",<stream or [streams]>] + "\n" + <JSON>                              any other message
//   ["d",<user id>,<reconnect>,"<reason>"]                                  disconnect a person
//   ["u",<user id>,<room id>]                                  drop a person's room subscriptions
//   ["n",<room id>,<at>,<shared>,[<user ids>]]                 an unread notice (server.ts, UnreadNotice)
//   ["r",<user id>,<room id>]                                  a person read a room
// with a newline after each entry. A string (a Turbo Stream's HTML, nearly every broadcast)
// travels as it is: it is encoded for the sockets only where some are subscribed to it.
//
// When Redis goes away, nothing waits for it: broadcasts reach the sockets here at once, posts
// carry on, and what other processes sent meanwhile is lost to this one's sockets. A Redis that
// stops answering with its connection still open is waited for PUBLISH_WAIT_MS at most, by the
// writes of that moment only: while its answers are late, a write's response waits for nothing. So whenever
// the listening connection comes back, every socket here is told to reconnect (as on a
// restart): the page re-subscribes and asks for what it missed (refresh_room_controller's
// refresh on reconnection). A lone process with REDIS_URL does this too, since it cannot know
// whether others exist.

// Far beyond any real broadcast (10,003 stream names are ~200 KB), well under what Redis
// lets a subscriber fall behind by (client-output-buffer-limit pubsub, 32 MB).
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024
// What one process sends in one turn goes as one message (up to 64 KB of entries): a post's
// message and unread notice, a burst of navigations' read notices. Each publish costs a write
// to Redis, its answer, and a wakeup of every listening process, whatever its size (30-80 µs
// of CPU on a VM), against a few microseconds for the entry itself.
const BATCH_CHARS = 64 * 1024
// How long a write's response waits for Redis to answer its broadcasts' publish: as long as
// Redis may take before it counts as not answering (lib/redis-link.ts), then not at all.
const PUBLISH_WAIT_MS = STALL_MS
const COMPLAINT_INTERVAL_MS = 5000
const ORIGIN_DIGITS = 12
const REASONS: ReadonlySet<string> = new Set(Object.values(DISCONNECT_REASONS))

// The patterns matching <prefix><origin> for every origin of ORIGIN_DIGITS lowercase hex digits
// but `own`: the first digit differs, or the first is the same and the second differs, and so on.
// Each other origin matches exactly one of them, so its messages are heard once.
export function othersPatterns(prefix: string, own: string): string[] {
  const escaped = prefix.replace(/[\\*?[\]]/g, (char) => `\\${char}`)
  return [...own].map((digit, i) => `${escaped}${own.slice(0, i)}[^${digit}]${'?'.repeat(own.length - i - 1)}`)
}

export class CableRelay implements Relay {
  readonly origin = randomBytes(ORIGIN_DIGITS / 2).toString('hex')
  // This process's channel; the others' share its prefix.
  readonly channel: string
  // Entries from other processes acted on here, and messages refused as malformed.
  received = 0
  refused = 0
  private refusedUnlogged = 0
  private batch: string[] = []
  private batchChars = 0
  // The deliveries here of the batch's broadcasts, and the end of those handed on before.
  private batchDeliveries: (() => void)[] = []
  private delivered: Promise<unknown> = Promise.resolve()
  private flushScheduled: NodeJS.Immediate | null = null
  // Settles with Redis's answer to the newest publish, or after PUBLISH_WAIT_MS (earlier ones
  // are answered before it).
  private lastSettled: Promise<void> | null = null
  private complainedAt = Number.NEGATIVE_INFINITY
  private readonly onUp = (role: 'publisher' | 'subscriber') => {
    if (role === 'subscriber') this.catchUp()
  }

  constructor(
    private readonly server: CableServer,
    private readonly link: RedisLink,
    private readonly log: FastifyBaseLogger,
  ) {
    this.channel = `${link.name('broadcasts')}:${this.origin}`
  }

  // Listens (before the link starts, so that 'up' means heard) and takes over the server's
  // outgoing broadcasts.
  start(): void {
    this.link.subscribePatterns(othersPatterns(`${this.link.name('broadcasts')}:`, this.origin), (bytes) => this.receiveBytes(bytes))
    this.link.on('up', this.onUp)
    this.server.relayThrough(this)
  }

  stop(): void {
    this.server.relayThrough(null)
    this.link.off('up', this.onUp)
    this.flush()
  }

  broadcast(stream: string, message: unknown, deliverHere: () => void): void {
    this.send(entryOf(JSON.stringify(stream), message), deliverHere)
  }

  broadcastMany(streams: readonly string[], message: unknown, deliverHere: () => void): void {
    this.send(entryOf(JSON.stringify(streams), message), deliverHere)
  }

  noticeUnread(notice: UnreadNotice, deliverHere: () => void): void {
    this.send(`["n",${notice.roomId},${JSON.stringify(notice.at)},${notice.shared},${JSON.stringify(notice.userIds)}]`, deliverHere)
  }

  noticeRead(userId: number, roomId: number, deliverHere: () => void): void {
    this.send(`["r",${userId},${roomId}]`, deliverHere)
  }

  disconnectUser(userId: number, options: DisconnectOptions): void {
    this.send(`["d",${userId},${options.reconnect === true},${JSON.stringify(options.reason ?? DISCONNECT_REASONS.remote)}]`)
  }

  unsubscribeUserFromRoom(userId: number, roomId: number): void {
    this.send(`["u",${userId},${roomId}]`)
  }

  // Resolves once Redis has answered every publish so far (what is still batched goes now), or
  // after PUBLISH_WAIT_MS; null (nothing to wait for) when nothing is waiting, or Redis is not
  // answering.
  published(): Promise<void> | null {
    this.flush()
    return this.link.answering ? this.lastSettled : null
  }

  receiveBytes(bytes: Buffer): void {
    if (bytes.length > MAX_MESSAGE_BYTES) return this.refuse(bytes.subarray(0, 120).toString(), bytes.length, 'too large')
    this.receive(bytes.toString('utf8'))
  }

  // A message is taken whole or not at all: anything on the channels that is not made of the
  // entries above is refused and logged, and nothing from Redis can throw past here.
  receive(message: string): void {
    const entries = parseEntries(message)
    if (entries === null) return this.refuse(message, message.length, 'malformed')
    for (const entry of entries) {
      this.act(entry)
      this.received++
    }
  }

  private act(entry: Entry): void {
    if (entry.kind === 'broadcast') {
      if (typeof entry.target === 'string') this.server.deliverHere(entry.target, entry.json)
      else this.server.deliverManyHere(entry.target, entry.json)
    } else if (entry.kind === 'unread') this.server.deliverUnreadHere(entry.notice)
    else if (entry.kind === 'read') this.server.deliverReadHere(entry.userId, entry.roomId)
    else if (entry.kind === 'disconnect') this.server.disconnectUserHere(entry.userId, { reconnect: entry.reconnect, reason: entry.reason })
    else this.server.unsubscribeUserFromRoomHere(entry.userId, entry.roomId)
  }

  private send(entry: string, deliverHere?: () => void): void {
    if (entry.length > MAX_MESSAGE_BYTES) {
      this.log.error({ chars: entry.length }, 'cable relay: broadcast too large to relay; other processes will not hear it')
      // Still delivered here, after what was broadcast before it (the batch goes first).
      if (deliverHere) {
        this.flush()
        this.deliverAfter([deliverHere], null)
      }
      return
    }
    if (this.batchChars + entry.length > BATCH_CHARS) this.flush()
    this.batch.push(entry)
    if (deliverHere) this.batchDeliveries.push(deliverHere)
    this.batchChars += entry.length + 1
    if (this.batchChars >= BATCH_CHARS) this.flush()
    else this.flushScheduled ??= setImmediate(this.flush)
  }

  private readonly flush = (): void => {
    if (this.flushScheduled !== null) clearImmediate(this.flushScheduled)
    this.flushScheduled = null
    if (this.batch.length === 0) return
    const message = this.batch.length === 1 ? this.batch[0]! : this.batch.join('\n')
    const deliveries = this.batchDeliveries
    this.batch = []
    this.batchDeliveries = []
    this.batchChars = 0
    const answer = this.link.publish(this.channel, message)
    const settled = answer === null ? null : this.settle(answer)
    if (deliveries.length > 0) this.deliverAfter(deliveries, settled)
  }

  // One timer per publish, however many writes wait for it; none while Redis is not answering
  // (the publish still goes, and reaches the others if Redis resumes).
  private settle(answer: Promise<boolean>): Promise<void> | null {
    if (!this.link.answering) return null
    const settled = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, PUBLISH_WAIT_MS)
      void answer.then(() => {
        clearTimeout(timer)
        resolve()
      })
    })
    this.lastSettled = settled
    void settled.then(() => {
      if (this.lastSettled === settled) this.lastSettled = null
    })
    return settled
  }

  // Runs the deliveries after those handed on before, once `answer` has settled (what Redis
  // refused, never got or has not answered in PUBLISH_WAIT_MS is delivered here all the same).
  private deliverAfter(deliveries: (() => void)[], answer: Promise<void> | null): void {
    const run = () => {
      for (const deliver of deliveries) {
        try {
          deliver()
        } catch (err) {
          this.log.error({ err }, 'cable relay: a delivery here failed')
        }
      }
    }
    this.delivered = (answer === null ? this.delivered : Promise.all([this.delivered, answer])).then(run)
  }

  private catchUp(): void {
    const sockets = this.server.reconnectEveryone()
    if (sockets > 0) this.log.info({ sockets }, 'cable relay: listening again; told every socket here to reconnect and catch up')
  }

  private refuse(message: string, size: number, why: string): void {
    this.refused++
    this.refusedUnlogged++
    const now = Date.now()
    if (now - this.complainedAt < COMPLAINT_INTERVAL_MS) return
    this.log.warn({ why, size, start: message.slice(0, 120), refused: this.refusedUnlogged }, 'cable relay: ignored a message on the channel')
    this.complainedAt = now
    this.refusedUnlogged = 0
  }
}

// A string goes as it is, anything else as JSON (which never holds a raw newline).
function entryOf(targetJson: string, message: unknown): string {
  return typeof message === 'string' ? `["s",${targetJson},${message.length}]\n${message}` : `["j",${targetJson}]\n${JSON.stringify(message)}`
}

type Entry =
  // `json`: the message as the sockets are sent it, encoded on first use.
  | { kind: 'broadcast'; target: string | readonly string[]; json: () => string }
  | { kind: 'disconnect'; userId: number; reconnect: boolean; reason: DisconnectReason }
  | { kind: 'unsubscribe'; userId: number; roomId: number }
  | { kind: 'unread'; notice: UnreadNotice }
  | { kind: 'read'; userId: number; roomId: number }

// The entries of a message, or null when any of it is not what it should be.
function parseEntries(message: string): Entry[] | null {
  const entries: Entry[] = []
  for (let at = 0; at < message.length; ) {
    const headerEnd = lineEnd(message, at)
    const header = parseJson(message.slice(at, headerEnd))
    at = headerEnd + 1
    if (!Array.isArray(header)) return null
    const [kind, a, b, c] = header as unknown[]
    if ((kind === 's' || kind === 'j') && (typeof a === 'string' || isStringArray(a))) {
      if (at > message.length) return null
      let body: string
      if (kind === 's') {
        if (header.length !== 3 || !isLength(b) || at + b > message.length || (at + b < message.length && message[at + b] !== '\n')) return null
        body = message.slice(at, at + b)
        at += b + 1
      } else {
        if (header.length !== 2) return null
        const bodyEnd = lineEnd(message, at)
        body = message.slice(at, bodyEnd)
        at = bodyEnd + 1
        if (parseJson(body) === undefined) return null
      }
      entries.push({ kind: 'broadcast', target: a, json: kind === 's' ? lazyJson(body) : () => body })
    } else if (kind === 'd' && header.length === 4 && isId(a) && typeof b === 'boolean' && typeof c === 'string' && REASONS.has(c)) {
      entries.push({ kind: 'disconnect', userId: a, reconnect: b, reason: c as DisconnectReason })
    } else if (kind === 'u' && header.length === 3 && isId(a) && isId(b)) {
      entries.push({ kind: 'unsubscribe', userId: a, roomId: b })
    } else if (kind === 'n' && header.length === 5 && isId(a) && typeof b === 'number' && Number.isFinite(b) && typeof c === 'boolean' && isIdArray(header[4])) {
      entries.push({ kind: 'unread', notice: { roomId: a, at: b, shared: c, userIds: header[4] } })
    } else if (kind === 'r' && header.length === 3 && isId(a) && isId(b)) {
      entries.push({ kind: 'read', userId: a, roomId: b })
    } else return null
  }
  return entries.length > 0 ? entries : null
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from)
  return newline === -1 ? text.length : newline
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}

function isIdArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every(isId)
}

function isLength(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}
