import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { MessageRow } from '../../models/message.ts'
import { announcementOf, type Announcement } from '../../models/message/posting.ts'
import type { RoomRow } from '../../models/room.ts'
import type { UserRow } from '../../models/user.ts'
import { emptyCacheStats, type CacheStats } from '../../rendering/cache-stats.ts'
import { epochSeconds } from '../../rendering/helpers/time.ts'
import { turboStream } from '../../rendering/turbo-streams.ts'

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

// A committed new message goes out, whoever posted it (a person or a bot): rendered, appended on
// the room's stream, an unread notice to every member,
// then handed to the new-message listeners (webhooks, Web Push), which queue their own work.
// Answers the Turbo Stream, for the poster's own answer. Each step is a Server-Timing stage.
// `announcement` is what the writing transaction read for it (postMessageAsMember); without it,
// it is read here, in one read transaction.
export function announceNewMessage(
  app: FastifyInstance, request: FastifyRequest, room: RoomRow, message: MessageRow, creator: UserRow, options: AnnounceOptions = {}, announcement?: Announcement,
): string {
  const context = { origin: app.outgoingOrigin(request), viewerId: request.user!.id, stats: request.cacheStats, endPhase: (name: string) => request.endPhase(name) }
  return announceMessage(app, context, room, message, creator, options, announcement)
}

// The same without a request.
export function announceMessage(
  app: FastifyInstance, context: AnnounceContext, room: RoomRow, message: MessageRow, creator: UserRow, options: AnnounceOptions = {}, announcement?: Announcement,
): string {
  const endPhase = context.endPhase ?? (() => undefined)
  const { display, memberIds } = announcement ?? app.store.read((m) => announcementOf(m, message, room))
  // Rendered once, for the poster's answer and every socket's frame. It is not put in the shared
  // fragment cache: a page that shows the message renders and keeps it then (one render), whereas
  // keeping every post's fragment (about 9 KB) as it is written made a burst of posts mostly
  // garbage collection.
  const stats = context.stats ?? emptyCacheStats()
  stats.recordMisses++
  stats.fragmentMisses++
  const stream = turboStream('append', app.helpers.roomDomId(room, 'messages'), app.messageRenderer.render(display, context.origin))
  endPhase('render')
  app.cable.messageCreated(room, stream)
  endPhase('messages')
  app.cable.unreadRoom(room, memberIds, epochSeconds(message.created_at))
  endPhase('unread')
  app.messageListeners.created({ message, room, creator, origin: context.origin, triggersWebhooks: options.triggersWebhooks ?? true })
  return stream
}

// The answer to a post that repeated a stored one (a retry whose first try did arrive): the same
// Turbo Stream the first post was answered with, for the poster only. Nothing is broadcast,
// counted unread or handed to the listeners again.
export function repeatedMessageStream(app: FastifyInstance, request: FastifyRequest, room: RoomRow, announcement: Announcement): string {
  return turboStream('append', app.helpers.roomDomId(room, 'messages'), app.messageRenderer.render(announcement.display, app.outgoingOrigin(request)))
}
