import { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { mediaTypeOf, mimeSymbol } from '../../lib/rails/mime.ts'
import { EmptyUpload, storeUpload, UploadTooLarge, type StoredUpload } from '../../lib/uploads.ts'
import type { WebhookOutcome } from '../../lib/webhook-request.ts'
import type { MessageRow } from '../../models/message.ts'
import { NestingTooDeep, plainText, sanitizeBody, type MentionNameResolver } from '../../models/rich-text/index.ts'
import type { RoomRow } from '../../models/room.ts'
import { STATUSES, type UserRow } from '../../models/user.ts'
import { escapeHtml } from '../../rendering/templates.ts'

// Upstream says "Failed to respond within 7 seconds"; the number follows the configured timeout.
export function timeoutNotice(timeoutMs: number): string {
  const seconds = Number((timeoutMs / 1000).toFixed(3))
  return `Failed to respond within ${seconds} ${seconds === 1 ? 'second' : 'seconds'}`
}

// A text reply is a message like any other, so it is held to the composer's length.
export const MAX_TEXT_REPLY_LENGTH = 100_000

export type ReplyPlan =
  | { kind: 'text'; html: string; plainText: string }
  | { kind: 'file'; contentType: string; filename: string; body: Buffer }
  | { kind: 'none'; reason: string }

// What a webhook's answer becomes (Webhook#deliver, with bug 4 fixed): a 200 text/html reply is
// sanitised rich text; a 200 text/plain reply is text (escaped, its line breaks kept); any other
// 200 reply with a content type is a file, attachment.<Rails' symbol for the type>; a timeout is
// the timeout notice; anything else (another status, no content type, a failure) is nothing.
export function planReply(outcome: WebhookOutcome, timeoutText: string, resolveMention: MentionNameResolver): ReplyPlan {
  if (outcome.kind === 'timeout') return textPlan(escapeHtml(timeoutText), resolveMention)
  if (outcome.kind === 'failed') return { kind: 'none', reason: outcome.reason }
  if (outcome.status !== 200) return { kind: 'none', reason: `answered ${outcome.status}` }
  if (outcome.contentType === null) return { kind: 'none', reason: 'answered without a content type' }
  const type = mediaTypeOf(outcome.contentType)
  if (type === 'text/html' || type === 'text/plain') {
    const text = new TextDecoder('utf-8').decode(outcome.body)
    if (text.length > MAX_TEXT_REPLY_LENGTH) return { kind: 'none', reason: `text reply over ${MAX_TEXT_REPLY_LENGTH} characters` }
    return textPlan(type === 'text/html' ? text : escapeHtml(text).replace(/\r?\n/g, '<br>'), resolveMention)
  }
  if (outcome.body.length === 0) return { kind: 'none', reason: 'empty reply' }
  const symbol = mimeSymbol(type)
  return { kind: 'file', contentType: type, filename: symbol ? `attachment.${symbol}` : 'attachment', body: outcome.body }
}

function textPlan(raw: string, resolveMention: MentionNameResolver): ReplyPlan {
  let html: string
  try {
    html = sanitizeBody(raw)
  } catch (error) {
    if (error instanceof NestingTooDeep) return { kind: 'none', reason: error.message }
    throw error
  }
  const text = plainText(html, resolveMention)
  if (text.trim() === '' && !/<action-text-attachment/i.test(html)) return { kind: 'none', reason: 'blank reply' }
  return { kind: 'text', html, plainText: text }
}

// Posts a bot's message and announces it (the bot API's postAsBot, passed in by app.ts so this
// plugin does not reach into the routes): with triggersWebhooks false the reply is broadcast,
// counted unread and pushed like any message, but never triggers a webhook.
export type BotPoster = (
  app: FastifyInstance,
  bot: UserRow,
  room: RoomRow,
  post: { text: string } | { file: StoredUpload; filename: string },
  options: { origin: string; triggersWebhooks: false },
) => Promise<MessageRow>

export interface ReplyTarget {
  room: RoomRow
  botId: number
  // The origin of the post that was answered, for the reply's absolute links.
  origin: string
}

// Posts the planned reply as the bot, if the bot is still active and in the room (either may
// have changed while the webhook ran). A file is stored first; a refused file posts nothing.
export async function postReply(app: FastifyInstance, post: BotPoster, target: ReplyTarget, plan: ReplyPlan, files: { path: string; maxBytes: number }): Promise<MessageRow | null> {
  if (plan.kind === 'none') return null
  const { room, botId, origin } = target
  const bot = app.store.read((m) => (m.rooms.findForUser(room.id, botId) ? m.users.find(botId) : undefined))
  if (!bot || bot.status !== STATUSES.active) return null
  const options = { origin, triggersWebhooks: false } as const
  if (plan.kind === 'text') return post(app, bot, room, { text: plan.html }, options)
  let file: StoredUpload
  try {
    file = await storeUpload(files.path, Readable.from([plan.body]), plan.contentType, files.maxBytes)
  } catch (error) {
    if (error instanceof EmptyUpload || error instanceof UploadTooLarge) return null
    throw error
  }
  return post(app, bot, room, { file, filename: plan.filename }, options)
}
