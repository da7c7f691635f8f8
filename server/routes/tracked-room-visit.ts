import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Models } from '../models/index.ts'
import type { RoomRow } from '../models/room.ts'
import { positiveId } from './room-scoped.ts'

// Upstream's TrackedRoomVisit: the last room someone opened is remembered in a plain,
// permanent cookie, and "/" and every "back" link lead there (else to their oldest room).
export const LAST_ROOM_COOKIE = 'last_room'
const TWENTY_YEARS_S = 20 * 365 * 24 * 60 * 60

// A cookie that already names the room is not sent again: it lasts twenty years either way.
export function rememberRoom(reply: FastifyReply, room: Pick<RoomRow, 'id'>): FastifyReply {
  const id = String(room.id)
  if (reply.request.cookies[LAST_ROOM_COOKIE] === id) return reply
  return reply.setCookie(LAST_ROOM_COOKIE, id, { path: '/', maxAge: TWENTY_YEARS_S, sameSite: 'lax' })
}

export function lastRoomVisited(models: Models, request: FastifyRequest): RoomRow | undefined {
  const userId = request.user!.id
  const lastId = positiveId(request.cookies[LAST_ROOM_COOKIE])
  return (lastId === null ? undefined : models.rooms.findForUser(lastId, userId)) ?? models.rooms.oldestForUser(userId)
}
