import type { FastifyInstance, FastifyRequest } from 'fastify'
import { epochSeconds } from '../../rendering/helpers/time.ts'
import { positiveId } from '../room-scoped.ts'

type Params = { Params: { message_id: string } }

// "Mark as unread" (a singular resource of the message): the person's room turns unread from
// this message on. Every tab and device of theirs hears it on their own unread stream, and the
// room opens at this message the next time they open it (routes/rooms.ts). Pings too.
export default async function unreads(app: FastifyInstance) {
  app.post('/messages/:message_id/unread', async (request: FastifyRequest<Params>, reply) => {
    const id = positiveId(request.params.message_id)
    const userId = request.user!.id
    const found = id === null ? null : app.store.read((m) => {
      const message = m.messages.find(id)
      const room = message && m.rooms.findForUser(message.room_id, userId)
      return message && room ? { message, room } : null
    })
    if (!found) return reply.sendError(404)
    await app.store.write((m) => m.unreadMarks.markUnread(found.message, userId))
    app.cable.unreadRoom(found.room, [userId], epochSeconds(found.message.created_at))
    return reply.code(204).send()
  })
}
