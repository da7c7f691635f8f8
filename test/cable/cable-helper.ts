import { after, before, type TestContext } from 'node:test'
import type { FastifyInstance } from 'fastify'
import type { Limits } from '../../server/cable/protocol.ts'
import WebSocket from 'ws'
import { buildApp } from '../../server/app.ts'
import { RateLimit } from '../../server/lib/rate-limit.ts'
import { globalIdParam } from '../../server/lib/rails/signing.ts'
import type { CableOptions } from '../../server/plugins/cable.ts'
import { loadFixtures, rooms, type RoomName, type UserName } from '../fixtures.ts'
import { signIn, tempStorage, testConfig } from '../helper.ts'
import { compiledWorkers } from '../support/compiled-server.ts'

type Scope = { after: (fn: () => unknown) => void }

export interface CableApp {
  app: FastifyInstance
  url: string
  origin: string
  // The session cookie of a real sign-in (POST /session), one per person per app.
  cookie(name: UserName): Promise<string>
}

// An app with the fixture cast, listening on a free loopback port so that real WebSocket
// clients can connect; pass a test for an app of its own, or the file's `after` to share one.
export async function startCableApp(scope: Scope, options: CableOptions = {}): Promise<CableApp> {
  const config = testConfig(tempStorage(scope))
  const app = await buildApp({ config, logger: false, passwordCost: 4, compiledWorkers: await compiledWorkers(), signInLimit: new RateLimit(1000, 60_000), cable: options })
  scope.after(() => app.close())
  app.store.writeNow((m) => loadFixtures(m.db))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const cookies = new Map<UserName, Promise<string>>()
  const cookie = (name: UserName) => cookies.get(name) ?? cookies.set(name, signIn(app, name)).get(name)!
  return { app, url: `ws://127.0.0.1:${port}/cable`, origin: `http://127.0.0.1:${port}`, cookie }
}

// One app for a whole test file (signing in and starting workers cost seconds per app).
export function sharedCableApp(options: CableOptions = {}): () => CableApp {
  let cable: CableApp | undefined
  const cleanups: (() => unknown)[] = []
  before(async () => {
    cable = await startCableApp({ after: (fn) => cleanups.push(fn) }, options)
  })
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })
  return () => cable!
}

// Holds every write (presence included) until released, so a test can make a command stay
// in flight for as long as it likes.
export function holdWrites(t: TestContext, app: FastifyInstance): () => void {
  const store = app.store
  const write = store.write
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => (release = resolve))
  store.write = ((fn) => gate.then(() => write.call(store, fn))) as typeof store.write
  t.after(() => {
    store.write = write
    release()
  })
  return release
}

// Tightens the cable's limits for one test.
export function withLimits(t: TestContext, cable: CableApp, limits: Partial<Limits>): void {
  const server = cable.app.cable.server
  const saved = { ...server.limits }
  Object.assign(server.limits, limits)
  t.after(() => Object.assign(server.limits, saved))
}

export type Frame = Record<string, unknown> & { type?: string; identifier?: string; message?: unknown }

// A raw Action Cable client on `ws`: it records every frame (text and parsed) and lets a
// test wait for the ones it expects.
export class CableClient {
  readonly frames: Frame[] = []
  readonly texts: string[] = []
  closeCode: number | null = null
  private waiters: (() => void)[] = []

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const text = data.toString()
      this.texts.push(text)
      this.frames.push(JSON.parse(text) as Frame)
      this.wake()
    })
    socket.on('close', (code) => {
      this.closeCode = code
      this.wake()
    })
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame))
  }

  subscribe(identifier: string): void {
    this.send({ command: 'subscribe', identifier })
  }

  unsubscribe(identifier: string): void {
    this.send({ command: 'unsubscribe', identifier })
  }

  perform(identifier: string, data: Record<string, unknown>): void {
    this.send({ command: 'message', identifier, data: JSON.stringify(data) })
  }

  confirmations(identifier?: string): Frame[] {
    return this.frames.filter((f) => f.type === 'confirm_subscription' && (identifier === undefined || f.identifier === identifier))
  }

  rejections(identifier?: string): Frame[] {
    return this.frames.filter((f) => f.type === 'reject_subscription' && (identifier === undefined || f.identifier === identifier))
  }

  messages(identifier?: string): unknown[] {
    return this.frames.filter((f) => 'message' in f && f.type === undefined && (identifier === undefined || f.identifier === identifier)).map((f) => f.message)
  }

  // Resolves with the first frame matching, counting frames already received.
  async frame(predicate: (frame: Frame) => boolean, timeoutMs = 5000): Promise<Frame> {
    await this.until(() => this.frames.some(predicate), timeoutMs)
    return this.frames.find(predicate)!
  }

  async confirmed(identifier: string, timeoutMs = 5000): Promise<void> {
    await this.frame((f) => f.identifier === identifier && (f.type === 'confirm_subscription' || f.type === 'reject_subscription'), timeoutMs)
    if (this.rejections(identifier).length > 0) throw new Error(`rejected: ${identifier}`)
  }

  async answered(identifier: string, timeoutMs = 5000): Promise<'confirmed' | 'rejected'> {
    const frame = await this.frame((f) => f.identifier === identifier && (f.type === 'confirm_subscription' || f.type === 'reject_subscription'), timeoutMs)
    return frame.type === 'confirm_subscription' ? 'confirmed' : 'rejected'
  }

  async closed(timeoutMs = 5000): Promise<number> {
    await this.until(() => this.closeCode !== null, timeoutMs)
    return this.closeCode!
  }

  until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
    if (condition()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check)
        reject(new Error(`timed out after ${timeoutMs} ms; last frames: ${this.texts.slice(-3).join(' | ')}`))
      }, timeoutMs)
      const check = () => {
        if (!condition()) return
        clearTimeout(timer)
        this.waiters = this.waiters.filter((w) => w !== check)
        resolve()
      }
      this.waiters.push(check)
    })
  }

  close(): void {
    this.socket.terminate()
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter()
  }
}

export interface ConnectOptions {
  cookie?: string
  origin?: string | null
  protocols?: string[]
}

// Opens a socket as the load generator does (cookie, Origin, both subprotocols) and waits for
// the welcome. Rejects with the HTTP status when the handshake is refused.
export async function connect(t: TestContext, cable: CableApp, options: ConnectOptions = {}): Promise<CableClient> {
  const socket = openSocket(cable, options)
  t.after(() => socket.terminate())
  // Listening from the start: the welcome can arrive in the same packet as the handshake.
  const client = new CableClient(socket)
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)))
    socket.once('error', reject)
  })
  await client.frame((f) => f.type === 'welcome')
  return client
}

export function openSocket(cable: CableApp, options: ConnectOptions = {}): WebSocket {
  const headers: Record<string, string> = {}
  if (options.cookie) headers.cookie = options.cookie
  if (options.origin !== null) headers.origin = options.origin ?? cable.origin
  return new WebSocket(cable.url, options.protocols ?? ['actioncable-v1-json', 'actioncable-unsupported'], { headers })
}

// Resolves with the HTTP status of a refused handshake (or 101 if it was accepted).
export function handshakeStatus(cable: CableApp, options: ConnectOptions = {}): Promise<number> {
  const socket = openSocket(cable, options)
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.terminate()
      resolve(101)
    })
    socket.once('unexpected-response', (request, response) => {
      request.destroy()
      resolve(response.statusCode ?? 0)
    })
    socket.once('error', reject)
  })
}

export const identifiers = {
  presence: (room: RoomName) => JSON.stringify({ channel: 'PresenceChannel', room_id: rooms[room].id }),
  typing: (room: RoomName) => JSON.stringify({ channel: 'TypingNotificationsChannel', room_id: rooms[room].id }),
  room: (room: RoomName) => JSON.stringify({ channel: 'RoomChannel', room_id: rooms[room].id }),
  unreads: JSON.stringify({ channel: 'UnreadRoomsChannel' }),
  reads: JSON.stringify({ channel: 'ReadRoomsChannel' }),
  heartbeat: JSON.stringify({ channel: 'HeartbeatChannel' }),
  roomMessages: (app: FastifyInstance, room: RoomName) =>
    JSON.stringify({ channel: 'RoomMessagesChannel', signed_stream_name: app.signing.signStreamName(messagesStreamName(room)) }),
  turbo: (app: FastifyInstance, streamName: string) => JSON.stringify({ channel: 'Turbo::StreamsChannel', signed_stream_name: app.signing.signStreamName(streamName) }),
}

export function messagesStreamName(room: RoomName): string {
  return `${globalIdParam(rooms[room].type, rooms[room].id)}:messages`
}

export function membershipOf(app: FastifyInstance, room: RoomName, userId: number) {
  return app.store.read((m) => m.memberships.find(rooms[room].id, userId))
}

export async function eventually(condition: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
