import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field, fieldList } from '../../plugins/body.ts'
import type { RoomRow } from '../../models/room.ts'
import { isDirect } from '../../models/rooms/direct.ts'
import { isAdministrator, type UserRow } from '../../models/user.ts'
import { canAdminister } from '../../models/user/role.ts'
import { lastRoomVisited, rememberRoom } from '../tracked-room-visit.ts'
import { sidebarBroadcasts } from './sidebar-broadcasts.ts'

// What the typed room namespaces share (upstream's RoomsController, which they subclass).
export const NAME_LIMIT = 255
export const DEFAULT_ROOM_NAME = 'New room'
export const INVALID_NAME = `Please give the room a name of up to ${NAME_LIMIT} characters.`

export function parseId(value: unknown): number | null {
  return typeof value === 'string' && /^[1-9]\d{0,14}$/.test(value) ? Number(value) : null
}

// The open and closed namespaces reach only shared rooms and the directs namespace only direct
// ones: directs relax who may administer, and promoting a ping would widen its audience.
export function findRoom(app: FastifyInstance, user: UserRow, id: string, scope: 'shared' | 'direct'): RoomRow | undefined {
  const roomId = parseId(id)
  const room = roomId === null ? undefined : app.store.read((m) => m.rooms.findForUser(roomId, user.id))
  return room && isDirect(room) === (scope === 'direct') ? room : undefined
}

export function roomFinder(app: FastifyInstance, scope: 'shared' | 'direct') {
  return (request: FastifyRequest, reply: FastifyReply): RoomRow | undefined => {
    const room = findRoom(app, request.user!, (request.params as { id: string }).id, scope)
    if (!room) reply.sendError(404)
    return room
  }
}

// Deleting a room: its administrators for shared rooms, any member for a direct one.
export function destroyHandler(app: FastifyInstance, scope: 'shared' | 'direct') {
  const find = roomFinder(app, scope)
  const broadcasts = sidebarBroadcasts(app)
  return async function destroy(request: FastifyRequest, reply: FastifyReply) {
    const room = find(request, reply)
    if (!room) return reply
    if (scope === 'shared' && !canAdminister(request.user!, room)) return reply.sendError(403)
    const members = app.store.read((m) => m.memberships.userIdsIn(room.id))
    await app.store.write((m) => m.roomDestruction.destroyRoom(room.id))
    broadcasts.roomRemoved(room, members)
    return reply.redirect('/', 302)
  }
}

export { canAdminister }

export function mayCreateRooms(app: FastifyInstance, user: UserRow): boolean {
  if (isAdministrator(user)) return true
  const settings = app.store.read((m) => {
    const account = m.accounts.first()
    return account ? m.accounts.settings(account) : null
  })
  return settings?.restrict_room_creation_to_administrators !== true
}

export function readRoomName(body: unknown): string | null {
  const name = field(body, 'room', 'name')?.trim() ?? ''
  return name.length > 0 && name.length <= NAME_LIMIT ? name : null
}

export function readUserIds(body: unknown): number[] {
  return fieldList(body, 'user_ids').flatMap((value) => parseId(value) ?? [])
}

// "Go back" leads to the room visited last, else the person's first room.
export function backPath(app: FastifyInstance, request: FastifyRequest): string {
  const room = app.store.read((m) => lastRoomVisited(m, request))
  return room ? `/rooms/${room.id}` : '/'
}

// GET <path> redirects to the room itself; GET <path>/edit shows the namespace's form to every
// member, as upstream does: read-only (no inputs, no delete) to those who may not change the room.
export function showAndEditRoutes(
  app: FastifyInstance,
  path: string,
  find: (request: FastifyRequest, reply: FastifyReply) => RoomRow | undefined,
  editForm: (request: FastifyRequest, reply: FastifyReply, room: RoomRow) => unknown,
): void {
  app.get(path, async (request, reply) => {
    const room = find(request, reply)
    return room ? rememberRoom(reply, room).redirect(`/rooms/${room.id}`, 302) : reply
  })
  app.get(`${path}/edit`, async (request, reply) => {
    const room = find(request, reply)
    return room ? editForm(request, reply, room) : reply
  })
}

export { rememberRoom }
