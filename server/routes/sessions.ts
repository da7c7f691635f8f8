import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field } from '../plugins/body.ts'
import { RETURN_TO_COOKIE, safeReturnPath } from '../plugins/auth.ts'
import { RateLimit, SharedRateLimit, type AttemptLimit } from '../lib/rate-limit.ts'
import { resourceRoutes } from './method-override.ts'

const UNAUTHORIZED = 'Too many requests or unauthorized.'
const SIGN_INS = 10
const SIGN_IN_WINDOW_MS = 3 * 60 * 1000

export default async function sessions(app: FastifyInstance, options: { signInLimit?: AttemptLimit }) {
  // Shared by every worker process when Redis is there, as upstream's is through Rails.cache.
  const limit = options.signInLimit ?? (app.redis ? new SharedRateLimit(SIGN_INS, SIGN_IN_WINDOW_MS, app.redis, 'sign_in') : new RateLimit(SIGN_INS, SIGN_IN_WINDOW_MS))
  const open = { config: { allowUnauthenticated: true } }

  function signInForm(request: FastifyRequest, reply: FastifyReply, status = 200, error?: string) {
    const administrator = app.store.read((m) => m.users.firstAdministrator())
    const emailAddress = field(request.body, 'email_address') ?? field(request.query, 'email_address')
    return reply.view('sessions/new', { error, emailAddress, administrator }, status)
  }

  app.get('/session/new', open, async (request, reply) => {
    if (!app.store.read((m) => m.users.anyExist())) return reply.redirect('/first_run', 302)
    if (request.user) return reply.redirect('/', 302)
    return signInForm(request, reply)
  })

  // Sign-in is limited per IP before any password work, since each attempt costs a bcrypt.
  async function create(request: FastifyRequest, reply: FastifyReply) {
    if (!(await limit.hit(request.ip))) return signInForm(request, reply, 429, UNAUTHORIZED)
    const email = field(request.body, 'email_address') ?? ''
    const password = field(request.body, 'password') ?? ''
    const user = email && password ? app.store.read((m) => m.users.findActiveByEmail(email)) : undefined
    if (!user || !(await app.passwords.verify(password, user.password_digest))) return signInForm(request, reply, 401, UNAUTHORIZED)
    await reply.startSession(user.id)
    const returnTo = safeReturnPath(request.cookies[RETURN_TO_COOKIE]) ?? '/'
    reply.clearCookie(RETURN_TO_COOKIE, { path: '/' })
    return reply.redirect(returnTo, 302)
  }

  // The browser has unsubscribed from Web Push and names the subscription it had, so nothing
  // is pushed to it once signed out.
  async function destroy(request: FastifyRequest, reply: FastifyReply) {
    const endpoint = field(request.body, 'push_subscription_endpoint')
    const user = request.user
    if (user && endpoint) await app.store.write((m) => m.pushSubscriptions.destroyByEndpoint(user.id, endpoint))
    await reply.endSession()
    return reply.redirect('/', 302)
  }

  resourceRoutes(app, '/session', { POST: create, DELETE: destroy }, open)
}
