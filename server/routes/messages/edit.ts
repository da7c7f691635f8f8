import type { FastifyInstance, FastifyRequest } from 'fastify'
import { canAdminister } from '../../models/user/role.ts'
import { loadMessage, type MessageParams } from './message-scoped.ts'

// The edit form, for the message's creator and administrators.
export default async function edit(app: FastifyInstance) {
  app.get('/rooms/:room_id/messages/:id/edit', async (request: FastifyRequest<MessageParams>, reply) => {
    const { message } = loadMessage(app, request)
    if (!message) return reply.sendError(404)
    if (!canAdminister(request.user!, message)) return reply.sendError(403)
    // The author, time and boosts stay in view while editing.
    const { shown, body } = app.store.read((m) => ({ shown: m.messageDisplay.load([message])[0]!, body: m.messages.body(message.id) ?? '' }))
    return reply.type('text/html; charset=utf-8').send(app.renderPartial('/messages/edit', { message: shown, body }))
  })
}
