import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { filesRootOf } from '../../lib/files.ts'
import type { StoredUpload } from '../../lib/uploads.ts'
import type { MessageRow } from '../../models/message.ts'
import { postMessageIn, postMessageWithAttachment, type Announcement } from '../../models/message/posting.ts'
import type { RoomRow } from '../../models/room.ts'
import type { UserRow } from '../../models/user.ts'
import { announceMessage, announceNewMessage } from './announce.ts'
import { prepareAttachment, recordDerivatives, recordPreview, removePrepared } from './attachment-processing.ts'
import { composeBody } from './body.ts'

// What a bot posts: rich text (HTML, as upstream's `body: text`), or a file already stored
// with storeUpload (its blob key and path), shown under `filename`.
export type BotPost = { text: string } | { file: StoredUpload; filename: string }

export interface BotPostOptions {
  // The request it answers, when there is one (its Server-Timing stages, its origin).
  request?: FastifyRequest
  // Without a request: the origin absolute URLs in the message use (CreatedMessage.origin).
  origin?: string
  // False for a reply to a webhook: broadcast, unread and pushed, but it triggers no webhooks.
  triggersWebhooks?: boolean
}

export { BodyError } from './body.ts'

// A bot's message is a message: written in one transaction with its rich text and search row
// (and its attachment, an image's thumbnail made first), then announced (broadcast, unread,
// page caches, listeners). Text that cannot be a message (blank, too long, nested too deeply)
// throws a BodyError before anything is written; a stored file is removed again if the write
// fails. Whether the bot may post in
// the room is the caller's to decide (the bot API checks membership; a webhook's bot was
// mentioned or is in the ping).
export async function postAsBot(app: FastifyInstance, bot: UserRow, room: RoomRow, post: BotPost, options: BotPostOptions = {}): Promise<MessageRow> {
  const clientMessageId = randomUUID()
  let message: MessageRow
  let announcement: Announcement | undefined
  if ('text' in post) {
    const body = composeBody(app, post.text)
    const posted = await app.store.write((m) => postMessageIn(m, { roomId: room.id, creatorId: bot.id, clientMessageId, ...body }, room))
    message = posted.message
    announcement = posted.announcement
  } else {
    const { file, filename } = post
    const input = { roomId: room.id, creatorId: bot.id, clientMessageId, body: '', plainText: filename }
    const prepared = await prepareAttachment(app, filesRootOf(file.path), file, filename).catch(async (error: unknown) => {
      await rm(file.path, { force: true })
      throw error
    })
    try {
      message = await app.store.write((m) => postMessageWithAttachment(m, input, prepared.blob, (models, blobId) => recordPreview(models, blobId, prepared)))
    } catch (error) {
      await removePrepared(prepared)
      throw error
    }
    await recordDerivatives(app, message, prepared)
  }
  options.request?.endPhase('write')
  const announcing = { triggersWebhooks: options.triggersWebhooks ?? true }
  if (options.request) announceNewMessage(app, options.request, room, message, bot, announcing, announcement)
  else announceMessage(app, { origin: options.origin ?? '', viewerId: bot.id }, room, message, bot, announcing, announcement)
  return message
}
