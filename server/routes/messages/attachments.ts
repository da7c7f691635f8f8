import { randomUUID } from 'node:crypto'
import { rm } from 'node:fs/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import type { MessageRow } from '../../models/message.ts'
import { announcementOf, postMessage, postMessageWithAttachment, repeatOf, type Announcement } from '../../models/message/posting.ts'
import type { RoomRow } from '../../models/room.ts'
import { prepareAttachment, recordDerivatives, recordPreview, removePrepared, type PreparedAttachment } from './attachment-processing.ts'
import { BodyError, composeBody } from './body.ts'
import { CLIENT_MESSAGE_ID } from './message-scoped.ts'
import { readMultipart, UploadRefused, type MultipartMessage } from './multipart.ts'

// A post from the composer's file upload (multipart): the file is stored first and an image's
// thumbnail made from it, then the message and its attachment are written together, then the
// thumbnail's variant record, all before the message is answered or announced (as
// create_with_attachment! processes it synchronously); a refused post leaves no file behind.
// Answers with the new message, or with the reply once an error has been sent. A post that repeats
// the person's client_message_id (a retry) writes nothing, keeps no file, and answers the stored
// message with what its announcement shows (`repeated`); in another room it is a 409.
export async function postWithAttachment(
  app: FastifyInstance,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  room: RoomRow,
): Promise<{ message: MessageRow; room: RoomRow; repeated?: Announcement } | { error: FastifyReply }> {
  let message: MultipartMessage
  try {
    message = await readMultipart(request, config)
  } catch (error) {
    if (error instanceof UploadRefused) return { error: reply.sendError(error.status, error.message) }
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
  const stored = app.store.read((m) => repeatOf(m, input))
  if (stored) {
    await cleanup()
    if (stored === 'elsewhere') return { error: reply.sendError(409, 'That message id is already yours in another room.') }
    return { message: stored, room, repeated: app.store.read((m) => announcementOf(m, stored, room)) }
  }
  let prepared: PreparedAttachment | null = null
  let created: MessageRow | { repeat: MessageRow }
  try {
    prepared = upload ? await prepareAttachment(app, config.filesPath, upload, filename) : null
    const attachment = prepared
    // Checked again in the writing transaction: the same retry may have arrived twice at once.
    created = await app.store.write((m) => {
      const repeat = repeatOf(m, input)
      if (repeat === 'elsewhere') throw new Error('unreachable: checked above')
      if (repeat) return { repeat }
      return attachment ? postMessageWithAttachment(m, input, attachment.blob, (models, blobId) => recordPreview(models, blobId, attachment)) : postMessage(m, input)
    })
  } catch (error) {
    await (prepared ? removePrepared(prepared) : cleanup())
    throw error
  }
  if ('repeat' in created) {
    const stored = created.repeat
    await (prepared ? removePrepared(prepared) : cleanup())
    return { message: stored, room, repeated: app.store.read((m) => announcementOf(m, stored, room)) }
  }
  if (prepared) await recordDerivatives(app, created, prepared)
  return { message: created, room }
}
