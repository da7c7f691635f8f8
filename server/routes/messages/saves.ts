import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { MessageRow } from '../../models/message.ts'
import { positiveId } from '../room-scoped.ts'
import { resourceRoutes } from '../method-override.ts'

type Params = { Params: { message_id: string } }

// A message's save, for the person asking (a singular resource): GET is the menu's Save or
// Unsave button, as a frame of its own, since the message fragment around it is the same for
// every viewer; POST saves and DELETE unsaves, each answering with that frame again. Only
// messages in the person's rooms can be saved, and a save is never anyone else's to see.
export default async function saves(app: FastifyInstance) {
  function reachable(request: FastifyRequest<Params>): MessageRow | null {
    const id = positiveId(request.params.message_id)
    if (id === null) return null
    return app.store.read((m) => {
      const message = m.messages.find(id)
      return message && m.rooms.findForUser(message.room_id, request.user!.id) ? message : null
    })
  }

  function frame(reply: FastifyReply, message: MessageRow, saved: boolean) {
    reply.header('cache-control', 'private, no-store')
    return reply.type('text/html; charset=utf-8').send(app.renderPartial('/messages/saves/show', { message, saved }))
  }

  app.get('/messages/:message_id/save', async (request: FastifyRequest<Params>, reply) => {
    const message = reachable(request)
    if (!message) return reply.sendError(404)
    return frame(reply, message, app.store.read((m) => m.savedMessages.isSaved(request.user!.id, message.id)))
  })

  async function change(request: FastifyRequest<Params>, reply: FastifyReply, saved: boolean) {
    const message = reachable(request)
    if (!message) return reply.sendError(404)
    const userId = request.user!.id
    await app.store.write((m) => (saved ? m.savedMessages.save(userId, message.id) : m.savedMessages.unsave(userId, message.id)))
    return frame(reply, message, saved)
  }

  resourceRoutes(app, '/messages/:message_id/save', {
    POST: (request: FastifyRequest<Params>, reply: FastifyReply) => change(request, reply, true),
    DELETE: (request: FastifyRequest<Params>, reply: FastifyReply) => change(request, reply, false),
  })
}
