import { randomUUID } from 'node:crypto'
import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import type { MessageRow } from '../models/message.ts'
import { postMessage } from '../models/message/posting.ts'
import { field } from '../plugins/body.ts'
import { requestOrigin } from '../plugins/security.ts'
import { TURBO_STREAM_TYPE } from '../rendering/turbo-streams.ts'
import { rowsSignature, findOrRender, sendLookup } from './cached-pages.ts'
import { resourceRoutes } from './method-override.ts'
import { positiveId, roomFor, wantsTurboStream } from './room-scoped.ts'
import { announceNewMessage } from './messages/announce.ts'
import { postWithAttachment } from './messages/attachments.ts'
import { readBody } from './messages/body.ts'
import { destroy } from './messages/destroy.ts'
import edit from './messages/edit.ts'
import { CLIENT_MESSAGE_ID, renderMessage, type MessageParams } from './messages/message-scoped.ts'
import permalink from './messages/permalink.ts'
import show from './messages/show.ts'
import { update } from './messages/update.ts'

// A room's messages: the history pages and posting here; one message's routes in messages/.
export default async function messages(app: FastifyInstance, options: { config: Config }) {
  const { config } = options

  // A page of history as a bare fragment, or 204 when there is none. It is the same for every
  // viewer, so it is cached once per room, anchor and origin, valid while its messages are.
  app.get('/rooms/:room_id/messages', async (request: FastifyRequest<MessageParams>, reply) => {
    const origin = requestOrigin(request)
    const page = app.store.read((m) => {
      const room = roomFor(m, request, request.params.room_id)
      if (!room) return null
      const { before, after } = request.query
      const anchorId = positiveId(before ?? after)
      if ((before ?? after) !== undefined && anchorId === null) return null
      const anchor = anchorId === null ? undefined : m.messages.findInRoom(anchorId, room.id)
      if (anchorId !== null && !anchor) return null
      const rows = !anchor ? m.messagePages.lastPage(room.id) : before !== undefined ? m.messagePages.pageBefore(anchor) : m.messagePages.pageAfter(anchor)
      if (rows.length === 0) return 'empty' as const
      const key = `messages:${room.id}:${!anchor ? 'latest' : before !== undefined ? 'before' : 'after'}:${anchor?.id ?? ''}:${origin}`
      const render = () => app.messageFragments.renderEach(m, rows, { origin, viewerId: request.user!.id, stats: request.cacheStats, rooms: [room] })
      return findOrRender(app, m, key, () => rowsSignature(rows), render)
    })
    if (!page) return reply.sendError(404)
    if (page === 'empty') return reply.code(204).send()
    return sendLookup(app, request, reply, page)
  })

  // Multipart (a file upload) is accepted on this route only: the parts are streamed, the file
  // straight to disk, with their own limits rather than the 2 MiB form limit.
  await app.register(async function upload(scope) {
    await scope.register(multipart, { throwFileSizeLimit: true })

    // Its Server-Timing has the post's stages: hooks (authentication and parsing, before the
    // route), body (sanitising the rich text; not for uploads), write, render, and the two
    // fan-outs, messages and unread.
    scope.post('/rooms/:room_id/messages', async (request: FastifyRequest<MessageParams>, reply) => {
      request.endPhase('hooks')
      const user = request.user!
      const room = app.store.read((m) => roomFor(m, request, request.params.room_id))
      // An unread multipart body is discarded by Node once the response is sent.
      if (!room) return reply.code(404).type('text/html; charset=utf-8').send(app.renderPartial('/messages/room_not_found'))
      let message: MessageRow
      if (request.isMultipart()) {
        const result = await postWithAttachment(app, config, request, reply, room)
        if ('error' in result) return result.error
        message = result.message
      } else {
        const clientMessageId = field(request.body, 'message', 'client_message_id') || randomUUID()
        if (!CLIENT_MESSAGE_ID.test(clientMessageId)) return reply.sendError(422, 'That message id is not valid.')
        const body = readBody(app, request, reply)
        if (!body) return reply
        request.endPhase('body')
        message = await app.store.write((m) => postMessage(m, { roomId: room.id, creatorId: user.id, clientMessageId, ...body }))
      }
      request.endPhase('write')
      const stream = announceNewMessage(app, request, room, message, user)
      if (!wantsTurboStream(request)) return reply.redirect(`/rooms/${room.id}`, 303)
      return reply.type(TURBO_STREAM_TYPE).send(stream)
    })
  })

  await app.register(show)
  await app.register(edit)
  const revise = update(app)
  resourceRoutes(app, '/rooms/:room_id/messages/:id', { PATCH: revise, PUT: revise, DELETE: destroy(app, config) })
  await app.register(permalink)
}
