import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { BOOST_MAX_LENGTH } from '../../../models/boost.ts'
import type { MessageRow } from '../../../models/message.ts'
import { boostMessage, unboostMessage } from '../../../models/message/posting.ts'
import type { RoomRow } from '../../../models/room.ts'
import { boostJson } from '../../../rendering/message-json.ts'
import { positiveId } from '../../room-scoped.ts'
import { BOT_ROUTE, botRoom, head, isBlank, jsonContext, rawText, sendJson, type BotParams } from '../bot-scoped.ts'

// Messages::Boosts::ByBotsController: a bot boosts a message of one of its rooms with the raw
// body as the boost's content, and takes back its own boosts.
export default async function boostsByBots(app: FastifyInstance) {
  const collection = '/rooms/:room_id/:bot_key/messages/:message_id/boosts'

  // The message of the URL in the bot's room, or null once a 404 has been sent.
  function boostedMessage(request: FastifyRequest<BotParams>, reply: FastifyReply): { room: RoomRow; message: MessageRow } | null {
    const room = botRoom(app, request)
    const id = positiveId(request.params.message_id)
    const message = room && id !== null ? app.store.read((m) => m.messages.findInRoom(id, room.id)) : undefined
    if (room && message) return { room, message }
    head(reply, 404)
    return null
  }

  app.post<BotParams>(collection, BOT_ROUTE, async (request: FastifyRequest<BotParams>, reply) => {
    const found = boostedMessage(request, reply)
    if (!found) return reply
    const { room, message } = found
    const text = rawText(request)
    if (text === null) return reply.sendError(400, 'The body must be UTF-8 text.')
    if (isBlank(text)) return head(reply, 422)
    const content = text.trim()
    if ([...content].length > BOOST_MAX_LENGTH) return reply.sendError(422, `A boost is 1 to ${BOOST_MAX_LENGTH} characters.`)
    const bot = request.user!
    const boost = await app.store.write((m) => boostMessage(m, message, bot.id, content))
    const [display] = app.store.read((m) => m.messageDisplay.load([message], [room]))
    const shown = display?.boosts.find((b) => b.id === boost.id)
    if (shown) app.cable.boostCreated(room, message, app.messageRenderer.renderBoost(shown))
    const booster = shown?.booster ?? { id: bot.id, name: bot.name, bio: bot.bio, role: bot.role, updated_at: bot.updated_at }
    return sendJson(reply, 201, boostJson(jsonContext(app, request), boost, booster, message))
  })

  // Only the bot's own boosts: anyone else's is not found.
  app.delete<BotParams>(`${collection}/:id`, BOT_ROUTE, async (request: FastifyRequest<BotParams>, reply) => {
    const found = boostedMessage(request, reply)
    if (!found) return reply
    const boostId = positiveId(request.params.id)
    const boost = boostId === null ? undefined : app.store.read((m) => m.boosts.find(boostId, found.message.id))
    if (!boost || boost.booster_id !== request.user!.id) return head(reply, 404)
    await app.store.write((m) => unboostMessage(m, found.message, boost.id))
    app.cable.boostRemoved(found.room, boost.id)
    return head(reply, 204)
  })
}
