import type { FastifyInstance } from 'fastify'

import { lastRoomVisited } from './tracked-room-visit.ts'

// "/" takes a person back to the room they last visited, else their oldest room.
export default async function welcome(app: FastifyInstance) {
  app.get('/', async (request, reply) => {
    const room = app.store.read((m) => lastRoomVisited(m, request))
    if (room) return reply.redirect(`/rooms/${room.id}`, 302)
    return reply.view('welcome/show')
  })
}
