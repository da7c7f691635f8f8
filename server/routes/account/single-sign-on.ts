import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field } from '../../plugins/body.ts'
import { isAdministrator } from '../../models/user.ts'
import { castBoolean } from './account-form.ts'
import { resourceRoutes } from '../method-override.ts'

export const NO_ADMINISTRATOR_WITH_PASSWORD = 'Signing in with the provider only needs at least one active administrator with a password, so a broken provider locks no one out.'

// The account page's "Sign in with <provider> only" switch. Members then sign in with the
// provider; administrators with a password keep it, and the switch can't be turned on while no
// administrator has one. reset-password (server/admin/) works whatever it says.
export default async function singleSignOn(app: FastifyInstance) {
  const oidc = app.oidc
  if (!oidc) return

  async function update(request: FastifyRequest, reply: FastifyReply) {
    if (!isAdministrator(request.user!)) return reply.sendError(403)
    const value = field(request.body, 'provider_only')
    if (value === undefined) return reply.sendError(400, 'The provider_only field is missing.')
    const on = castBoolean(value)
    const saved = await app.store.write((m) => {
      if (on && m.oidcIdentities.administratorsWithPassword() === 0) return false
      m.oidcIdentities.setProviderOnly(on)
      return true
    })
    if (!saved) return reply.sendError(422, NO_ADMINISTRATOR_WITH_PASSWORD)
    return reply.flash({ notice: '✓' }).redirect('/account/edit', 302)
  }

  resourceRoutes(app, '/account/single_sign_on', { PUT: update, PATCH: update })
}
