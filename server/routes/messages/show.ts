import type { FastifyInstance, FastifyRequest } from 'fastify'
import { loadMessage, renderMessage, type MessageParams } from './message-scoped.ts'

// One message of a room the person is in, alone, as a bare fragment.
export default async function show(app: FastifyInstance) {
  app.get('/rooms/:room_id/messages/:id', async (request: FastifyRequest<MessageParams>, reply) => {
    const { message } = loadMessage(app, request)
    if (!message) return reply.sendError(404)
    return reply.type('text/html; charset=utf-8').send(renderMessage(app, request, message))
  })
}
