import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { reviseMessage } from '../../models/message/posting.ts'
import { canAdminister } from '../../models/user/role.ts'
import { readBody } from './body.ts'
import { loadMessage, type MessageParams } from './message-scoped.ts'

// PATCH/PUT /rooms/:room_id/messages/:id: the creator or an administrator revises the body;
// the room sees the new presentation. JSON for the bot API, else back to the message.
export function update(app: FastifyInstance) {
  return async function update(request: FastifyRequest<MessageParams>, reply: FastifyReply) {
    const { room, message } = loadMessage(app, request)
    if (!room || !message) return reply.sendError(404)
    if (!canAdminister(request.user!, message)) return reply.sendError(403)
    const body = readBody(app, request, reply)
    if (!body) return reply
    await app.store.write((m) => reviseMessage(m, message, body.body, body.plainText))
    const [revised] = app.store.read((m) => m.messageDisplay.load([m.messages.find(message.id)!], [room]))
    app.cable.messageUpdated(room, message, app.messageRenderer.renderPresentation(revised!))
    if (String(request.headers.accept ?? '').includes('application/json')) {
      return reply.type('application/json; charset=utf-8').send({ id: message.id, room_id: room.id, body: { html: body.body, plain: body.plainText } })
    }
    return reply.redirect(`/rooms/${room.id}/messages/${message.id}`, 303)
  }
}
