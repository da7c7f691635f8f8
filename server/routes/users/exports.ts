import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ExportOwner } from '../../plugins/exports.ts'
import { denyBots } from '../deny-bots.ts'
import { EXPORT_BUSY, exportFileName, exportView, sendExport } from '../export-download.ts'

type PersonRequest = FastifyRequest<{ Params: { user_id: string } }>

// A person's export of their own messages (every room they wrote in), from their profile: the
// page with its status, preparing it in the background, and the download. Only their own: the
// :user_id is "me" or their id; anyone else's is not found.
export default async function userExports(app: FastifyInstance) {
  app.addHook('preHandler', denyBots)

  function ownerOf(request: PersonRequest, reply: FastifyReply): ExportOwner | null {
    const { user_id: param } = request.params
    const user = request.user!
    if (param !== 'me' && param !== String(user.id)) return void reply.sendError(404), null
    return `person-${user.id}`
  }

  app.get('/users/:user_id/export', async (request: PersonRequest, reply) => {
    const owner = ownerOf(request, reply)
    if (!owner) return reply
    return reply.view('users/exports/show', { title: 'Export my messages', ...exportView(app.exports, owner), rooms: [], action: '/users/me/export' })
  })

  app.post('/users/:user_id/export', async (request: PersonRequest, reply) => {
    const owner = ownerOf(request, reply)
    if (!owner) return reply
    if (app.exports.start(owner, { kind: 'person', userId: request.user!.id }) === 'busy') return reply.sendError(409, EXPORT_BUSY)
    return reply.redirect('/users/me/export', 302)
  })

  app.get('/users/:user_id/export.zip', async (request: PersonRequest, reply) => {
    const owner = ownerOf(request, reply)
    if (!owner) return reply
    return sendExport(request, reply, app.exports, owner, exportFileName('messages'))
  })
}
