import type { FastifyReply, FastifyRequest } from 'fastify'
import { ROLES } from '../models/user.ts'

// deny_bots: these pages are for people. A bot signed in some other way than with its key
// gets 403, as upstream answers bot-key requests outside the bot API.
export async function denyBots(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (request.user?.role === ROLES.bot) return reply.sendError(403)
  return undefined
}
