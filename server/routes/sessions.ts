import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field } from '../plugins/body.ts'
import { RETURN_TO_COOKIE, safeReturnPath } from '../plugins/auth.ts'
import { RateLimit, SharedRateLimit, type AttemptLimit } from '../lib/rate-limit.ts'
import { isAdministrator } from '../models/user.ts'
import { resourceRoutes } from './method-override.ts'
import { signInPage } from './sessions/sign-in-page.ts'

const UNAUTHORIZED = 'Too many requests or unauthorized.'
const SIGN_INS = 10
const SIGN_IN_WINDOW_MS = 3 * 60 * 1000

// The sign-in limit, shared by every worker process when Redis is there, as upstream's is through
// Rails.cache. Passwords and single sign-on count against the same one.
export function signInLimitFor(app: FastifyInstance): AttemptLimit {
  return app.redis ? new SharedRateLimit(SIGN_INS, SIGN_IN_WINDOW_MS, app.redis, 'sign_in') : new RateLimit(SIGN_INS, SIGN_IN_WINDOW_MS)
}

export default async function sessions(app: FastifyInstance, options: { signInLimit?: AttemptLimit }) {
  const limit = options.signInLimit ?? signInLimitFor(app)
  const open = { config: { allowUnauthenticated: true } }
  const signInForm = (request: FastifyRequest, reply: FastifyReply, status = 200, error?: string) => signInPage(app, request, reply, status, error)

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
    // Signing in with the provider only: members use it; administrators keep their password, so
    // a broken provider locks no one out.
    if (app.oidc && !isAdministrator(user) && app.store.read((m) => m.oidcIdentities.providerOnly())) return signInForm(request, reply, 403, `Please sign in with ${app.oidc.name}.`)
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
    const token = request.session?.token
    const idToken = app.oidc && token ? app.store.read((m) => m.oidcIdentities.idTokenFor(token)) : undefined
    await reply.endSession()
    // A session the provider started ends the provider's too, when it offers that.
    const providerSignOut = idToken ? await app.oidc!.endSessionUrl(request, idToken) : null
    return reply.redirect(providerSignOut?.href ?? '/', 302)
  }

  // Signing in and out are never refused for lack of disk space before they are tried.
  resourceRoutes(app, '/session', { POST: create, DELETE: destroy }, { config: { ...open.config, diskReserve: 'sign-in' } })
}
