import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import { postMessageAsMember } from '../../models/message/posting.ts'
import { field } from '../../plugins/body.ts'
import { TURBO_STREAM_TYPE } from '../../rendering/turbo-streams.ts'
import { positiveId, roomFor, wantsTurboStream } from '../room-scoped.ts'
import { announceNewMessage, repeatedMessageStream } from './announce.ts'
import { postWithAttachment } from './attachments.ts'
import { BodyError, composeBody } from './body.ts'
import { CLIENT_MESSAGE_ID, type MessageParams } from './message-scoped.ts'

// POST /rooms/:room_id/messages: a message from the composer, as a form or (with a file) as
// multipart. Its Server-Timing has the post's stages: hooks (authentication and parsing, before
// the route), body (sanitising the rich text; not for uploads), write, render, and the two
// fan-outs, messages and unread.
//
// A form post reads nothing before its write: the room is found, the message written and what
// its announcement shows read back, all in one transaction on the writer's connection. A room
// that is not the person's is a 404 whatever the body; a refused body is a 422 only to a member.
// A post that repeats the person's client_message_id in the same room (a retry) is answered with
// the stored message, as the first one was, and writes nothing; in another room it is a 409.
export function create(app: FastifyInstance, config: Config) {
  const roomNotFound = (reply: FastifyReply) => reply.code(404).type('text/html; charset=utf-8').send(app.renderPartial('/messages/room_not_found'))

  return async function create(request: FastifyRequest<MessageParams>, reply: FastifyReply) {
    request.endPhase('hooks')
    const user = request.user!
    if (request.isMultipart()) {
      const room = app.store.read((m) => roomFor(m, request, request.params.room_id))
      // An unread multipart body is discarded by Node once the response is sent.
      if (!room) return roomNotFound(reply)
      const result = await postWithAttachment(app, config, request, reply, room)
      if ('error' in result) return result.error
      request.endPhase('write')
      if (result.repeated) return answer(request, reply, room.id, repeatedMessageStream(app, request, result.room, result.repeated))
      return answer(request, reply, room.id, announceNewMessage(app, request, room, result.message, user))
    }

    const roomId = positiveId(request.params.room_id)
    if (roomId === null) return roomNotFound(reply)
    const refuse = (message: string) => (app.store.read((m) => m.rooms.findForUser(roomId, user.id)) ? reply.sendError(422, message) : roomNotFound(reply))
    const clientMessageId = field(request.body, 'message', 'client_message_id') || randomUUID()
    if (!CLIENT_MESSAGE_ID.test(clientMessageId)) return refuse('That message id is not valid.')
    let body: { body: string; plainText: string }
    try {
      body = composeBody(app, field(request.body, 'message', 'body'))
    } catch (error) {
      if (!(error instanceof BodyError)) throw error
      return refuse(error.message)
    }
    request.endPhase('body')
    const posted = await app.store.write((m) => postMessageAsMember(m, { roomId, creatorId: user.id, clientMessageId, ...body }))
    if (!posted) return roomNotFound(reply)
    if (posted === 'elsewhere') return reply.sendError(409, CLASH)
    request.endPhase('write')
    if (posted.repeated) return answer(request, reply, roomId, repeatedMessageStream(app, request, posted.room, posted.announcement))
    return answer(request, reply, roomId, announceNewMessage(app, request, posted.room, posted.message, user, {}, posted.announcement))
  }
}

export const CLASH = 'That message id is already yours in another room.'

// The Turbo Stream that appends the message, or back to the room for a plain form.
function answer(request: FastifyRequest, reply: FastifyReply, roomId: number, stream: string): FastifyReply {
  if (!wantsTurboStream(request)) return reply.redirect(`/rooms/${roomId}`, 303)
  return reply.type(TURBO_STREAM_TYPE).send(stream)
}
