import type { FastifyInstance } from 'fastify'
import { FLOW_COOKIE, ProviderUnavailable } from '../../../plugins/oidc.ts'
import { signInPage } from '../sign-in-page.ts'

export function unavailableMessage(name: string): string {
  return `${name} didn't answer in time. Please try again in a moment, or sign in with your password.`
}

// The sign-in page's "Sign in with <provider>" button: the authorization code flow with PKCE,
// state and nonce. What the callback needs to check the answer is kept in a signed cookie on
// this browser, so the answer can only be used here.
export default async function oidcStart(app: FastifyInstance) {
  const oidc = app.oidc
  if (!oidc) return
  const open = { config: { allowUnauthenticated: true } }

  app.post('/session/oidc/start', open, async (request, reply) => {
    if (request.user) return reply.redirect('/', 302)
    let started
    try {
      started = await oidc.start(request)
    } catch (error) {
      if (!(error instanceof ProviderUnavailable)) throw error
      request.log.warn({ err: error }, 'identity provider unavailable')
      return signInPage(app, request, reply, 503, unavailableMessage(oidc.name))
    }
    reply.header('cache-control', 'no-store')
    reply.setCookie(FLOW_COOKIE, started.flow, { ...oidc.cookieOptions(request), maxAge: 10 * 60 })
    return reply.redirect(started.url.href, 303)
  })
}
