import { randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { RedisLink, RedisRole } from '../lib/redis-link.ts'
import { DISCONNECT_REASONS, type DisconnectReason } from './protocol.ts'
import type { CableServer, DisconnectOptions, Relay } from './server.ts'

// Broadcasts across processes, through one Redis channel (campfire_<env>:campfire-ts:broadcasts).
//
// While Redis carries them (both connections up), a broadcast is not delivered here at once:
// it is published, one entry per broadcast call (an unread notice names all 10,003 members'
// streams in one entry, not one each), and every process, this one included, delivers it when
// it hears it, through the same path, framing it once for its sockets. One channel carries
// everything, so every process delivers in the one order Redis gave, and a write's response
// waits until Redis has answered its publish (published(), awaited by the cable plugin before
// a non-GET response leaves): a post acknowledged by one worker is ahead, on every socket, of
// a post sent after that acknowledgement to another. Revocations are acted on here at once
// and published for the others.
//
// A message is one or more entries, one a line or two: a JSON header starting with the origin
// and, for a broadcast, the broadcast's JSON on the next line (JSON never holds a raw newline).
// The body is encoded once by the sender and handed to the framing as it is by receivers:
//   ["<origin>","b","<stream>"]  + <message>          one stream
//   ["<origin>","m",["<stream>",...]]  + <message>    many streams
//   "B" and "M" as "b" and "m", already delivered by the sender (sent while Redis was not
//   carrying: only the others deliver them)
//   ["<origin>","d",<user id>,<reconnect>,"<reason>"]  disconnect a person
//   ["<origin>","u",<user id>,<room id>]              drop a person's subscriptions to a room
//
// When Redis goes away, broadcasts are delivered here at once again (as one process does),
// posts carry on and nothing waits for Redis; what other processes sent meanwhile is lost to
// this one's sockets. So whenever the listening connection comes back, every socket here is
// told to reconnect (as on a restart): the page re-subscribes and asks for what it missed
// (refresh_room_controller's refresh on reconnection). A lone process with REDIS_URL does
// this too, since it cannot know whether others exist.

// Far beyond any real broadcast (10,003 stream names are ~450 KB), well under what Redis
// lets a subscriber fall behind by (client-output-buffer-limit pubsub, 32 MB).
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024
// What one process sends in one turn goes as one message (up to 64 KB of entries): a post's
// message and unread notice, a burst of navigations' read notices. Each publish costs a write
// to Redis, its answer, and a wakeup of every listening process, whatever its size (30-80 µs
// of CPU on a VM), against a few microseconds for the entry itself.
const BATCH_CHARS = 64 * 1024
// How long a write's response waits for Redis to answer its broadcasts' publish.
const PUBLISH_WAIT_MS = 250
const COMPLAINT_INTERVAL_MS = 5000
// Own messages remembered until heard; a listener that far behind is caught up by decoding.
const MAX_UNHEARD = 4096
const REASONS: ReadonlySet<string> = new Set(Object.values(DISCONNECT_REASONS))

export class CableRelay implements Relay {
  readonly channel: string
  // Entries from other processes acted on here, and messages refused as malformed.
  received = 0
  refused = 0
  private readonly origin = `${process.pid}-${randomBytes(6).toString('hex')}`
  private readonly ownPrefix: string
  private readonly ownPrefixBytes: Buffer
  private refusedUnlogged = 0
  private batch: string[] = []
  private batchChars = 0
  // What this process published and has not heard back yet, oldest first, with the broadcasts
  // to deliver when it does: its own messages are recognized by their bytes and acted on
  // without decoding or validating them again.
  private unheard: OwnMessage[] = []
  private batchDeliveries: Entry[] = []
  private flushScheduled: NodeJS.Immediate | null = null
  // Redis's answer to the newest publish (earlier ones are answered before it).
  private lastPublish: Promise<boolean> | null = null
  private complainedAt = Number.NEGATIVE_INFINITY
  private readonly onUp = (role: RedisRole) => {
    if (role === 'subscriber') this.catchUp()
  }
  // What was published while the listener was away will never be heard.
  private readonly onDown = (role: RedisRole) => {
    if (role === 'subscriber') this.unheard = []
  }

  constructor(
    private readonly server: CableServer,
    private readonly link: RedisLink,
    private readonly log: FastifyBaseLogger,
  ) {
    this.channel = link.name('broadcasts')
    this.ownPrefix = `["${this.origin}",`
    this.ownPrefixBytes = Buffer.from(this.ownPrefix)
  }

  // Listens (before the link starts, so that 'up' means heard) and takes over the server's
  // outgoing broadcasts.
  start(): void {
    this.link.subscribe(this.channel, (bytes) => this.receiveBytes(bytes))
    this.link.on('up', this.onUp)
    this.link.on('down', this.onDown)
    this.server.relayThrough(this)
  }

  stop(): void {
    this.server.relayThrough(null)
    this.link.off('up', this.onUp)
    this.link.off('down', this.onDown)
    this.flush()
  }

  // `deliveredHere`: sent while Redis was not carrying (this process delivered it itself), so
  // only the others deliver it when they hear it.
  broadcast(stream: string, messageJson: string, deliveredHere: boolean): void {
    this.send(`${this.ownPrefix}"${deliveredHere ? 'B' : 'b'}",${JSON.stringify(stream)}]\n${messageJson}`, deliveredHere ? null : { origin: this.origin, doneHere: false, kind: 'b', stream, json: messageJson })
  }

  broadcastMany(streams: readonly string[], messageJson: string, deliveredHere: boolean): void {
    this.send(`${this.ownPrefix}"${deliveredHere ? 'M' : 'm'}",${JSON.stringify(streams)}]\n${messageJson}`, deliveredHere ? null : { origin: this.origin, doneHere: false, kind: 'm', streams, json: messageJson })
  }

  disconnectUser(userId: number, options: DisconnectOptions): void {
    const reason = options.reason ?? DISCONNECT_REASONS.remote
    this.send(`${this.ownPrefix}"d",${userId},${options.reconnect === true},${JSON.stringify(reason)}]`)
  }

  unsubscribeUserFromRoom(userId: number, roomId: number): void {
    this.send(`${this.ownPrefix}"u",${userId},${roomId}]`)
  }

  // Whether a broadcast goes through Redis now (delivered here when heard), or only here.
  get carrying(): boolean {
    return this.link.carrying
  }

  // Resolves once Redis has answered every publish so far (what is still batched goes now), or
  // after PUBLISH_WAIT_MS, or at once when nothing is waiting.
  published(): Promise<void> | null {
    this.flush()
    const last = this.lastPublish
    if (last === null) return null
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, PUBLISH_WAIT_MS)
      void last.then(() => {
        clearTimeout(timer)
        if (this.lastPublish === last) this.lastPublish = null
        resolve()
      })
    })
  }

  receiveBytes(bytes: Buffer): void {
    if (bytes.length > MAX_MESSAGE_BYTES) return this.refuse(bytes.subarray(0, 120).toString(), bytes.length, 'too large')
    const own = this.heardOwn(bytes)
    if (own) {
      for (const entry of own.entries) this.act(entry)
      return
    }
    this.receive(bytes.toString('utf8'))
  }

  // The oldest unheard message of this process's equal to these bytes; those before it were
  // lost (a publish Redis refused) and are forgotten.
  private heardOwn(bytes: Buffer): OwnMessage | null {
    if (this.unheard.length === 0 || !bytes.subarray(0, this.ownPrefixBytes.length).equals(this.ownPrefixBytes)) return null
    const index = this.unheard.findIndex((own) => own.bytes.equals(bytes))
    if (index === -1) return null
    const own = this.unheard[index]!
    this.unheard.splice(0, index + 1)
    return own
  }

  // A message is taken whole or not at all: anything on the channel that is not made of the
  // entries above is refused and logged, and nothing from Redis can throw past here.
  // A process's own broadcasts are delivered when heard, unless it delivered them itself (sent
  // while Redis was not carrying); its own revocations were done at once.
  receive(message: string): void {
    const entries = parseEntries(message)
    if (entries === null) return this.refuse(message, message.length, 'malformed')
    for (const entry of entries) {
      if (entry.origin === this.origin && entry.doneHere) continue
      this.act(entry)
      if (entry.origin !== this.origin) this.received++
    }
  }

  private act(entry: Entry): void {
    if (entry.kind === 'b') this.server.deliverHere(entry.stream, entry.json)
    else if (entry.kind === 'm') this.server.deliverManyHere(entry.streams, entry.json)
    else if (entry.kind === 'd') this.server.disconnectUserHere(entry.userId, { reconnect: entry.reconnect, reason: entry.reason })
    else this.server.unsubscribeUserFromRoomHere(entry.userId, entry.roomId)
  }

  // `delivery`: what this process does with the entry when it hears it back (null: nothing).
  private send(entry: string, delivery: Entry | null = null): void {
    if (entry.length > MAX_MESSAGE_BYTES) {
      this.log.error({ chars: entry.length }, 'cable relay: broadcast too large to relay; other processes will not hear it')
      return
    }
    if (this.batchChars + entry.length > BATCH_CHARS) this.flush()
    this.batch.push(entry)
    if (delivery) this.batchDeliveries.push(delivery)
    this.batchChars += entry.length + 1
    if (this.batchChars >= BATCH_CHARS) this.flush()
    else this.flushScheduled ??= setImmediate(this.flush)
  }

  private readonly flush = (): void => {
    if (this.flushScheduled !== null) clearImmediate(this.flushScheduled)
    this.flushScheduled = null
    if (this.batch.length === 0) return
    // Encoded once: Redis is handed the bytes, and they are what this process recognizes.
    const bytes = Buffer.from(this.batch.length === 1 ? this.batch[0]! : this.batch.join('\n'))
    const entries = this.batchDeliveries
    this.batch = []
    this.batchDeliveries = []
    this.batchChars = 0
    const answer = this.link.publish(this.channel, bytes)
    if (answer === null) return
    this.lastPublish = answer
    if (this.unheard.length >= MAX_UNHEARD) this.unheard.shift()
    this.unheard.push({ bytes, entries })
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

interface OwnMessage {
  bytes: Buffer
  entries: Entry[]
}

type Entry = { origin: string; doneHere: boolean } & (
  | { kind: 'b'; stream: string; json: string }
  | { kind: 'm'; streams: readonly string[]; json: string }
  | { kind: 'd'; userId: number; reconnect: boolean; reason: DisconnectReason }
  | { kind: 'u'; userId: number; roomId: number }
)

// The entries of a message, or null when any line is not what it should be.
function parseEntries(message: string): Entry[] | null {
  const entries: Entry[] = []
  for (let at = 0; at < message.length; ) {
    const headerEnd = lineEnd(message, at)
    const header = parseJson(message.slice(at, headerEnd))
    at = headerEnd + 1
    if (!Array.isArray(header) || typeof header[0] !== 'string') return null
    const [origin, kind, a, b, c] = header as [string, ...unknown[]]
    if (kind === 'b' || kind === 'm' || kind === 'B' || kind === 'M') {
      if (header.length !== 3 || at > message.length) return null
      const bodyEnd = lineEnd(message, at)
      const json = message.slice(at, bodyEnd)
      at = bodyEnd + 1
      if (parseJson(json) === undefined) return null
      const doneHere = kind === 'B' || kind === 'M'
      if ((kind === 'b' || kind === 'B') && typeof a === 'string') entries.push({ origin, doneHere, kind: 'b', stream: a, json })
      else if ((kind === 'm' || kind === 'M') && isStringArray(a)) entries.push({ origin, doneHere, kind: 'm', streams: a, json })
      else return null
    } else if (kind === 'd' && header.length === 5 && isId(a) && typeof b === 'boolean' && typeof c === 'string' && REASONS.has(c)) {
      entries.push({ origin, doneHere: true, kind, userId: a, reconnect: b, reason: c as DisconnectReason })
    } else if (kind === 'u' && header.length === 4 && isId(a) && isId(b)) {
      entries.push({ origin, doneHere: true, kind, userId: a, roomId: b })
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

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}
