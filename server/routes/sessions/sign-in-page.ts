import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field } from '../../plugins/body.ts'

// The sign-in page, as asked for or after a refused attempt (by password or at the identity
// provider). With single sign-on the provider's button comes first; when the account signs in
// with the provider only, the password form is folded away for the administrators who keep it.
export function signInPage(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, status = 200, error?: string) {
  const { administrator, providerOnly } = app.store.read((m) => ({ administrator: m.users.firstAdministrator(), providerOnly: app.oidc !== null && m.oidcIdentities.providerOnly() }))
  const emailAddress = field(request.body, 'email_address') ?? field(request.query, 'email_address')
  const oidc = app.oidc ? { name: app.oidc.name, providerOnly } : null
  return reply.view('sessions/new', { error, emailAddress, administrator, oidc }, status)
}
