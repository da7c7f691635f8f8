import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ROOM_TYPES, type RoomRow } from '../../models/room.ts'
import { resourceRoutes } from '../method-override.ts'
import { sidebarBroadcasts } from './sidebar-broadcasts.ts'
import { DEFAULT_ROOM_NAME, INVALID_NAME, backPath, canAdminister, destroyHandler, mayCreateRooms, readRoomName, roomFinder, showAndEditRoutes } from './room-scope.ts'

// Rooms for everyone. Editing here also turns a closed room into an open one.
export default async function opens(app: FastifyInstance) {
  const broadcasts = sidebarBroadcasts(app)
  const sharedRoom = roomFinder(app, 'shared')

  function form(request: FastifyRequest, reply: FastifyReply, room: RoomRow | null, name: string, status = 200, error?: string) {
    const users = app.store.read((m) => m.roomMemberships.candidates(null))
    const shown = room && { ...room, type: ROOM_TYPES.open }
    const data = { room: shown, name, users, backPath: backPath(app, request), error, mayAdminister: !room || canAdminister(request.user!, room) }
    return reply.view(room ? 'rooms/opens/edit' : 'rooms/opens/new', data, status)
  }

  app.get('/rooms/opens/new', async (request, reply) => {
    if (!mayCreateRooms(app, request.user!)) return reply.sendError(403)
    return form(request, reply, null, DEFAULT_ROOM_NAME)
  })

  resourceRoutes(app, '/rooms/opens', {
    async POST(request, reply) {
      const user = request.user!
      if (!mayCreateRooms(app, user)) return reply.sendError(403)
      const name = readRoomName(request.body)
      if (name === null) return form(request, reply, null, '', 422, INVALID_NAME)
      const roomId = await app.store.write((m) => m.openRooms.create(name, user.id))
      broadcasts.roomCreated(app.store.read((m) => m.rooms.find(roomId))!)
      return reply.redirect(`/rooms/${roomId}`, 302)
    },
  })

  showAndEditRoutes(app, '/rooms/opens/:id', sharedRoom, (request, reply, room) => form(request, reply, room, room.name ?? ''))

  async function update(request: FastifyRequest, reply: FastifyReply) {
    const room = sharedRoom(request, reply)
    if (!room) return reply
    if (!canAdminister(request.user!, room)) return reply.sendError(403)
    const name = readRoomName(request.body)
    if (name === null) return form(request, reply, room, room.name ?? '', 422, INVALID_NAME)
    const updated = await app.store.write((m) => m.openRooms.update(room.id, name))
    if (updated) broadcasts.roomUpdated(app.store.read((m) => m.rooms.find(room.id))!, updated.previousType)
    return reply.redirect(`/rooms/${room.id}`, 302)
  }

  resourceRoutes(app, '/rooms/opens/:id', { PATCH: update, PUT: update, DELETE: destroyHandler(app, 'shared') })
}
