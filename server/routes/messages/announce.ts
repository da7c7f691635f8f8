import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { MessageRow } from '../../models/message.ts'
import type { RoomRow } from '../../models/room.ts'
import type { UserRow } from '../../models/user.ts'
import { requestOrigin } from '../../plugins/security.ts'
import { emptyCacheStats, type CacheStats } from '../../rendering/cache-stats.ts'
import { epochSeconds } from '../../rendering/helpers/time.ts'
import { turboStream } from '../../rendering/turbo-streams.ts'
import { renderMessageIn } from './message-scoped.ts'

// Where a new message is announced from: the origin its absolute URLs use, who it is rendered
// for, and the request's Server-Timing stages when there is a request (a webhook's reply has none).
export interface AnnounceContext {
  origin: string
  viewerId: number
  stats?: CacheStats
  endPhase?: (name: string) => void
}

export interface AnnounceOptions {
  // False for a bot's reply to a webhook: it is broadcast, counted unread and pushed as any
  // message, and the listeners are told (CreatedMessage.triggersWebhooks) not to fire webhooks for it.
  triggersWebhooks?: boolean
}

// A committed new message goes out, whoever posted it (a person or a bot): rendered (into the
// shared fragment cache too), appended on the room's stream, an unread notice to every member,
// then handed to the new-message listeners (webhooks, Web Push), which queue their own work.
// Answers the Turbo Stream, for the poster's own answer. Each step is a Server-Timing stage.
export function announceNewMessage(app: FastifyInstance, request: FastifyRequest, room: RoomRow, message: MessageRow, creator: UserRow, options: AnnounceOptions = {}): string {
  const context = { origin: requestOrigin(request), viewerId: request.user!.id, stats: request.cacheStats, endPhase: (name: string) => request.endPhase(name) }
  return announceMessage(app, context, room, message, creator, options)
}

// The same without a request.
export function announceMessage(app: FastifyInstance, context: AnnounceContext, room: RoomRow, message: MessageRow, creator: UserRow, options: AnnounceOptions = {}): string {
  const endPhase = context.endPhase ?? (() => undefined)
  const stream = turboStream('append', app.helpers.roomDomId(room, 'messages'), renderMessageIn(app, context.origin, context.viewerId, context.stats ?? emptyCacheStats(), message))
  endPhase('render')
  app.cable.messageCreated(room, stream)
  endPhase('messages')
  app.cable.unreadRoom(room.id, app.store.read((m) => m.memberships.userIdsIn(room.id)), epochSeconds(message.created_at))
  endPhase('unread')
  app.messageListeners.created({ message, room, creator, origin: context.origin, triggersWebhooks: options.triggersWebhooks ?? true })
  return stream
}
