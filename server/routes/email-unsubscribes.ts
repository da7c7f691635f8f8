import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { EMAIL_UNSUBSCRIBE_PURPOSE, unsubscribePath } from '../plugins/email/unsubscribe-token.ts'

type TokenRequest = FastifyRequest<{ Params: { token: string } }>

// The unsubscribe link of every missed-message email, without a session: the token is the
// person's signed id. GET shows one button (link scanners that follow links change nothing);
// POST, which that button and a mail client's RFC 8058 one-click (List-Unsubscribe-Post) send,
// turns "Email me about mentions and Pings I miss" off. A token that does not verify is a 404.
export default async function emailUnsubscribes(app: FastifyInstance) {
  function person(request: TokenRequest): { id: number; name: string } | undefined {
    const token = request.params.token
    if (token.length > 500) return undefined
    const id = app.signing.verifySignedId('User', token, EMAIL_UNSUBSCRIBE_PURPOSE)
    if (id === undefined) return undefined
    const user = app.store.read((m) => m.users.find(id))
    return user ? { id: user.id, name: user.name } : undefined
  }

  function page(request: TokenRequest, reply: FastifyReply, done: boolean) {
    const found = person(request)
    if (!found) return reply.sendError(404, 'This unsubscribe link is not valid.')
    const view = { person: found.name, done, action: unsubscribePath(request.params.token) }
    if (!done) return reply.header('cache-control', 'no-store').view('email_unsubscribes/show', view)
    return app.store
      .write((m) => m.emailPreferences.setMissedMessages(found.id, false))
      .then(() => reply.header('cache-control', 'no-store').view('email_unsubscribes/show', view))
  }

  const open = { config: { allowUnauthenticated: true } }
  app.get('/email/unsubscribe/:token', open, (request: TokenRequest, reply) => page(request, reply, false))
  // A mail client posts from no page at all, so forgery protection would refuse it; the token
  // is what authorizes, and all it can do is turn emails off.
  app.post('/email/unsubscribe/:token', { config: { allowUnauthenticated: true, skipForgeryProtection: true } }, (request: TokenRequest, reply) => page(request, reply, true))
}
