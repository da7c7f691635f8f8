import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isAdministrator } from '../../models/user.ts'
import { resetBotKey } from '../../models/user/bot-setup.ts'
import { resourceRoutes } from '../method-override.ts'
import { parseId } from '../rooms/room-scope.ts'

// Accounts::Bots::KeysController: an administrator gives a bot a new key (after a confirmation
// on its page); every URL with the old key stops working at once.
export default async function botKeys(app: FastifyInstance) {
  async function reset(request: FastifyRequest<{ Params: { bot_id: string } }>, reply: FastifyReply) {
    if (!isAdministrator(request.user!)) return reply.sendError(403)
    const id = parseId(request.params.bot_id)
    const reset = id !== null && (await app.store.write((m) => m.bots.findActive(id) !== undefined && resetBotKey(m, id)))
    if (!reset) return reply.sendError(404)
    return reply.redirect('/account/bots', 302)
  }

  resourceRoutes(app, '/account/bots/:bot_id/key', { PATCH: reset, PUT: reset })
}
