import type { FastifyBaseLogger } from 'fastify'
import { globalIdParam, type RailsSigning } from '../lib/rails/signing.ts'
import type { Store } from '../models/store.ts'
import type { Outcome } from './command-queue.ts'
import { messageFrame } from './protocol.ts'

// The cable's layers, lowest first: protocol, wire-frame, one-or-many and command-queue know
// nothing of the rest; this file is the base every channel extends, and it states what a
// channel needs from its connection and from the server as interfaces, so it imports neither;
// channels/* extend it and channels/index.ts names them; connection.ts runs one socket's
// subscriptions (given the channel registry, never importing it); server.ts holds the
// connections and streams; broadcasts.ts publishes through the server. Nothing imports upward.

export interface CableUser {
  id: number
  name: string
}

// What a channel uses of the server: the data, the signing keys, and the stream registry.
export interface ChannelHub {
  readonly store: Store
  readonly signing: RailsSigning
  intern(text: string): string
  addSubscriber(stream: string, channel: Channel): void
  removeSubscriber(stream: string, channel: Channel): void
  broadcast(stream: string, message: unknown): number
  // This person read the room: their other tabs and devices hear it on ReadRoomsChannel.
  noticeRead(userId: number, roomId: number): number
}

// What a channel (and a delivery to it) uses of the connection it belongs to.
export interface ChannelConnection {
  readonly user: CableUser
  readonly server: ChannelHub
  readonly log: FastifyBaseLogger
  send(frame: string | Buffer): boolean
  sendWire(frame: Buffer): boolean
  // Spends one of the connection's typing-notice tokens: false means drop this notice.
  admitTypingNotice(): boolean
  // Whether an unread notice for this open or closed room changes anything on this socket's
  // page (connection.ts), and forgetting what it was told.
  admitUnreadNotice(roomId: number): boolean
  forgetUnreadNotice(roomId: number): void
  forgetUnreadNotices(): void
}

export interface RoomRef {
  id: number
  type: string
}

export type ChannelParams = Record<string, unknown>

const NO_STREAMS: readonly string[] = Object.freeze([])
const NO_PARAMS: ChannelParams = Object.freeze({})

export interface ChannelClass {
  new (connection: ChannelConnection, identifier: string, params: ChannelParams): Channel
}

// A subscription: one identifier on one connection. Subclasses decide in `subscribed` whether
// to stream or reject, and list the client actions they answer to.
export abstract class Channel {
  // The name stream_for prefixes to a record's GlobalID ("presence", "typing_notifications").
  static channelName = ''
  // Client actions (`perform`) this channel answers; anything else is logged and ignored.
  static actions: ReadonlySet<string> = new Set()

  // Nearly every subscription streams from exactly one stream: its name alone, not an array of
  // one (with 10,000 sockets of six subscriptions, 56 bytes each is 3 MB).
  private streaming: string | readonly string[] | null = null
  // The room a subscription is about, so a revoked membership can find it.
  roomId: number | null = null
  private rejected = false

  constructor(
    readonly connection: ChannelConnection,
    readonly identifier: string,
    // The identifier's parameters, needed only until the subscription is answered.
    public params: ChannelParams,
  ) {}

  // The identifier as a JSON string, for framing; deliveries cache the frame per broadcast.
  get identifierJson(): string {
    return JSON.stringify(this.identifier)
  }

  // Once confirmed or rejected a subscription never reads its parameters again (the signed
  // stream name alone is ~150 bytes a socket).
  forgetParams(): void {
    this.params = NO_PARAMS
  }

  get streams(): readonly string[] {
    const held = this.streaming
    return held === null ? NO_STREAMS : typeof held === 'string' ? [held] : held
  }

  get user() {
    return this.connection.user
  }

  get server() {
    return this.connection.server
  }

  get isRejected(): boolean {
    return this.rejected
  }

  subscribed(): Outcome {}

  unsubscribed(): Outcome {}

  perform(action: string, data: Record<string, unknown>): Outcome {
    const actions = (this.constructor as typeof Channel).actions
    if (this.rejected || !actions.has(action)) {
      this.connection.log.warn({ identifier: this.identifier.slice(0, 200), action }, 'cable: unable to process action')
      return
    }
    return this.dispatch(action, data)
  }

  protected dispatch(_action: string, _data: Record<string, unknown>): Outcome {}

  protected reject(): void {
    this.rejected = true
  }

  protected streamFrom(name: string): void {
    const stream = this.server.intern(name)
    const held = this.streaming
    if (held === stream || (typeof held === 'object' && held !== null && held.includes(stream))) return
    this.streaming = held === null ? stream : typeof held === 'string' ? [held, stream] : [...held, stream]
    this.server.addSubscriber(stream, this)
  }

  // Rails' stream_for: "<channel name>:<record GlobalID param>".
  protected streamFor(room: RoomRef): void {
    this.streamFrom(broadcastingFor((this.constructor as typeof Channel).channelName, room))
  }

  stopAllStreams(): void {
    const held = this.streaming
    this.streaming = null
    if (typeof held === 'string') this.server.removeSubscriber(held, this)
    else if (held !== null) for (const stream of held) this.server.removeSubscriber(stream, this)
  }

  transmit(message: unknown): boolean {
    return this.connection.send(messageFrame(this.identifierJson, JSON.stringify(message)))
  }
}

export function broadcastingFor(channelName: string, room: RoomRef): string {
  return `${channelName}:${globalIdParam(room.type, room.id)}`
}

// Record ids arrive as JSON numbers from the page and as strings from hand-written clients.
export function recordId(value: unknown): number | null {
  const id = typeof value === 'string' && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : value
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : null
}
