import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { UserRow } from '../../models/user.ts'
import { findByTransferId, transferId } from '../../models/user/transferable.ts'
import { qrCodePath } from '../../lib/qr-code.ts'
import { RETURN_TO_COOKIE, safeReturnPath } from '../../plugins/auth.ts'
import { requestOrigin } from '../../plugins/security.ts'
import { resourceRoutes } from '../method-override.ts'

type Params = { Params: { id: string } }
const INVALID = 'That sign-in link is invalid or has expired. Ask for a new one.'

// The links a transfer block shows: the absolute sign-in URL (a fresh one on every render) and
// the path of its QR code.
export function transferLinks(app: FastifyInstance, request: FastifyRequest, user: Pick<UserRow, 'id'>): { url: string; qrCodePath: string } {
  const url = `${requestOrigin(request)}/session/transfers/${transferId(app.signing, user)}`
  return { url, qrCodePath: qrCodePath(url) }
}

// Sessions::TransfersController: opening a transfer link shows a form that submits itself, so
// only a browser that runs the page signs in (a link preview fetching the URL doesn't); the PUT
// signs the link's person in on this device.
export default async function transfers(app: FastifyInstance) {
  const open = { config: { allowUnauthenticated: true } }

  app.get('/session/transfers/:id', open, async (request: FastifyRequest<Params>, reply) => {
    reply.header('cache-control', 'no-store')
    return reply.view('sessions/transfers/show', { transferId: request.params.id })
  })

  async function update(request: FastifyRequest<Params>, reply: FastifyReply) {
    const user = app.store.read((m) => findByTransferId(m, app.signing, request.params.id))
    if (!user) return reply.sendError(400, INVALID)
    await reply.startSession(user.id)
    const returnTo = safeReturnPath(request.cookies[RETURN_TO_COOKIE]) ?? '/'
    reply.clearCookie(RETURN_TO_COOKIE, { path: '/' })
    return reply.redirect(returnTo, 302)
  }

  resourceRoutes(app, '/session/transfers/:id', { PUT: update, PATCH: update }, open)
}
