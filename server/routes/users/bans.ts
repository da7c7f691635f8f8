import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isAdministrator, type UserRow } from '../../models/user.ts'
import { banUser, unbanUser } from '../../models/user/banning.ts'
import { denyBots } from '../deny-bots.ts'
import { resourceRoutes } from '../method-override.ts'
import { parseId } from '../rooms/room-scope.ts'

type BanRequest = FastifyRequest<{ Params: { user_id: string } }>

export const SELF_BAN_REFUSED = 'You can’t ban yourself.'

// Users::BansController: administrators ban anyone but themselves, of any role or status.
// Banning blocks the person's public addresses, signs them out everywhere and removes their
// messages (after the answer, in batches); removing the ban makes them active again.
export default async function bans(app: FastifyInstance) {
  app.addHook('preHandler', denyBots)

  function target(request: BanRequest, reply: FastifyReply): UserRow | null {
    const refuse = (status: number, message?: string) => (reply.sendError(status, message), null)
    if (!isAdministrator(request.user!)) return refuse(403)
    const id = parseId(request.params.user_id)
    const user = id === null ? undefined : app.store.read((m) => m.users.find(id))
    if (!user) return refuse(404)
    // Upstream only hides the button from administrators on their own profile; we refuse too.
    if (user.id === request.user!.id) return refuse(403, SELF_BAN_REFUSED)
    return user
  }

  async function create(request: BanRequest, reply: FastifyReply) {
    const user = target(request, reply)
    if (!user) return reply
    const outcome = await app.store.write((m) => banUser(m, user.id))
    app.cable.disconnectUser(user.id, { reconnect: false })
    void app.bannedContent.remove(user.id)
    request.log.info({ userId: user.id, addresses: outcome.banned.length, skipped: outcome.skipped }, 'banned a person')
    return reply.redirect(`/users/${user.id}`, 302)
  }

  async function destroy(request: BanRequest, reply: FastifyReply) {
    const user = target(request, reply)
    if (!user) return reply
    await app.store.write((m) => unbanUser(m, user.id))
    return reply.redirect(`/users/${user.id}`, 302)
  }

  resourceRoutes(app, '/users/:user_id/ban', { POST: create, DELETE: destroy })
}
