import type { FastifyRequest } from 'fastify'
import type { Models } from '../models/index.ts'
import type { RoomRow } from '../models/room.ts'

export function positiveId(value: unknown): number | null {
  const text = String(value ?? '')
  if (!/^\d{1,18}$/.test(text)) return null
  const id = Number(text)
  return Number.isSafeInteger(id) && id > 0 ? id : null
}

// RoomScoped: a room is reached only through the person's own memberships, so a room they
// are not in is indistinguishable from one that does not exist.
export function roomFor(models: Models, request: FastifyRequest, roomId: unknown): RoomRow | null {
  const id = positiveId(roomId)
  return id === null ? null : (models.rooms.findForUser(id, request.user!.id) ?? null)
}

export function wantsTurboStream(request: FastifyRequest): boolean {
  return String(request.headers.accept ?? '').includes('text/vnd.turbo-stream.html')
}
