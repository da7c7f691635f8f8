import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { MessageRow } from '../../models/message.ts'
import { requestOrigin } from '../../plugins/security.ts'
import { positiveId, roomFor } from '../room-scoped.ts'

export type MessageParams = { Params: { room_id: string; id?: string }; Querystring: { before?: string; after?: string } }

export const CLIENT_MESSAGE_ID = /^[A-Za-z0-9_.:-]{1,100}$/

// The room of the URL, reached through the person's memberships, and the message of that
// room the URL names (either undefined when there is none).
export function loadMessage(app: FastifyInstance, request: FastifyRequest<MessageParams>) {
  return app.store.read((m) => {
    const room = roomFor(m, request, request.params.room_id)
    const id = positiveId(request.params.id)
    const message = room && id !== null ? m.messages.findInRoom(id, room.id) : undefined
    return { room, message }
  })
}

// One message's fragment, through the fragment cache.
export function renderMessage(app: FastifyInstance, request: FastifyRequest, message: MessageRow): string {
  return app.store.read((m) => {
    const row = m.messages.find(message.id) ?? message
    return app.messageFragments.renderAll(m, [row], { origin: requestOrigin(request), viewerId: request.user!.id, stats: request.cacheStats })
  })
}
