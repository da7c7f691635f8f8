import type { FastifyBaseLogger } from 'fastify'
import type { Socket } from 'node:net'
import type { RawData, WebSocket } from 'ws'
import type { CableUser, Channel, ChannelClass, ChannelConnection, ChannelHub } from './channel.ts'
import { CommandQueue, type CommandHandler, type Outcome } from './command-queue.ts'
import { confirmation, disconnect, invalidCommand, isObject, parseCommand, parseIdentifier, rejection, type Command, type DisconnectReason, type Limits } from './protocol.ts'
import { account, enter, tally } from '../lib/cpu-ledger.ts'
import { TokenBucket } from '../lib/token-bucket.ts'
import { logWriteFailure } from '../lib/disk-space.ts'

// What a connection uses of the server (CableServer implements it). The channel registry comes
// from here rather than being imported, so this file never reaches up to the channels.
export interface ConnectionHost extends ChannelHub {
  readonly limits: Limits
  readonly channels: ReadonlyMap<string, ChannelClass>
  flushSoon(connection: CableConnection): void
  joined(frames: Buffer[]): Buffer
  removeConnection(connection: CableConnection): void
}

// Commands the server itself slips into a connection's queue, so they keep their place
// among the client's own.
type Revoke = { command: 'revoke'; roomId: number }

const TEXT = { binary: false }
// Counted, not timed (the CPU ledger's events per navigation): the unread notices for shared
// rooms let through to a socket showing the room (joined into the same write as the message),
// and to one elsewhere (a write of its own, once per visit; see admitUnreadNotice).
const NOTICES_SHOWN = account('unread notices to sockets showing the room')
const NOTICES_ELSEWHERE = account('unread notices to sockets elsewhere')
const SLOW_CONSUMER = 1013
const POLICY_VIOLATION = 1008
const SLOW_CONSUMER_GRACE_MS = 1000

// The socket's listeners are shared by every socket; each finds its connection here. With
// 10,000 sockets, per-socket closures and their contexts add up to megabytes.
const CONNECTIONS = new WeakMap<WebSocket, CableConnection>()

// The CPU ledger's accounts (lib/cpu-ledger.ts): frames read, and each kind of command.
const FRAMES = account('cable frames')
const COMMANDS = {
  subscribe: account('cable subscribe'),
  unsubscribe: account('cable unsubscribe'),
  message: account('cable message'),
  revoke: account('cable revoke'),
}

function onMessage(this: WebSocket, data: RawData, isBinary: boolean): void {
  const was = enter(FRAMES)
  tally(FRAMES)
  CONNECTIONS.get(this)?.receive(data, isBinary)
  enter(was)
}

function onPong(this: WebSocket): void {
  const connection = CONNECTIONS.get(this)
  if (connection) connection.alive = true
}

function onClose(this: WebSocket): void {
  CONNECTIONS.get(this)?.closed()
}

// One socket: its user, its subscriptions (identifier strings, verbatim, in an array: a page
// makes about six) and its command queue. Listeners are attached in the constructor,
// synchronously at the upgrade, so no early frame is lost.
export class CableConnection implements CommandHandler<Command | Revoke>, ChannelConnection {
  private subscriptions: Channel[] = []
  alive = true
  // Which slice of the beat interval this socket is pinged in (CableServer.beatSlice).
  beatSlot = 0
  private pending: Buffer | Buffer[] | null = null
  private closing = false
  private malformed = 0
  // Open and closed rooms this socket was sent an unread notice for and has not shown since
  // (admitUnreadNotice); made on the first notice.
  private noticed: Set<number> | null = null
  // Made on the first typing notice: most sockets never send one.
  private typing: { notices: TokenBucket; overrun: TokenBucket } | null = null
  private readonly queue: CommandQueue<Command | Revoke>
  private readonly raw: Socket | null
  private done: Promise<void> | null = null

  constructor(
    readonly socket: WebSocket,
    readonly user: CableUser,
    readonly server: ConnectionHost,
    readonly log: FastifyBaseLogger,
  ) {
    this.queue = new CommandQueue(this, server.limits)
    this.raw = (socket as unknown as { _socket?: Socket })._socket ?? null
    CONNECTIONS.set(socket, this)
    socket.on('message', onMessage)
    socket.on('pong', onPong)
    // 'close' comes once; `on` spares the wrapper that `once` allocates for every socket.
    socket.on('close', onClose)
  }

  static of(socket: WebSocket): CableConnection | undefined {
    return CONNECTIONS.get(socket)
  }

  get subscriptionCount(): number {
    return this.subscriptions.length
  }

  // Resolves once the socket has closed and every subscription has been cleaned up.
  get finished(): Promise<void> {
    if (this.done) return this.done
    // onClose was attached first, so by the time this listener runs `done` is set.
    return new Promise((resolve) => this.socket.on('close', () => resolve(this.done!)))
  }

  get isOpen(): boolean {
    return !this.closing && this.socket.readyState === this.socket.OPEN
  }

  // Every frame to this socket goes through here or sendWire, so order is the order of the
  // calls. A socket that stops reading is cut off rather than buffered for without limit.
  send(frame: string | Buffer): boolean {
    if (!this.isOpen) return false
    // Wire frames held for this turn were sent first, so they leave first.
    if (this.pending !== null) this.flush()
    if (!this.isOpen || this.tooSlow()) return false
    this.socket.send(frame, TEXT)
    return true
  }

  // A frame already in wire format (wire-frame.ts), shared by every recipient of a broadcast.
  // Frames are held until the current turn's work is done, then leave in one write (see
  // CableServer.flushSoon). They go straight to the TCP socket, behind anything ws itself has
  // written: without compression ws queues nothing of its own, so the order still holds.
  // Only this object is read here, so a broadcast to a thousand subscribers does not also visit
  // their ws and TCP objects: whether the socket is open and keeping up is checked at the flush.
  sendWire(frame: Buffer): boolean {
    if (this.closing) return false
    const pending = this.pending
    if (pending === null) {
      this.pending = frame
      this.server.flushSoon(this)
    } else if (Array.isArray(pending)) pending.push(frame)
    else this.pending = [pending, frame]
    return true
  }

  // What is still unsent from earlier turns says whether the client keeps up.
  private tooSlow(): boolean {
    if (this.socket.bufferedAmount <= this.server.limits.bufferedBytes) return false
    this.dropSlowConsumer()
    return true
  }

  // Writes the frames held this turn. Every member of a room is sent the same frames in the
  // same order, so the server joins each sequence once and every socket gets one Buffer and
  // one plain write, the cheapest path through Node's streams.
  flush(): void {
    const pending = this.pending
    if (pending === null) return
    this.pending = null
    if (!this.isOpen || this.tooSlow()) return
    const bytes = Array.isArray(pending) ? this.server.joined(pending) : pending
    if (this.raw) this.raw.write(bytes)
    else for (const frame of Array.isArray(pending) ? pending : [pending]) this.socket.send(unwrap(frame), TEXT)
  }

  // Rails' Connection#close: say why, then close the socket.
  disconnect(reason: DisconnectReason, reconnect: boolean, code = 1000): void {
    if (!this.isOpen) return
    this.send(disconnect(reason, reconnect))
    this.closing = true
    this.socket.close(code)
  }

  // Drops this user's subscriptions to one room, in order with their own commands.
  revokeRoom(roomId: number): void {
    this.queue.push({ command: 'revoke', roomId }, 0, true)
  }

  receive(data: RawData, isBinary: boolean): void {
    this.alive = true
    if (!this.isOpen) return
    if (isBinary) return this.refuse('binary frame', '')
    const text = rawText(data)
    const command = parseCommand(text)
    if (typeof command === 'string') return this.refuse(command, text)
    if (!this.queue.push(command, text.length)) {
      this.log.warn({ user: this.user.id, queued: this.queue.length }, 'cable: command queue overflow, disconnecting')
      this.disconnect('invalid_request', true, POLICY_VIOLATION)
    }
  }

  // One bucket paces the notices that are broadcast; a second, much larger one counts the
  // notices dropped, and a socket that empties it is flooding and goes, as one that keeps
  // sending malformed frames does. The second refills too, so a long session that now and then
  // outpaces the first by a notice never adds up to a disconnect.
  admitTypingNotice(): boolean {
    const limits = this.server.limits
    const now = performance.now()
    const typing = (this.typing ??= { notices: new TokenBucket(limits.typingBurst, now), overrun: new TokenBucket(limits.typingOverrun, now) })
    if (typing.notices.take(limits.typingPerSecond, limits.typingBurst, now)) return true
    if (!typing.overrun.take(limits.typingOverrunPerSecond, limits.typingOverrun, now) && this.isOpen) {
      this.log.warn({ user: this.user.id }, 'cable: typing notice flood, disconnecting')
      this.disconnect('invalid_request', false, POLICY_VIOLATION)
    }
    return false
  }

  // An unread notice for an open or closed room goes to a socket once: its page marks the room
  // unread, and another notice would change nothing until the room is shown again. So it goes
  // again once the socket subscribes to or leaves the room (a visit), after the person reads the
  // room anywhere (CableServer.noticeRead), after a hidden tab comes back (its sidebar reloads),
  // and always while the socket shows the room (a hidden tab marks even the room on screen).
  admitUnreadNotice(roomId: number): boolean {
    if (this.showsRoom(roomId)) {
      tally(NOTICES_SHOWN)
      return true
    }
    const noticed = (this.noticed ??= new Set())
    if (noticed.has(roomId)) return false
    noticed.add(roomId)
    tally(NOTICES_ELSEWHERE)
    return true
  }

  forgetUnreadNotice(roomId: number): void {
    this.noticed?.delete(roomId)
  }

  forgetUnreadNotices(): void {
    this.noticed = null
  }

  private showsRoom(roomId: number): boolean {
    for (const channel of this.subscriptions) if (channel.roomId === roomId) return true
    return false
  }

  private refuse(reason: string, text: string): void {
    this.log.warn({ user: this.user.id, reason, frame: text.slice(0, 200) }, 'cable: refused a malformed frame')
    if (++this.malformed > this.server.limits.malformedFrames) this.disconnect('invalid_request', false, POLICY_VIOLATION)
    else this.send(invalidCommand(reason))
  }

  execute(command: Command | Revoke): Outcome {
    const of = COMMANDS[command.command]
    const was = enter(of)
    tally(of)
    try {
      return this.run(command)
    } finally {
      enter(was)
    }
  }

  private run(command: Command | Revoke): Outcome {
    switch (command.command) {
      case 'subscribe':
        return this.subscribe(command.identifier)
      case 'unsubscribe':
        return this.unsubscribe(command.identifier)
      case 'message':
        return this.perform(command.identifier, command.data)
      case 'revoke':
        return this.revoke(command.roomId)
    }
  }

  private subscribe(text: string): Outcome {
    const identifier = this.server.intern(text)
    // As Rails: a second subscribe of a live identifier is ignored. Rejecting it would make
    // the client drop a subscription that the server still serves.
    if (this.subscription(identifier)) {
      this.log.info({ user: this.user.id, identifier }, 'cable: already subscribed')
      return
    }
    const channel = this.build(identifier)
    if (!channel) {
      this.send(rejection(identifier))
      return
    }
    // concat allocates exactly what the list holds; a spread leaves room to grow.
    this.subscriptions = this.subscriptions.concat([channel])
    return settle(
      () => channel.subscribed(),
      () => this.answer(channel),
      (err) => {
        logWriteFailure(this.log, err, { identifier }, 'cable: subscribing failed')
        this.drop(channel)
        this.send(rejection(identifier))
      },
    )
  }

  private build(identifier: string): Channel | null {
    const { identifierBytes, subscriptions } = this.server.limits
    const parsed = Buffer.byteLength(identifier) <= identifierBytes ? parseIdentifier(identifier) : null
    const Class = parsed ? this.server.channels.get(parsed.channel) : undefined
    if (!parsed || !Class) {
      this.log.warn({ user: this.user.id, identifier: identifier.slice(0, 200) }, 'cable: no such channel')
      return null
    }
    if (this.subscriptions.length >= subscriptions) {
      this.log.warn({ user: this.user.id, identifier }, 'cable: too many subscriptions')
      return null
    }
    // The parameters are dropped once the subscription is answered, so they are not interned:
    // the interner would keep each person's signed stream name for as long as the server runs.
    return new Class(this, identifier, parsed.params)
  }

  private answer(channel: Channel): void {
    channel.forgetParams()
    if (!channel.isRejected) {
      if (channel.roomId !== null) this.forgetUnreadNotice(channel.roomId)
      this.send(confirmation(channel.identifier))
      return
    }
    this.drop(channel)
    this.send(rejection(channel.identifier))
  }

  private drop(channel: Channel): void {
    if (channel.roomId !== null) this.forgetUnreadNotice(channel.roomId)
    channel.stopAllStreams()
    const at = this.subscriptions.indexOf(channel)
    if (at >= 0) this.subscriptions = this.subscriptions.slice(0, at).concat(this.subscriptions.slice(at + 1))
  }

  private unsubscribe(identifier: string): Outcome {
    const channel = this.subscription(identifier)
    if (!channel) return
    this.drop(channel)
    return this.leave(channel)
  }

  private perform(identifier: string, data: unknown): Outcome {
    const channel = this.subscription(identifier)
    if (!channel || !isObject(data)) {
      this.refuse(channel ? 'message data is not a JSON object' : 'no subscription with that identifier', identifier)
      return
    }
    const action = typeof data.action === 'string' && data.action !== '' ? data.action : 'receive'
    return channel.perform(action, data)
  }

  // The client hears a rejection, which is what it would get on subscribing again.
  private revoke(roomId: number): Outcome {
    const revoked = this.subscriptions.filter((channel) => channel.roomId === roomId)
    for (const channel of revoked) {
      this.drop(channel)
      this.send(rejection(channel.identifier))
    }
    return all(revoked.map((channel) => this.leave(channel)))
  }

  private leave(channel: Channel): Outcome {
    return settle(
      () => channel.unsubscribed(),
      () => undefined,
      (err) => this.log.error({ err, identifier: channel.identifier }, 'cable: unsubscribing failed'),
    )
  }

  private dropSlowConsumer(): void {
    this.log.warn({ user: this.user.id, buffered: this.socket.bufferedAmount }, 'cable: slow consumer, disconnecting')
    this.closing = true
    this.socket.close(SLOW_CONSUMER, 'slow consumer')
    setTimeout(() => this.socket.terminate(), SLOW_CONSUMER_GRACE_MS).unref()
  }

  commandFailed(err: unknown, command: Command | Revoke | null): void {
    logWriteFailure(this.log, err, { command }, 'cable: command failed')
  }

  private subscription(identifier: string): Channel | undefined {
    return this.subscriptions.find((channel) => channel.identifier === identifier)
  }

  closed(): void {
    this.closing = true
    this.server.removeConnection(this)
    this.done = this.queue.close(() => this.unsubscribeAll())
  }

  private unsubscribeAll(): Outcome {
    const channels = this.subscriptions
    this.subscriptions = []
    for (const channel of channels) channel.stopAllStreams()
    return all(channels.map((channel) => this.leave(channel)))
  }
}

// Runs `step`, then `done` (or `failed`), staying synchronous when the step was.
function settle(step: () => Outcome, done: () => void, failed: (error: unknown) => void): Outcome {
  let outcome: Outcome
  try {
    outcome = step()
  } catch (error) {
    failed(error)
    return
  }
  if (!outcome) return done()
  return outcome.then(done, failed)
}

function all(outcomes: Outcome[]): Outcome {
  const pending = outcomes.filter((outcome): outcome is Promise<void> => outcome instanceof Promise)
  if (pending.length > 0) return Promise.all(pending).then(() => undefined)
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8')
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8')
  return Buffer.from(data).toString('utf8')
}

// The payload of a frame from wire-frame.ts, for a socket without a TCP socket of its own.
function unwrap(frame: Buffer): Buffer {
  const marker = frame[1]! & 0x7f
  return frame.subarray(marker < 126 ? 2 : marker === 126 ? 4 : 10)
}
