import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { RoomRow } from '../../models/room.ts'
import { requestOrigin } from '../../plugins/security.ts'
import type { JsonContext } from '../../rendering/message-json.ts'
import { positiveId } from '../room-scoped.ts'
import { MAX_BODY_LENGTH, mentionName } from './body.ts'

// What the bot API's routes share (bot-api.ts sets up their scope).
// A raw body is bounded: four bytes for each character a message may have.
export const RAW_BODY_LIMIT = MAX_BODY_LENGTH * 4

export const BOT_ROUTE = { config: { allowUnauthenticated: true, skipForgeryProtection: true } }

export type BotParams = { Params: { room_id: string; bot_key: string; id?: string; message_id?: string } }

// The room of the URL, among the bot's own rooms (pings included).
export function botRoom(app: FastifyInstance, request: FastifyRequest<BotParams>): RoomRow | undefined {
  const id = positiveId(request.params.room_id)
  return id === null ? undefined : app.store.read((m) => m.rooms.findForUser(id, request.user!.id))
}

// The raw body as UTF-8 text ('' when there is none), or null when its bytes are not UTF-8.
export function rawText(request: FastifyRequest): string | null {
  const body = request.body
  if (body === undefined || body === null) return ''
  if (!Buffer.isBuffer(body)) return null
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body)
  } catch {
    return null
  }
}

// Ruby's String#blank?: nothing but whitespace.
export const isBlank = (text: string): boolean => /^\s*$/u.test(text)

export function jsonContext(app: FastifyInstance, request: FastifyRequest): JsonContext {
  return {
    origin: requestOrigin(request),
    bodyHtml: (message) => app.messageRenderer.bodyHtml(message),
    avatarPath: app.helpers.avatarPath,
    mentionName: (sgid) => mentionName(app, sgid),
  }
}

// head :status, as upstream answers the bot API's refusals.
export function head(reply: FastifyReply, status: number): FastifyReply {
  return reply.code(status).send()
}

export function sendJson(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(value))
}
