import type { FastifyInstance, FastifyRequest } from 'fastify'
import { qrCodePath } from '../../lib/qr-code.ts'
import { isAdministrator } from '../../models/user.ts'
import { canClaim, claimToken, CLAIM_LINK_EXPIRY_MS } from '../../models/user/claimable.ts'
import { requestOrigin } from '../../plugins/security.ts'
import { parseId } from '../rooms/room-scope.ts'

// An administrator's page for one person's claim link (models/user/claimable.ts): someone an
// import brought in, who has never had a password, gets a link of their own to pick an email
// and a password. A fresh link on every visit; each stops working once one is used.
export default async function claimLinks(app: FastifyInstance) {
  app.get('/account/users/:id/claim_link', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    if (!isAdministrator(request.user!)) return reply.sendError(403)
    const id = parseId(request.params.id)
    const person = id === null ? undefined : app.store.read((m) => m.users.find(id))
    if (!person || !canClaim(person)) return reply.sendError(404)
    const url = `${requestOrigin(request)}/claim/${claimToken(app.signing, person)}`
    reply.header('cache-control', 'no-store')
    return reply.view('accounts/users/claim_link', { title: `Claim link for ${person.name}`, person, url, qrCodePath: qrCodePath(url), days: CLAIM_LINK_EXPIRY_MS / 86_400_000 })
  })
}
