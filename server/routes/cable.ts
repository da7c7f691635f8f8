import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Socket } from 'node:net'
import type { WebSocket } from 'ws'
import { CableConnection } from '../cable/connection.ts'
import { requestOrigin } from '../plugins/security.ts'

// The WebSocket handshake is refused before any socket exists: 401 without a valid session
// (the same lookup every page uses), 403 for a foreign Origin. Browsers always send Origin on
// a WebSocket handshake, so a request without one cannot be a cross-site page riding on the
// cookie; those are non-browser clients holding the cookie themselves, and they are let in.
async function guardHandshake(request: FastifyRequest, reply: FastifyReply) {
  if (!request.user) return reply.sendError(401)
  const origin = request.headers.origin
  if (origin !== undefined && origin !== requestOrigin(request)) {
    request.log.warn({ origin }, 'cable: request origin not allowed')
    return reply.sendError(403)
  }
}

export default async function cable(app: FastifyInstance) {
  function onSocketError(this: WebSocket, error: Error) {
    app.log.warn({ err: error, user: CableConnection.of(this)?.user.id }, 'cable: socket error')
    this.terminate()
  }

  app.get('/cable', { websocket: true, config: { allowUnauthenticated: true }, onRequest: guardHandshake }, (socket, request) => {
    const raw = request.raw.socket as typeof request.raw.socket & { _httpMessage?: unknown }
    raw.setNoDelay(true)
    // The upgraded TCP socket still points at the placeholder HTTP response (and through it at
    // the request, its headers and Fastify's request and reply); nothing needs them any more.
    raw._httpMessage = null
    forgetClearedTimer(raw)
    replaceErrorListener(socket, onSocketError)
    const { id, name } = request.user!
    app.cable.server.accept(socket, { id, name })
  })
}

// @fastify/websocket's own error listener closes over the request and reply, which would keep
// both alive (a few KB) for as long as the socket lives; ours is one function for every socket.
function replaceErrorListener(socket: WebSocket, listener: (this: WebSocket, error: Error) => void): void {
  socket.removeAllListeners('error')
  socket.on('error', listener)
}

// ws turns the upgraded socket's idle timer off with setTimeout(0), and Node keeps the cleared
// Timeout object (and a bound callback) on the socket anyway: about 200 bytes per socket.
function forgetClearedTimer(raw: Socket): void {
  const holder = raw as unknown as Record<symbol, { _idleTimeout?: number } | null>
  const key = Object.getOwnPropertySymbols(raw).find((symbol) => symbol.description === 'timeout')
  if (key && holder[key]?._idleTimeout === -1) holder[key] = null
}
