import fp from 'fastify-plugin'
import websocket from '@fastify/websocket'
import { createBroadcasts, type Broadcasts } from '../cable/broadcasts.ts'
import { CHANNELS } from '../cable/channels/index.ts'
import { selectProtocol, type Limits } from '../cable/protocol.ts'
import type { CableRelay } from '../cable/relay.ts'
import { CableServer, type DisconnectOptions } from '../cable/server.ts'

export interface Cable extends Broadcasts {
  readonly server: CableServer
  // What carries broadcasts to the other processes (with REDIS_URL), else null.
  readonly relay: CableRelay | null
  broadcast(stream: string, message: unknown): number
  broadcastMany(streams: Iterable<string>, message: unknown): number
  disconnectUser(userId: number, options?: DisconnectOptions): number
  unsubscribeUserFromRoom(userId: number, roomId: number): number
}

declare module 'fastify' {
  interface FastifyInstance {
    cable: Cable
  }
}

export interface CableOptions {
  limits?: Partial<Limits>
  beatIntervalMs?: number
  livenessBeats?: number
}

// The Action Cable server: @fastify/websocket (ws, no compression, 64 KiB frames) plus the
// registry that routes publish to after their writes. GET /cable lives in routes/cable.ts.
// With REDIS_URL, broadcasts and revocations also reach every other process (cable/relay.ts),
// and a write's response waits (briefly) for Redis to take its broadcasts.
export default fp(
  async function cable(app, options: CableOptions) {
    const server = new CableServer({ store: app.store, signing: app.signing, log: app.log, channels: CHANNELS, ...options })
    const relay = app.redis ? new (await import('../cable/relay.ts')).CableRelay(server, app.redis, app.log) : null
    if (relay) {
      relay.start()
      app.addHook('onClose', async () => relay.stop())
      // A write is answered once Redis has taken what it broadcast, so whatever the person does
      // next, on any worker, comes after it on every socket. The wait is named in Server-Timing
      // (`relay;dur=`), after the server's own total.
      app.addHook('onSend', async (request, reply, payload) => {
        if (request.method === 'GET' || request.method === 'HEAD') return payload
        const waiting = relay.published()
        if (waiting === null) return payload
        const started = performance.now()
        await waiting
        const timing = reply.getHeader('server-timing')
        if (typeof timing === 'string' && timing.includes('total;dur=')) reply.header('server-timing', `${timing}, relay;dur=${(performance.now() - started).toFixed(2)}`)
        return payload
      })
    }

    await app.register(websocket, {
      options: {
        maxPayload: server.limits.frameBytes,
        perMessageDeflate: false,
        clientTracking: false,
        // Accepts the upgrade whatever it offers, as Rails does; see selectProtocol.
        handleProtocols: selectProtocol,
      },
      errorHandler(error, socket, request) {
        request.log.warn({ err: error }, 'cable: socket error')
        socket.terminate()
      },
      preClose: async () => server.shutdown(),
    })

    app.decorate('cable', {
      server,
      relay,
      ...createBroadcasts(server),
      broadcast: (stream, message) => server.broadcast(stream, message),
      broadcastMany: (streams, message) => server.broadcastMany(streams, message),
      disconnectUser: (userId, disconnect) => server.disconnectUser(userId, disconnect),
      unsubscribeUserFromRoom: (userId, roomId) => server.unsubscribeUserFromRoom(userId, roomId),
    } satisfies Cable)
    server.start()
  },
  { name: 'cable', dependencies: ['database', 'auth', 'redis'] },
)
