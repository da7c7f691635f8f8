import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field } from '../../plugins/body.ts'
import { BOOST_MAX_LENGTH } from '../../models/boost.ts'
import { boostMessage, unboostMessage } from '../../models/message/posting.ts'
import { positiveId } from '../room-scoped.ts'
import { resourceRoutes } from '../method-override.ts'

type Params = { Params: { message_id: string; id?: string } }

// Boosts on a message the person can reach; only your own boosts can be deleted.
export default async function boosts(app: FastifyInstance) {
  function reachable(request: FastifyRequest<Params>) {
    const id = positiveId(request.params.message_id)
    return id === null
      ? null
      : app.store.read((m) => {
          const message = m.messages.find(id)
          const room = message && m.rooms.findForUser(message.room_id, request.user!.id)
          return message && room ? Object.assign(message, { room }) : null
        })
  }

  function frame(reply: FastifyReply, template: string, messageId: number) {
    const [message] = app.store.read((m) => m.messageDisplay.load([m.messages.find(messageId)!]))
    return reply.type('text/html; charset=utf-8').send(app.renderPartial(template, { message }))
  }

  app.get('/messages/:message_id/boosts', async (request: FastifyRequest<Params>, reply) => {
    const message = reachable(request)
    return message ? frame(reply, '/messages/boosts/index', message.id) : reply.sendError(404)
  })

  app.get('/messages/:message_id/boosts/new', async (request: FastifyRequest<Params>, reply) => {
    const message = reachable(request)
    return message ? frame(reply, '/messages/boosts/new', message.id) : reply.sendError(404)
  })

  app.post('/messages/:message_id/boosts', async (request: FastifyRequest<Params>, reply) => {
    const message = reachable(request)
    if (!message) return reply.sendError(404)
    const content = (field(request.body, 'boost', 'content') ?? '').trim()
    if (!content || [...content].length > BOOST_MAX_LENGTH) return reply.sendError(422, `A boost is 1 to ${BOOST_MAX_LENGTH} characters.`)
    const boost = await app.store.write((m) => boostMessage(m, message, request.user!.id, content))
    const [display] = app.store.read((m) => m.messageDisplay.load([message], [message.room]))
    const shown = display?.boosts.find((b) => b.id === boost.id)
    if (shown) app.cable.boostCreated(message.room, message, app.messageRenderer.renderBoost(shown))
    return reply.redirect(`/messages/${message.id}/boosts`, 303)
  })

  async function destroy(request: FastifyRequest<Params>, reply: FastifyReply) {
    const message = reachable(request)
    const boostId = positiveId(request.params.id)
    const boost = message && boostId !== null ? app.store.read((m) => m.boosts.find(boostId, message.id)) : undefined
    if (!message || !boost || boost.booster_id !== request.user!.id) return reply.sendError(404)
    await app.store.write((m) => unboostMessage(m, message, boost.id))
    app.cable.boostRemoved(message.room, boost.id)
    return reply.code(204).send()
  }

  resourceRoutes(app, '/messages/:message_id/boosts/:id', { DELETE: destroy })
}
