import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
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
  app.get('/cable', { websocket: true, config: { allowUnauthenticated: true }, onRequest: guardHandshake }, (socket, request) => {
    const raw = request.raw.socket as typeof request.raw.socket & { _httpMessage?: unknown }
    raw.setNoDelay(true)
    // The upgraded TCP socket still points at the placeholder HTTP response (and through it at
    // the request, its headers and Fastify's request and reply); nothing needs them any more.
    raw._httpMessage = null
    const { id, name } = request.user!
    // @fastify/websocket's own error listener closes over the request and reply, which would
    // keep both alive (a few KB) for as long as the socket lives; ours keeps nothing of them.
    socket.removeAllListeners('error')
    socket.on('error', (error) => {
      app.log.warn({ err: error, user: id }, 'cable: socket error')
      socket.terminate()
    })
    app.cable.server.accept(socket, { id, name })
  })
}
