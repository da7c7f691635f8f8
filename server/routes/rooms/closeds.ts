import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ROOM_TYPES, type RoomRow } from '../../models/room.ts'
import { resourceRoutes } from '../method-override.ts'
import { sidebarBroadcasts } from './sidebar-broadcasts.ts'
import { DEFAULT_ROOM_NAME, INVALID_NAME, backPath, canAdminister, destroyHandler, mayCreateRooms, readRoomName, readUserIds, roomFinder, showAndEditRoutes } from './room-scope.ts'

// Rooms for the people picked in user_ids[]. Editing here also turns an open room into a closed one.
export default async function closeds(app: FastifyInstance) {
  const broadcasts = sidebarBroadcasts(app)
  const sharedRoom = roomFinder(app, 'shared')

  function form(request: FastifyRequest, reply: FastifyReply, room: RoomRow | null, name: string, picked?: number[], status = 200, error?: string) {
    const candidates = app.store.read((m) => m.roomMemberships.candidates(room?.id ?? null))
    const isPicked = (c: { id: number; selected: number }) => (picked ? picked.includes(c.id) : c.selected === 1)
    const data = {
      room: room && { ...room, type: ROOM_TYPES.closed },
      name,
      selectedUsers: candidates.filter(isPicked),
      unselectedUsers: candidates.filter((c) => !isPicked(c)),
      backPath: backPath(app, request),
      error,
      mayAdminister: !room || canAdminister(request.user!, room),
    }
    return reply.view(room ? 'rooms/closeds/edit' : 'rooms/closeds/new', data, status)
  }

  app.get('/rooms/closeds/new', async (request, reply) => {
    if (!mayCreateRooms(app, request.user!)) return reply.sendError(403)
    return form(request, reply, null, DEFAULT_ROOM_NAME, [])
  })

  resourceRoutes(app, '/rooms/closeds', {
    async POST(request, reply) {
      const user = request.user!
      if (!mayCreateRooms(app, user)) return reply.sendError(403)
      const name = readRoomName(request.body)
      const userIds = [...readUserIds(request.body), user.id]
      if (name === null) return form(request, reply, null, '', userIds, 422, INVALID_NAME)
      const roomId = await app.store.write((m) => m.closedRooms.create(name, user.id, userIds))
      broadcasts.roomCreated(app.store.read((m) => m.rooms.find(roomId))!)
      return reply.redirect(`/rooms/${roomId}`, 302)
    },
  })

  showAndEditRoutes(app, '/rooms/closeds/:id', sharedRoom, (request, reply, room) => form(request, reply, room, room.name ?? ''))

  // Everyone left out of user_ids[] loses access, the editor included.
  async function update(request: FastifyRequest, reply: FastifyReply) {
    const room = sharedRoom(request, reply)
    if (!room) return reply
    if (!canAdminister(request.user!, room)) return reply.sendError(403)
    const name = readRoomName(request.body)
    const userIds = readUserIds(request.body)
    if (name === null) return form(request, reply, room, room.name ?? '', userIds, 422, INVALID_NAME)
    const updated = await app.store.write((m) => m.closedRooms.update(room.id, name, userIds))
    if (updated) broadcasts.roomUpdated(app.store.read((m) => m.rooms.find(room.id))!, updated.previousType, [...updated.revoked])
    return reply.redirect(`/rooms/${room.id}`, 302)
  }

  resourceRoutes(app, '/rooms/closeds/:id', { PATCH: update, PUT: update, DELETE: destroyHandler(app, 'shared') })
}
