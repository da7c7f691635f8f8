import type { FastifyInstance, FastifyRequest } from 'fastify'
import { positiveId } from '../room-scoped.ts'

// The bot API answers with Location: /messages/:id; upstream 404s there, we show the message.
export default async function permalink(app: FastifyInstance) {
  app.get('/messages/:id', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const id = positiveId(request.params.id)
    const message = id === null ? undefined : app.store.read((m) => {
      const found = m.messages.find(id)
      return found && m.rooms.findForUser(found.room_id, request.user!.id) ? found : undefined
    })
    if (!message) return reply.sendError(404)
    return reply.redirect(`/rooms/${message.room_id}/@${message.id}`, 302)
  })
}
