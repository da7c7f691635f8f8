import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requestOrigin } from '../../plugins/security.ts'
import { dbTime } from '../../lib/time.ts'
import { TURBO_STREAM_TYPE, turboStream } from '../../rendering/turbo-streams.ts'
import { roomFor } from '../room-scoped.ts'

// Timestamps are written with four-digit years.
const MAX_SINCE_MS = Date.UTC(9999, 11, 31)

type Params = { Params: { room_id: string }; Querystring: { since?: string } }

// After a reconnect the page asks what it missed: messages created since (appended) and
// messages changed since (replaced), at most a page of each.
export default async function refreshes(app: FastifyInstance) {
  app.get('/rooms/:room_id/refresh', async (request: FastifyRequest<Params>, reply) => {
    const sinceMs = Number(request.query.since ?? 0)
    if (!Number.isFinite(sinceMs) || sinceMs < 0 || sinceMs > MAX_SINCE_MS) return reply.sendError(400)
    const since = dbTime(Math.floor(sinceMs) * 1000)
    const result = app.store.read((m) => {
      const room = roomFor(m, request, request.params.room_id)
      if (!room) return null
      const created = m.messagePages.createdSince(room.id, since)
      const updated = m.messagePages.updatedSince(room.id, since, created.map((message) => message.id))
      return { room, created: m.messageDisplay.load(created, [room]), updated: m.messageDisplay.load(updated, [room]) }
    })
    if (!result) return reply.sendError(404)
    const origin = requestOrigin(request)
    let body = ''
    if (result.created.length > 0) body += turboStream('append', app.helpers.roomDomId(result.room, 'messages'), app.messageRenderer.renderAll(result.created, origin))
    for (const message of result.updated) body += turboStream('replace', app.helpers.messageDomId(message), app.messageRenderer.render(message, origin))
    return reply.type(TURBO_STREAM_TYPE).send(body)
  })
}
