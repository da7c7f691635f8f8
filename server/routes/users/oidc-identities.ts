import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { denyBots } from '../deny-bots.ts'
import { resourceRoutes } from '../method-override.ts'

export const NEEDS_PASSWORD = 'Set a password on your profile before unlinking, so you can still sign in.'

// The profile's linked identity at the provider: its owner may unlink it once they have a
// password to sign in with instead. A later sign-in with the provider links it again by email.
export default async function oidcIdentities(app: FastifyInstance) {
  const oidc = app.oidc
  if (!oidc) return
  app.addHook('preHandler', denyBots)

  async function destroy(request: FastifyRequest, reply: FastifyReply) {
    const user = request.user!
    if (user.password_digest === null) return reply.sendError(422, NEEDS_PASSWORD)
    await app.store.write((m) => m.oidcIdentities.unlink(user.id, oidc!.issuer))
    return reply.flash({ notice: '✓' }).redirect(`/users/${user.id}/profile`, 302)
  }

  resourceRoutes(app, '/users/me/oidc_identity', { DELETE: destroy })
}
