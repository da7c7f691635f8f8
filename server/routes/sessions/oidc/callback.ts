import type { FastifyInstance } from 'fastify'
import type { AttemptLimit } from '../../../lib/rate-limit.ts'
import { signInWithProvider, type OidcRefusal } from '../../../models/user/oidc-sign-in.ts'
import { RETURN_TO_COOKIE, safeReturnPath } from '../../../plugins/auth.ts'
import { CALLBACK_PATH, FLOW_COOKIE, ProviderUnavailable, SignInNotVerified } from '../../../plugins/oidc.ts'
import type { Config } from '../../../config.ts'
import { signInPage } from '../sign-in-page.ts'
import { providerPictures } from './provider-picture.ts'
import { unavailableMessage } from './start.ts'

const TOO_MANY = 'Too many requests or unauthorized.'

function refusal(reason: OidcRefusal | 'not-verified' | 'banned', name: string): { status: number; message: string } {
  switch (reason) {
    case 'not-verified':
      return { status: 401, message: `That sign-in with ${name} could not be verified. Please try again.` }
    case 'unverified':
      return { status: 403, message: `${name} has not verified your email address, so it can't be used to sign in here.` }
    case 'domain':
      return { status: 403, message: `Your ${name} account can't join this Campfire. Ask an administrator for an invite link.` }
    case 'lookalike':
      return { status: 403, message: `Your ${name} email address looks like someone else's here, so it can't be used to sign in. Ask an administrator.` }
    case 'linked-elsewhere':
      return { status: 403, message: `Your account here is already linked to another ${name} identity.` }
    case 'inactive':
    case 'banned':
      return { status: 403, message: `That account can't sign in here.` }
  }
}

// Where the provider sends the person back: the code is exchanged and the ID token checked by
// openid-client (signature against the provider's keys, issuer, audience, expiry, nonce, state,
// PKCE), then the person is found, linked or joined (server/models/user/oidc-sign-in.ts) and
// signed in exactly as a password would: a new session row and session_token cookie. A newly
// linked person's `picture` becomes their avatar afterwards (./provider-picture.ts).
export default async function oidcCallback(app: FastifyInstance, options: { signInLimit: AttemptLimit; config: Config }) {
  const oidc = app.oidc
  if (!oidc) return
  const pictures = providerPictures(app, options.config.filesPath, oidc.picturePolicy)
  const open = { config: { allowUnauthenticated: true } }

  app.get(CALLBACK_PATH, open, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const flow = request.cookies[FLOW_COOKIE]
    // The flow is used once, whatever comes of it.
    reply.clearCookie(FLOW_COOKIE, oidc.cookieOptions(request))
    const refuse = (reason: Parameters<typeof refusal>[0]) => {
      const { status, message } = refusal(reason, oidc.name)
      return signInPage(app, request, reply, status, message)
    }
    if (app.store.read((m) => m.bans.isBanned(request.ip))) return refuse('banned')
    if (!(await options.signInLimit.hit(request.ip))) return signInPage(app, request, reply, 429, TOO_MANY)

    let claims
    try {
      claims = await oidc.finish(request, flow)
    } catch (error) {
      if (error instanceof ProviderUnavailable) {
        request.log.warn({ err: error }, 'identity provider unavailable')
        return signInPage(app, request, reply, 503, unavailableMessage(oidc.name))
      }
      if (!(error instanceof SignInNotVerified)) throw error
      request.log.info({ reason: error.message }, 'single sign-on refused')
      return refuse('not-verified')
    }
    const outcome = await app.store.write((m) => signInWithProvider(m, oidc.issuer, claims, oidc.allowedDomains))
    if ('refused' in outcome) return refuse(outcome.refused)
    const token = await reply.startSession(outcome.userId)
    await app.store.write((m) => m.oidcIdentities.rememberIdToken(token, claims.idToken))
    if (outcome.linked && claims.picture) pictures.adoptLater(outcome.userId, claims.picture, request.log)
    const returnTo = safeReturnPath(request.cookies[RETURN_TO_COOKIE]) ?? '/'
    reply.clearCookie(RETURN_TO_COOKIE, { path: '/' })
    return reply.redirect(returnTo, 302)
  })
}
