import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import multipart from '@fastify/multipart'
import type { Config } from '../config.ts'
import { blobPath } from '../models/user/avatar.ts'
import { EmptyUpload, storeUpload, UploadTooLarge, type StoredUpload } from '../lib/uploads.ts'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field } from '../plugins/body.ts'
import { requestOrigin } from '../plugins/security.ts'
import { canAdminister } from '../models/user/role.ts'
import type { MessageRow } from '../models/message.ts'
import { postMessage, postMessageWithAttachment, removeMessage, reviseMessage } from '../models/message/posting.ts'
import { TURBO_STREAM_TYPE, turboStream, turboStreamRemove } from '../rendering/turbo-streams.ts'
import { composeBody, BodyError, MAX_BODY_LENGTH } from './messages/body.ts'
import { epochSeconds } from '../rendering/helpers/time.ts'
import { positiveId, roomFor, wantsTurboStream } from './room-scoped.ts'
import { resourceRoutes } from './method-override.ts'
import { rowsSignature, findOrRender, sendLookup } from './cached-pages.ts'

type Params = { Params: { room_id: string; id?: string }; Querystring: { before?: string; after?: string } }
const CLIENT_MESSAGE_ID = /^[A-Za-z0-9_.:-]{1,100}$/

// ActiveStorage::Filename#sanitized: no path separators, control or reserved characters.
export function sanitizeFilename(name: string | undefined): string {
  const cleaned = (name ?? '').replace(/[<>:"/\\|?*\u0000-\u001f\u007f]/g, '-').trim().slice(0, 255)
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'file' : cleaned
}

interface MultipartMessage {
  fields: Record<string, string>
  upload: StoredUpload | null
  filename: string
}

export default async function messages(app: FastifyInstance, options: { config: Config }) {
  const { config } = options

  function load(request: FastifyRequest<Params>) {
    return app.store.read((m) => {
      const room = roomFor(m, request, request.params.room_id)
      const id = positiveId(request.params.id)
      const message = room && id !== null ? m.messages.findInRoom(id, room.id) : undefined
      return { room, message }
    })
  }


  // The composed body, or null once a 422 has been sent.
  function readBody(request: FastifyRequest, reply: FastifyReply) {
    try {
      return composeBody(app, field(request.body, 'message', 'body'))
    } catch (error) {
      if (!(error instanceof BodyError)) throw error
      reply.sendError(422, error.message)
      return null
    }
  }

  // Through the fragment cache, so a new message's broadcast also fills it for the room page.
  function renderOne(request: FastifyRequest, message: MessageRow): string {
    return app.store.read((m) => {
      const row = m.messages.find(message.id) ?? message
      return app.messageFragments.renderAll(m, [row], { origin: requestOrigin(request), viewerId: request.user!.id, stats: request.cacheStats })
    })
  }

  // A page of history as a bare fragment, or 204 when there is none. It is the same for every
  // viewer, so it is cached once per room, anchor and origin, valid while its messages are.
  app.get('/rooms/:room_id/messages', async (request: FastifyRequest<Params>, reply) => {
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
  async function readMultipart(request: FastifyRequest): Promise<MultipartMessage> {
    const result: MultipartMessage = { fields: {}, upload: null, filename: 'file' }
    try {
      const parts = request.parts({ limits: { fileSize: config.maxUploadBytes, files: 1, fields: 10, parts: 11, fieldSize: MAX_BODY_LENGTH * 4 } })
      for await (const part of parts) {
        if (part.type === 'field') {
          if (typeof part.value === 'string') result.fields[part.fieldname] = part.value
        } else if (part.fieldname === 'message[attachment]' && !result.upload) {
          result.filename = sanitizeFilename(part.filename)
          result.upload = await storeUpload(config.filesPath, part.file, part.mimetype, config.maxUploadBytes)
        } else {
          part.file.resume()
        }
      }
      return result
    } catch (error) {
      if (result.upload) await rm(result.upload.path, { force: true })
      throw error
    }
  }

  async function createWithAttachment(request: FastifyRequest<Params>, reply: FastifyReply, room: { id: number }) {
    let message: MultipartMessage
    try {
      message = await readMultipart(request)
    } catch (error) {
      if (error instanceof UploadTooLarge || (error as { statusCode?: number }).statusCode === 413) return { error: reply.sendError(413, 'That file is too large.') }
      if (error instanceof EmptyUpload) return { error: reply.sendError(422, 'That file is empty.') }
      if ((error as { statusCode?: number }).statusCode === 400 || (error as { code?: string }).code?.startsWith('FST_')) return { error: reply.sendError(400) }
      throw error
    }
    const { upload, filename, fields } = message
    const cleanup = () => (upload ? rm(upload.path, { force: true }) : Promise.resolve())
    const clientMessageId = fields['message[client_message_id]'] || randomUUID()
    if (!CLIENT_MESSAGE_ID.test(clientMessageId)) {
      await cleanup()
      return { error: reply.sendError(422, 'That message id is not valid.') }
    }
    const raw = fields['message[body]']
    let body = { body: '', plainText: '' }
    try {
      if (raw !== undefined && raw.trim() !== '') body = composeBody(app, raw)
      else if (!upload) body = composeBody(app, raw)
    } catch (error) {
      await cleanup()
      if (!(error instanceof BodyError)) throw error
      return { error: reply.sendError(422, error.message) }
    }
    const input = { roomId: room.id, creatorId: request.user!.id, clientMessageId, ...body, plainText: body.plainText.trim() || filename }
    try {
      const created = await app.store.write((m) =>
        upload
          ? postMessageWithAttachment(m, input, { key: upload.key, filename, contentType: upload.contentType, metadata: upload.metadata, byteSize: upload.byteSize, checksum: upload.checksum })
          : postMessage(m, input),
      )
      return { message: created }
    } catch (error) {
      await cleanup()
      throw error
    }
  }

  await app.register(async function upload(scope) {
    await scope.register(multipart, { throwFileSizeLimit: true })

    // Its Server-Timing has the post's stages: hooks (authentication and parsing, before the
    // route), body (sanitising the rich text; not for uploads), write, render, and the two
    // fan-outs, messages and unread.
    scope.post('/rooms/:room_id/messages', async (request: FastifyRequest<Params>, reply) => {
      request.endPhase('hooks')
      const user = request.user!
      const room = app.store.read((m) => roomFor(m, request, request.params.room_id))
      // An unread multipart body is discarded by Node once the response is sent.
      if (!room) return reply.code(404).type('text/html; charset=utf-8').send(app.renderPartial('/messages/room_not_found'))
      let message: MessageRow
      if (request.isMultipart()) {
        const result = await createWithAttachment(request, reply, room)
        if ('error' in result) return result.error
        message = result.message
      } else {
        const clientMessageId = field(request.body, 'message', 'client_message_id') || randomUUID()
        if (!CLIENT_MESSAGE_ID.test(clientMessageId)) return reply.sendError(422, 'That message id is not valid.')
        const body = readBody(request, reply)
        if (!body) return reply
        request.endPhase('body')
        message = await app.store.write((m) => postMessage(m, { roomId: room.id, creatorId: user.id, clientMessageId, ...body }))
      }
      request.endPhase('write')
      const stream = turboStream('append', app.helpers.roomDomId(room, 'messages'), renderOne(request, message))
      request.endPhase('render')
      app.cable.messageCreated(room, stream)
      request.endPhase('messages')
      app.cable.unreadRoom(room.id, app.store.read((m) => m.memberships.userIdsIn(room.id)), epochSeconds(message.created_at))
      request.endPhase('unread')
      if (!wantsTurboStream(request)) return reply.redirect(`/rooms/${room.id}`, 303)
      return reply.type(TURBO_STREAM_TYPE).send(stream)
    })
  })

  app.get('/rooms/:room_id/messages/:id', async (request: FastifyRequest<Params>, reply) => {
    const { message } = load(request)
    if (!message) return reply.sendError(404)
    return reply.type('text/html; charset=utf-8').send(renderOne(request, message))
  })

  app.get('/rooms/:room_id/messages/:id/edit', async (request: FastifyRequest<Params>, reply) => {
    const { message } = load(request)
    if (!message) return reply.sendError(404)
    if (!canAdminister(request.user!, message)) return reply.sendError(403)
    const body = app.store.read((m) => m.messages.body(message.id)) ?? ''
    return reply.type('text/html; charset=utf-8').send(app.renderPartial('/messages/edit', { message, body }))
  })

  async function update(request: FastifyRequest<Params>, reply: FastifyReply) {
    const { room, message } = load(request)
    if (!room || !message) return reply.sendError(404)
    if (!canAdminister(request.user!, message)) return reply.sendError(403)
    const body = readBody(request, reply)
    if (!body) return reply
    await app.store.write((m) => reviseMessage(m, message, body.body, body.plainText))
    const [revised] = app.store.read((m) => m.messageDisplay.load([m.messages.find(message.id)!], [room]))
    app.cable.messageUpdated(room, message, app.messageRenderer.renderPresentation(revised!))
    if (String(request.headers.accept ?? '').includes('application/json')) {
      return reply.type('application/json; charset=utf-8').send({ id: message.id, room_id: room.id, body: { html: body.body, plain: body.plainText } })
    }
    return reply.redirect(`/rooms/${room.id}/messages/${message.id}`, 303)
  }

  async function destroy(request: FastifyRequest<Params>, reply: FastifyReply) {
    const { room, message } = load(request)
    if (!room || !message) return reply.sendError(404)
    if (!canAdminister(request.user!, message)) return reply.sendError(403)
    const keys = await app.store.write((m) => removeMessage(m, message))
    await Promise.all(keys.map((key) => { const path = blobPath(config.filesPath, key); return path ? rm(path, { force: true }) : undefined }))
    app.cable.messageRemoved(room, message)
    if (!wantsTurboStream(request)) return reply.redirect(`/rooms/${room.id}`, 303)
    return reply.type(TURBO_STREAM_TYPE).send(turboStreamRemove(app.helpers.messageDomId(message)))
  }

  resourceRoutes(app, '/rooms/:room_id/messages/:id', { PATCH: update, PUT: update, DELETE: destroy })

  // The bot API answers with Location: /messages/:id; upstream 404s there, we show the message.
  app.get('/messages/:id', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const id = positiveId(request.params.id)
    const message = id === null ? undefined : app.store.read((m) => {
      const found = m.messages.find(id)
      return found && m.rooms.findForUser(found.room_id, request.user!.id) ? found : undefined
    })
    if (!message) return reply.sendError(404)
    return reply.redirect(`/rooms/${message.room_id}/@${message.id}`, 302)
  })
}
