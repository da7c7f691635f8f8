import type { FastifyInstance } from 'fastify'

export const LAST_ROOM_COOKIE = 'last_room'

// "/" takes a person back to the room they last visited, else their oldest room.
export default async function welcome(app: FastifyInstance) {
  app.get('/', async (request, reply) => {
    const user = request.user!
    const lastRoomId = Number(request.cookies[LAST_ROOM_COOKIE])
    const room = app.store.read(
      (m) => (Number.isSafeInteger(lastRoomId) && lastRoomId > 0 ? m.rooms.findForUser(lastRoomId, user.id) : undefined) ?? m.rooms.oldestForUser(user.id),
    )
    if (room) return reply.redirect(`/rooms/${room.id}`, 302)
    return reply.view('welcome/show')
  })
}
