import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field } from '../../plugins/body.ts'
import { isInvolvement, nextInvolvement } from '../../models/membership/involvement.ts'
import { resourceRoutes } from '../method-override.ts'
import { sidebarBroadcasts } from './sidebar-broadcasts.ts'
import { parseId } from './room-scope.ts'

// The bell. Found through the person's own membership, so rooms they are not in are a 404.
export default async function involvements(app: FastifyInstance) {
  const broadcasts = sidebarBroadcasts(app)
  function involvementIn(request: FastifyRequest) {
    const roomId = parseId((request.params as { room_id: string }).room_id)
    return roomId === null ? undefined : app.store.read((m) => m.involvements.involvementIn(roomId, request.user!.id))
  }

  app.get('/rooms/:room_id/involvement', async (request: FastifyRequest, reply) => {
    const involved = involvementIn(request)
    if (!involved) return reply.sendError(404)
    const { room, involvement } = involved
    const data = { room, involvement, next: nextInvolvement(room.type, involvement), turboFrame: request.headers['turbo-frame'] !== undefined }
    return reply.view('rooms/involvements/show', data)
  })

  async function update(request: FastifyRequest, reply: FastifyReply) {
    const involved = involvementIn(request)
    if (!involved) return reply.sendError(404)
    const involvement = field(request.query, 'involvement') ?? field(request.body, 'involvement')
    if (!isInvolvement(involvement)) return reply.sendError(422, 'That is not a notification level.')
    const { room } = involved
    const previous = await app.store.write((m) => m.involvements.update(room.id, request.user!.id, involvement))
    if (previous === undefined) return reply.sendError(404)
    broadcasts.involvementChanged(room, request.user!.id, previous, involvement)
    return reply.redirect(`/rooms/${room.id}/involvement`, 302)
  }

  resourceRoutes(app, '/rooms/:room_id/involvement', { PATCH: update, PUT: update })
}
