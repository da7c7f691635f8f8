import type { FastifyInstance, FastifyRequest } from 'fastify'
import { directRoomName } from '../../lib/sentence.ts'
import { parseForm, UNREADABLE_FORM } from '../../plugins/body.ts'
import { resourceRoutes } from '../method-override.ts'
import { sidebarBroadcasts } from './sidebar-broadcasts.ts'
import { backPath, destroyHandler, readUserIds, rememberRoom, roomFinder } from './room-scope.ts'

// Pings: one direct room per set of people. Any member may delete one; nobody renames it.
export default async function directs(app: FastifyInstance) {
  const broadcasts = sidebarBroadcasts(app)
  const directRoom = roomFinder(app, 'direct')

  app.get('/rooms/directs/new', async (request, reply) => {
    return reply.view('rooms/directs/new', { turboFrame: request.headers['turbo-frame'] !== undefined })
  })

  resourceRoutes(app, '/rooms/directs', {
    async POST(request, reply) {
      const user = request.user!
      // The Ping buttons (public profile, sidebar) name the person in the URL, as upstream's
      // button_to does; Rails merges query and form parameters.
      const query = readQuery(request.url)
      if (!query) return reply.sendError(400, UNREADABLE_FORM)
      const userIds = [...new Set([...readUserIds(query), ...readUserIds(request.body)])]
      const room = await app.store.write((m) => m.directRooms.findOrCreateFor(userIds, user.id))
      broadcasts.directCreated(app.store.read((m) => m.rooms.find(room.id))!)
      return reply.redirect(`/rooms/${room.id}`, 302)
    },
  })

  // Upstream answers 500 here; the port treats it like the other namespaces' show.
  app.get('/rooms/directs/:id', async (request: FastifyRequest, reply) => {
    const room = directRoom(request, reply)
    return room ? rememberRoom(reply, room).redirect(`/rooms/${room.id}`, 302) : reply
  })

  app.get('/rooms/directs/:id/edit', async (request: FastifyRequest, reply) => {
    const room = directRoom(request, reply)
    if (!room) return reply
    const userId = request.user!.id
    const members = app.store.read((m) => m.roomMemberships.members(room.id))
    const others = members.filter((member) => member.id !== userId)
    const shown = members.length > 1 ? others : members
    return reply.view('rooms/directs/edit', { room, members: shown, displayName: directRoomName(others, request.user!.name), backPath: backPath(app, request) })
  })

  resourceRoutes(app, '/rooms/directs/:id', { DELETE: destroyHandler(app, 'direct') })
}

// The query string's parameters, or null when one has an undecodable escape.
function readQuery(url: string): Record<string, unknown> | null {
  try {
    return parseForm(url.split('?')[1] ?? '')
  } catch {
    return null
  }
}
