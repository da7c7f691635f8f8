import { rm } from 'node:fs/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import { blobPath } from '../../lib/files.ts'
import type { MessageRow } from '../../models/message.ts'
import { removeMessage, reviseMessage } from '../../models/message/posting.ts'
import type { RoomRow } from '../../models/room.ts'
import { canAdminister } from '../../models/user/role.ts'
import { requestOrigin } from '../../plugins/security.ts'
import { messageJson } from '../../rendering/message-json.ts'
import { readMultipartForm, UploadRefused } from '../multipart-form.ts'
import { positiveId } from '../room-scoped.ts'
import { BodyError, composeBody } from './body.ts'
import { postAsBot } from './bot-posting.ts'
import { BOT_ROUTE, botRoom, head, isBlank, jsonContext, rawText, sendJson, type BotParams } from './bot-scoped.ts'

type IndexRequest = FastifyRequest<BotParams & { Querystring: { before?: unknown; after?: unknown } }>

// Messages::ByBotsController: a bot reads a room's messages as JSON, posts (the raw body, or a
// multipart `attachment`), and edits or deletes its own messages.
export default async function byBots(app: FastifyInstance, options: { config: Config }) {
  const { config } = options
  const collection = '/rooms/:room_id/:bot_key/messages'
  const member = `${collection}/:id`

  // Pages of 40, oldest first, before or after a message of the room; the Link header names
  // the next page in the same direction while there is one.
  app.get<BotParams & { Querystring: { before?: unknown; after?: unknown } }>(collection, BOT_ROUTE, async (request: IndexRequest, reply) => {
    const before = present(request.query.before)
    const after = before === undefined ? present(request.query.after) : undefined
    const page = app.store.read((m) => {
      const room = botRoom(app, request)
      if (!room) return null
      const anchorId = before ?? after
      const anchor = anchorId === undefined ? undefined : m.messages.findInRoom(positiveId(anchorId) ?? 0, room.id)
      if (anchorId !== undefined && !anchor) return null
      const rows = !anchor ? m.messagePages.lastPage(room.id) : before !== undefined ? m.messagePages.pageBefore(anchor) : m.messagePages.pageAfter(anchor)
      let next: string | null = null
      if (rows.length > 0 && after !== undefined) next = m.messagePages.pageAfter(rows.at(-1)!, 1).length > 0 ? `after=${rows.at(-1)!.id}` : null
      else if (rows.length > 0) next = m.messagePages.pageBefore(rows[0]!, 1).length > 0 ? `before=${rows[0]!.id}` : null
      return { room, total: m.messages.countInRoom(room.id), messages: m.messageDisplay.load(rows, [room]), next }
    })
    if (!page) return head(reply, 404)
    reply.header('x-total-count', String(page.total))
    if (page.next) reply.header('link', `<${requestOrigin(request)}/rooms/${page.room.id}/${encodeURIComponent(request.params.bot_key)}/messages?${page.next}>; rel="next"`)
    const context = jsonContext(app, request)
    return sendJson(reply, 200, page.messages.map((message) => messageJson(context, message)))
  })

  // 201 with the message's Location (GET /messages/:id shows it to people who may see it).
  app.post<BotParams>(collection, { config: { ...BOT_ROUTE.config, diskReserve: 'text-post' } }, async (request: FastifyRequest<BotParams>, reply) => {
    request.endPhase('hooks')
    const room = botRoom(app, request)
    if (!room) return head(reply, 404)
    let message: MessageRow
    if (request.isMultipart()) {
      let form
      try {
        form = await readMultipartForm(request, config, { fileField: 'attachment', fields: 10, tooLargeStatus: 413 })
      } catch (error) {
        if (error instanceof UploadRefused) return reply.sendError(error.status, error.message)
        throw error
      }
      if (!form.file) return head(reply, 422)
      message = await postAsBot(app, request.user!, room, { file: form.file, filename: form.filename }, { request })
    } else {
      const text = rawText(request)
      if (text === null) return reply.sendError(400, 'The body must be UTF-8 text.')
      if (isBlank(text)) return head(reply, 422)
      try {
        message = await postAsBot(app, request.user!, room, { text }, { request })
      } catch (error) {
        if (error instanceof BodyError) return reply.sendError(422, error.message)
        throw error
      }
    }
    return reply.code(201).header('location', `${requestOrigin(request)}/messages/${message.id}`).send()
  })

  // The room, and the bot's own message in it: 404 for a room or message it cannot reach, 403
  // for someone else's message (can_administer?: a bot administers only what it created).
  function ownMessage(request: FastifyRequest<BotParams>, reply: FastifyReply): { room: RoomRow; message: MessageRow } | null {
    const room = botRoom(app, request)
    const id = positiveId(request.params.id)
    const message = room && id !== null ? app.store.read((m) => m.messages.findInRoom(id, room.id)) : undefined
    if (!room || !message) {
      head(reply, 404)
      return null
    }
    if (!canAdminister(request.user!, message)) {
      head(reply, 403)
      return null
    }
    return { room, message }
  }

  async function update(request: FastifyRequest<BotParams>, reply: FastifyReply) {
    const found = ownMessage(request, reply)
    if (!found) return reply
    const { room, message } = found
    const text = rawText(request)
    if (text === null) return reply.sendError(400, 'The body must be UTF-8 text.')
    let body
    try {
      if (isBlank(text)) throw new BodyError('A message needs a body.')
      body = composeBody(app, text)
    } catch (error) {
      if (error instanceof BodyError) return reply.sendError(422, error.message)
      throw error
    }
    await app.store.write((m) => reviseMessage(m, message, body.body, body.plainText))
    const [revised] = app.store.read((m) => m.messageDisplay.load([m.messages.find(message.id)!], [room]))
    app.cable.messageUpdated(room, message, app.messageRenderer.renderPresentation(revised!))
    return sendJson(reply, 200, messageJson(jsonContext(app, request), revised!))
  }

  app.patch<BotParams>(member, BOT_ROUTE, update)
  app.put<BotParams>(member, BOT_ROUTE, update)

  app.delete<BotParams>(member, BOT_ROUTE, async (request: FastifyRequest<BotParams>, reply) => {
    const found = ownMessage(request, reply)
    if (!found) return reply
    const keys = await app.store.write((m) => removeMessage(m, found.message))
    await Promise.all(keys.flatMap((key) => blobPath(config.filesPath, key) ?? []).map((path) => rm(path, { force: true })))
    app.cable.messageRemoved(found.room, found.message)
    return head(reply, 204)
  })
}

// params[:x].present?: a non-blank string; anything else counts as not given.
function present(value: unknown): string | undefined {
  return typeof value === 'string' && !isBlank(value) ? value : undefined
}
