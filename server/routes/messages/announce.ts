import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { MessageRow } from '../../models/message.ts'
import type { RoomRow } from '../../models/room.ts'
import type { UserRow } from '../../models/user.ts'
import { requestOrigin } from '../../plugins/security.ts'
import { epochSeconds } from '../../rendering/helpers/time.ts'
import { turboStream } from '../../rendering/turbo-streams.ts'
import { renderMessage } from './message-scoped.ts'

// A committed new message goes out, whoever posted it (a person or a bot): rendered (into the
// shared fragment cache too), appended on the room's stream, an unread notice to every member,
// then handed to the new-message listeners (webhooks, Web Push), which queue their own work.
// Answers the Turbo Stream, for the poster's own answer. Each step is a Server-Timing stage.
export function announceNewMessage(app: FastifyInstance, request: FastifyRequest, room: RoomRow, message: MessageRow, creator: UserRow): string {
  const stream = turboStream('append', app.helpers.roomDomId(room, 'messages'), renderMessage(app, request, message))
  request.endPhase('render')
  app.cable.messageCreated(room, stream)
  request.endPhase('messages')
  app.cable.unreadRoom(room.id, app.store.read((m) => m.memberships.userIdsIn(room.id)), epochSeconds(message.created_at))
  request.endPhase('unread')
  app.messageListeners.created({ message, room, creator, origin: requestOrigin(request) })
  return stream
}
