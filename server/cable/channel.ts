import { globalIdParam } from '../lib/rails/signing.ts'
import type { Outcome } from './command-queue.ts'
import type { CableConnection } from './connection.ts'
import { messageFrame } from './protocol.ts'

export interface RoomRef {
  id: number
  type: string
}

export type ChannelParams = Record<string, unknown>

const NO_STREAMS: readonly string[] = Object.freeze([])
const NO_PARAMS: ChannelParams = Object.freeze({})

export interface ChannelClass {
  new (connection: CableConnection, identifier: string, params: ChannelParams): Channel
}

// A subscription: one identifier on one connection. Subclasses decide in `subscribed` whether
// to stream or reject, and list the client actions they answer to.
export abstract class Channel {
  // The name stream_for prefixes to a record's GlobalID ("presence", "typing_notifications").
  static channelName = ''
  // Client actions (`perform`) this channel answers; anything else is logged and ignored.
  static actions: ReadonlySet<string> = new Set()

  // Nearly every subscription streams from exactly one stream: an exact-size array, not a Set.
  streams: readonly string[] = NO_STREAMS
  // The room a subscription is about, so a revoked membership can find it.
  roomId: number | null = null
  private rejected = false

  constructor(
    readonly connection: CableConnection,
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
    if (this.streams.includes(stream)) return
    this.streams = this.streams.length === 0 ? [stream] : [...this.streams, stream]
    this.server.addSubscriber(stream, this)
  }

  // Rails' stream_for: "<channel name>:<record GlobalID param>".
  protected streamFor(room: RoomRef): void {
    this.streamFrom(broadcastingFor((this.constructor as typeof Channel).channelName, room))
  }

  stopAllStreams(): void {
    for (const stream of this.streams) this.server.removeSubscriber(stream, this)
    this.streams = NO_STREAMS
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
