import type { FastifyBaseLogger } from 'fastify'
import type { WebSocket } from 'ws'
import type { RailsSigning } from '../lib/rails/signing.ts'
import type { Store } from '../models/store.ts'
import type { CableUser, Channel, ChannelClass } from './channel.ts'
import { CableConnection, type ConnectionHost } from './connection.ts'
import { account, enter, tally } from '../lib/cpu-ledger.ts'
import { OneOrManyMap } from './one-or-many.ts'
import { readRoomsStream as readStreamOf, unreadRoomsStream as unreadStreamOf } from './user-streams.ts'
import { wireTextFrame } from './wire-frame.ts'
import { DISCONNECT_REASONS, LIMITS, messageFrame, ping, WELCOME, type DisconnectReason, type Limits } from './protocol.ts'

const MAX_INTERNED = 100_000
// How many parts a beat interval is cut into; each socket is pinged in one of them.
const BEAT_SLICES = 10
// The CPU ledger's accounts (lib/cpu-ledger.ts): broadcasts framed and queued per socket
// (counted per socket), their writes (counted per socket written), and the heartbeat.
const FAN_OUT = account('fan-out deliveries')
const SOCKET_WRITES = account('fan-out socket writes')
const HEARTBEAT = account('cable heartbeat')
const PING_NOTICES = account('unread notices of Pings')

interface JoinNode {
  next: Map<Buffer, JoinNode>
  bytes: Buffer | null
}

export interface CableServerOptions {
  store: Store
  signing: RailsSigning
  log: FastifyBaseLogger
  // The channels a client may name in its identifier, by their Rails class names
  // (channels/index.ts); handed in so the server and its connections never import a channel.
  channels: ReadonlyMap<string, ChannelClass>
  limits?: Partial<Limits>
  // Rails beats every 3 s; the client reconnects after about 6 s without a frame.
  beatIntervalMs?: number
  // Every this many beats each socket is pinged at the WebSocket level, and one that did not
  // answer the previous ping is terminated.
  livenessBeats?: number
}

export interface DisconnectOptions {
  reconnect?: boolean
  reason?: DisconnectReason
}

// Where this process's broadcasts and revocations go beyond it (relay.ts, when REDIS_URL is
// set). A broadcast is handed over with its delivery to the sockets here, which the relay runs
// once Redis has taken it (at once when Redis is away), in the order broadcasts were made: the
// answer to the write that made it then leaves ahead of the fan-out. Revocations are done here
// first and handed over for the others.
export interface Relay {
  broadcast(stream: string, message: unknown, deliverHere: () => void): void
  broadcastMany(streams: readonly string[], message: unknown, deliverHere: () => void): void
  noticeUnread(notice: UnreadNotice, deliverHere: () => void): void
  noticeRead(userId: number, roomId: number, deliverHere: () => void): void
  disconnectUser(userId: number, options: DisconnectOptions): void
  unsubscribeUserFromRoom(userId: number, roomId: number): void
}

// A message as the sockets are sent it: its JSON, made the first time a socket needs it, so a
// broadcast nobody here subscribes to is never encoded.
export function lazyJson(message: unknown): () => string {
  let json: string | undefined
  return () => (json ??= JSON.stringify(message))
}

// A new message in a room, told to each member on their own unread stream (UnreadRoomsChannel)
// as {"roomId","at"}. `shared` (open and closed rooms) is told to a socket once, until that socket
// shows the room again (connection.ts, admitUnreadNotice); a direct room's every notice goes out,
// since each moves the Ping to the front of the list.
export interface UnreadNotice {
  roomId: number
  at: number
  shared: boolean
  userIds: readonly number[]
}

export interface CableStats {
  connections: number
  users: number
  streams: number
  subscriptions: number
}

// The registry: connections by user, and streams → subscribed channels. A publication is
// serialised once, and framed once per distinct identifier string, so every subscriber with
// the same identifier is sent the very same Buffer.
export class CableServer implements ConnectionHost {
  readonly limits: Limits
  readonly store: Store
  readonly signing: RailsSigning
  readonly log: FastifyBaseLogger
  readonly channels: ReadonlyMap<string, ChannelClass>
  private readonly connections = new Set<CableConnection>()
  private readonly byUser = new OneOrManyMap<number, CableConnection>()
  private readonly streams = new OneOrManyMap<string, Channel>()
  private flushing: CableConnection[] = []
  private flushesUnderWay = 0
  private joins: JoinNode = { next: new Map(), bytes: null }
  private readonly strings = new Map<string, string>()
  private readonly beatIntervalMs: number
  private readonly livenessBeats: number
  private timer: NodeJS.Timeout | null = null
  private beats = 0
  private ticks = 0
  private nextSlot = 0
  private relay: Relay | null = null
  // Frames queued for sockets here (one per subscriber a broadcast reached) and the socket
  // writes that carried them (one per socket per turn), since boot.
  readonly fanOut = { deliveries: 0, socketWrites: 0 }

  constructor(options: CableServerOptions) {
    this.store = options.store
    this.signing = options.signing
    this.log = options.log
    this.channels = options.channels
    this.limits = { ...LIMITS, ...options.limits }
    this.beatIntervalMs = options.beatIntervalMs ?? 3000
    this.livenessBeats = options.livenessBeats ?? 10
  }

  // Takes over an authenticated socket and welcomes it.
  accept(socket: WebSocket, user: CableUser, log: FastifyBaseLogger = this.log): CableConnection {
    const connection = new CableConnection(socket, user, this, log)
    connection.beatSlot = this.nextSlot++ % BEAT_SLICES
    this.connections.add(connection)
    this.byUser.add(user.id, connection)
    connection.send(WELCOME)
    return connection
  }

  removeConnection(connection: CableConnection): void {
    this.connections.delete(connection)
    this.byUser.delete(connection.user.id, connection)
  }

  addSubscriber(stream: string, channel: Channel): void {
    this.streams.add(stream, channel)
  }

  removeSubscriber(stream: string, channel: Channel): void {
    this.streams.delete(stream, channel)
  }

  // Every other process hears of what this one broadcasts and revokes through the relay;
  // null (one process, no Redis) keeps it all here.
  relayThrough(relay: Relay | null): void {
    this.relay = relay
  }

  // Returns how many sockets here are written to (with a relay, once Redis has taken it).
  broadcast(stream: string, message: unknown): number {
    const json = lazyJson(message)
    const relay = this.relay
    if (relay === null) return this.deliverHere(stream, json)
    relay.broadcast(stream, message, () => this.deliverHere(stream, json))
    return this.streams.count(stream)
  }

  // One message to many streams in one pass (an unread notice to every member of a room).
  broadcastMany(streams: Iterable<string>, message: unknown): number {
    const json = lazyJson(message)
    const relay = this.relay
    if (relay === null) return this.deliverManyHere(streams, json)
    const names = Array.isArray(streams) ? (streams as string[]) : [...streams]
    relay.broadcastMany(names, message, () => this.deliverManyHere(names, json))
    let subscribed = 0
    for (const name of names) subscribed += this.streams.count(name)
    return subscribed
  }

  // Returns how many sockets here are written to (with a relay, how many listen here).
  noticeUnread(notice: UnreadNotice): number {
    const relay = this.relay
    if (relay === null) return this.deliverUnreadHere(notice)
    relay.noticeUnread(notice, () => this.deliverUnreadHere(notice))
    let subscribed = 0
    for (const userId of notice.userIds) subscribed += this.streams.count(unreadStreamOf(userId))
    return subscribed
  }

  // This person read a room (became present in it): their other sockets mark it read, and each
  // of their sockets here will be told again when the room next turns unread.
  noticeRead(userId: number, roomId: number): number {
    const relay = this.relay
    if (relay === null) return this.deliverReadHere(userId, roomId)
    relay.noticeRead(userId, roomId, () => this.deliverReadHere(userId, roomId))
    return this.streams.count(readStreamOf(userId))
  }

  deliverUnreadHere(notice: UnreadNotice): number {
    const was = enter(FAN_OUT)
    const json = lazyJson({ roomId: notice.roomId, at: notice.at })
    const frames = new Map<string, Buffer>()
    let sent = 0
    for (const userId of notice.userIds) {
      const subscribers = this.streams.lookup(unreadStreamOf(userId))
      if (subscribers === undefined) continue
      if (!notice.shared) {
        const pinged = deliver(subscribers, json(), frames)
        tally(PING_NOTICES, pinged)
        sent += pinged
      } else if (!(subscribers instanceof Set)) sent += deliverOnce(subscribers as Channel, notice.roomId, json, frames)
      else for (const channel of subscribers) sent += deliverOnce(channel, notice.roomId, json, frames)
    }
    tally(FAN_OUT, sent)
    this.fanOut.deliveries += sent
    enter(was)
    return sent
  }

  deliverReadHere(userId: number, roomId: number): number {
    for (const connection of this.byUser.get(userId)) connection.forgetUnreadNotice(roomId)
    return this.deliverHere(readStreamOf(userId), lazyJson({ room_id: roomId }))
  }

  // A broadcast (this process's, or another's through the relay) to the sockets here.
  deliverHere(stream: string, json: () => string): number {
    const was = enter(FAN_OUT)
    const subscribers = this.streams.lookup(stream)
    const sent = subscribers ? deliver(subscribers, json(), new Map()) : 0
    tally(FAN_OUT, sent)
    this.fanOut.deliveries += sent
    enter(was)
    return sent
  }

  deliverManyHere(streams: Iterable<string>, json: () => string): number {
    const was = enter(FAN_OUT)
    const frames = new Map<string, Buffer>()
    let sent = 0
    for (const stream of streams) {
      const subscribers = this.streams.lookup(stream)
      if (subscribers) sent += deliver(subscribers, json(), frames)
    }
    tally(FAN_OUT, sent)
    this.fanOut.deliveries += sent
    enter(was)
    return sent
  }

  // Action Cable's remote disconnect: deactivated and banned people go for good; a revoked
  // membership reconnects, so the client re-subscribes and is authorized afresh. Their sockets
  // on every process are closed; the count is of those here.
  disconnectUser(userId: number, options: DisconnectOptions = {}): number {
    const here = this.disconnectUserHere(userId, options)
    this.relay?.disconnectUser(userId, options)
    return here
  }

  disconnectUserHere(userId: number, options: DisconnectOptions = {}): number {
    const mine = this.byUser.get(userId)
    for (const connection of mine) connection.disconnect(options.reason ?? DISCONNECT_REASONS.remote, options.reconnect ?? false)
    return mine.length
  }

  // The narrower alternative to disconnecting: the user's subscriptions about one room are
  // dropped (and rejected to the client) on every socket they have open, on every process.
  unsubscribeUserFromRoom(userId: number, roomId: number): number {
    const here = this.unsubscribeUserFromRoomHere(userId, roomId)
    this.relay?.unsubscribeUserFromRoom(userId, roomId)
    return here
  }

  unsubscribeUserFromRoomHere(userId: number, roomId: number): number {
    const mine = this.byUser.get(userId)
    for (const connection of mine) connection.revokeRoom(roomId)
    return mine.length
  }

  // Every socket here is told to come back, as on a restart: the client then re-subscribes and
  // refreshes what it shows, catching up on broadcasts this process could not hear.
  reconnectEveryone(): number {
    const connections = [...this.connections]
    for (const connection of connections) connection.disconnect(DISCONNECT_REASONS.serverRestart, true)
    return connections.length
  }

  subscribersOf(stream: string): number {
    return this.streams.count(stream)
  }

  stats(): CableStats {
    let subscriptions = 0
    for (const connection of this.connections) subscriptions += connection.subscriptionCount
    return { connections: this.connections.size, users: this.byUser.size, streams: this.streams.size, subscriptions }
  }

  // Thousands of sockets subscribe with the same identifiers and stream names; keeping one
  // copy of each string instead of one per subscription saves kilobytes per socket.
  intern(text: string): string {
    const known = this.strings.get(text)
    if (known !== undefined) return known
    if (this.strings.size >= MAX_INTERNED) this.strings.clear()
    this.strings.set(text, text)
    return text
  }

  // A broadcast writes to many sockets. Each holds its frames until the current work is done
  // and then writes them at once, so a post costs one write per socket instead of one per frame.
  flushSoon(connection: CableConnection): void {
    this.flushing.push(connection)
    if (this.flushing.length === 1) setImmediate(() => this.flushAll())
  }

  // The frames of one sequence joined into one Buffer, made once per turn and shared by every
  // socket that was sent that sequence (the same frame objects in the same order).
  joined(frames: Buffer[]): Buffer {
    let node = this.joins
    for (const frame of frames) {
      let next = node.next.get(frame)
      if (!next) node.next.set(frame, (next = { next: new Map(), bytes: null }))
      node = next
    }
    return (node.bytes ??= Buffer.concat(frames))
  }

  // A fan-out to many sockets is written limits.flushChunk sockets per turn, so one post to a
  // big room doesn't stall every request behind it. A socket waiting for its chunk keeps adding
  // to its own pending frames, in order, and is written once.
  private flushAll(): void {
    const flushing = this.flushing
    this.flushing = []
    this.flushesUnderWay++
    this.flushFrom(flushing, 0)
  }

  private flushFrom(flushing: CableConnection[], from: number): void {
    const end = Math.min(flushing.length, from + Math.max(1, this.limits.flushChunk))
    const was = enter(SOCKET_WRITES)
    tally(SOCKET_WRITES, end - from)
    this.fanOut.socketWrites += end - from
    for (let i = from; i < end; i++) flushing[i]!.flush()
    enter(was)
    if (end < flushing.length) {
      setImmediate(() => this.flushFrom(flushing, end))
      return
    }
    // The joined sequences are kept while any fan-out is still being written.
    if (--this.flushesUnderWay === 0) this.joins = { next: new Map(), bytes: null }
  }

  // One timer for every socket. Each socket is pinged once per beat interval, as Action Cable
  // does, but in its own slice of the interval: 3,000 sockets cost ten bursts of 300 writes
  // rather than one of 3,000, which held every request behind it for tens of milliseconds.
  start(): void {
    if (this.timer) return
    this.timer = setInterval(() => this.beatSlice(), Math.max(1, this.beatIntervalMs / BEAT_SLICES))
    this.timer.unref()
  }

  // Pings every socket now (one whole beat).
  beat(): void {
    for (let slice = 0; slice < BEAT_SLICES; slice++) this.beatSlice()
  }

  private beatSlice(): void {
    const slice = this.ticks++ % BEAT_SLICES
    if (slice === 0) this.beats++
    const checkLiveness = this.beats % this.livenessBeats === 0
    const frame = wireTextFrame(ping(Math.floor(Date.now() / 1000)))
    const was = enter(HEARTBEAT)
    for (const connection of this.connections) {
      if (connection.beatSlot !== slice) continue
      if (checkLiveness && !this.stillAlive(connection)) continue
      connection.sendWire(frame)
    }
    enter(was)
  }

  // On shutdown everyone is told to come back (server_restart), as Rails does, and sockets
  // that do not finish closing within the grace period are cut.
  async shutdown(graceMs = 1000): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    const connections = [...this.connections]
    for (const connection of connections) connection.disconnect(DISCONNECT_REASONS.serverRestart, true)
    const cut = setTimeout(() => connections.forEach((connection) => connection.socket.terminate()), graceMs)
    await Promise.all(connections.map((connection) => connection.finished))
    clearTimeout(cut)
  }

  private stillAlive(connection: CableConnection): boolean {
    if (!connection.alive) {
      this.log.info({ user: connection.user.id }, 'cable: no pong, terminating')
      connection.socket.terminate()
      return false
    }
    connection.alive = false
    if (connection.isOpen) connection.socket.ping()
    return true
  }
}

function deliver(subscribers: Channel | ReadonlySet<Channel>, messageJson: string, frames: Map<string, Buffer>): number {
  if (!(subscribers instanceof Set)) return deliverTo(subscribers as Channel, messageJson, frames)
  let sent = 0
  for (const channel of subscribers) sent += deliverTo(channel, messageJson, frames)
  return sent
}

function deliverOnce(channel: Channel, roomId: number, json: () => string, frames: Map<string, Buffer>): number {
  return channel.connection.admitUnreadNotice(roomId) ? deliverTo(channel, json(), frames) : 0
}

function deliverTo(channel: Channel, messageJson: string, frames: Map<string, Buffer>): number {
  let frame = frames.get(channel.identifier)
  if (!frame) frames.set(channel.identifier, (frame = wireTextFrame(messageFrame(channel.identifierJson, messageJson))))
  return channel.connection.sendWire(frame) ? 1 : 0
}
