import type { FastifyInstance, FastifyRequest } from 'fastify'
import { qrCodePath } from '../../lib/qr-code.ts'
import { isAdministrator } from '../../models/user.ts'
import { requestOrigin } from '../../plugins/security.ts'

// The links the invite block shows: the absolute join URL and the path of its QR code.
export function inviteLinks(app: FastifyInstance, request: FastifyRequest): { joinUrl: string; qrCodePath: string } {
  const code = app.store.read((m) => m.accounts.first())?.join_code ?? ''
  const joinUrl = `${requestOrigin(request)}/join/${code}`
  return { joinUrl, qrCodePath: qrCodePath(joinUrl) }
}

// Accounts::JoinCodesController: an administrator replaces the join code, and every link with
// the old one stops working. Back to the account page, as upstream, from wherever it was asked.
export default async function joinCodes(app: FastifyInstance) {
  app.post('/account/join_code', async (request, reply) => {
    if (!isAdministrator(request.user!)) return reply.sendError(403)
    const account = app.store.read((m) => m.accounts.first())
    if (!account) return reply.sendError(404)
    await app.store.write((m) => m.accountJoinCodes.resetJoinCode(account.id))
    return reply.redirect('/account/edit', 302)
  })
}
