import { rm } from 'node:fs/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import { removeMessage } from '../../models/message/posting.ts'
import { blobPath } from '../../lib/files.ts'
import { canAdminister } from '../../models/user/role.ts'
import { TURBO_STREAM_TYPE, turboStreamRemove } from '../../rendering/turbo-streams.ts'
import { wantsTurboStream } from '../room-scoped.ts'
import { loadMessage, type MessageParams } from './message-scoped.ts'

// DELETE /rooms/:room_id/messages/:id: the creator or an administrator removes the message
// with everything hanging off it, its attachment's file included.
export function destroy(app: FastifyInstance, config: Config) {
  return async function destroy(request: FastifyRequest<MessageParams>, reply: FastifyReply) {
    const { room, message } = loadMessage(app, request)
    if (!room || !message) return reply.sendError(404)
    if (!canAdminister(request.user!, message)) return reply.sendError(403)
    const keys = await app.store.write((m) => removeMessage(m, message))
    await Promise.all(keys.map((key) => { const path = blobPath(config.filesPath, key); return path ? rm(path, { force: true }) : undefined }))
    app.cable.messageRemoved(room, message)
    if (!wantsTurboStream(request)) return reply.redirect(`/rooms/${room.id}`, 303)
    return reply.type(TURBO_STREAM_TYPE).send(turboStreamRemove(app.helpers.messageDomId(message)))
  }
}
