import fp from 'fastify-plugin'
import { LRUCache } from 'lru-cache'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { RailsSigning } from '../lib/rails/signing.ts'
import { needsRefresh, type SessionRow } from '../models/session.ts'
import { ROLES, type UserRow } from '../models/user.ts'
import { isHttps } from './security.ts'
import { onFirstUse } from '../lib/on-first-use.ts'

declare module 'fastify' {
  interface FastifyInstance {
    signing: RailsSigning
  }
  interface FastifyRequest {
    user: UserRow | null
    session: SessionRow | null
    // The database's generation, read before the session was looked up (-1 where it was not: no
    // session cookie). The response memo (plugins/response-memo.ts) keeps answers under it.
    generation: number
  }
  interface FastifyReply {
    // Starts a session and sets its cookie; answers the session's token.
    startSession(userId: number): Promise<string>
    endSession(): Promise<void>
    requireSignIn(): FastifyReply
  }
  interface FastifyContextConfig {
    allowUnauthenticated?: boolean
  }
}

export const SESSION_COOKIE = 'session_token'
export const RETURN_TO_COOKIE = 'return_to_after_authenticating'
const TWENTY_YEARS_S = 20 * 365 * 24 * 60 * 60
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
type SignedIn = { readonly session: SessionRow; readonly user: UserRow }

export function safeReturnPath(path: string | undefined): string | null {
  if (!path || !path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return null
  return /^[\x21-\x7e]*$/.test(path) ? path : null
}

function acceptsHtml(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '')
  return accept === '' || accept.includes('text/html') || accept.includes('*/*')
}

// Authentication is on for every route; a route opts out with config.allowUnauthenticated.
export default fp(
  async function auth(app, options: { config: Config }) {
    const signing = new RailsSigning(options.config.secretKeyBase)
    const verifiedCookies = onFirstUse(() => new LRUCache<string, string>({ max: 10_000, ttl: 10 * 60 * 1000 }))
    // Who a session token is, as last read, and the database generation it was read at: while
    // the generation stays put, no session, person or role can have changed.
    const signedIn = onFirstUse(() => new LRUCache<string, { generation: number; found: SignedIn | null }>({ max: 10_000 }))
    app.decorate('signing', signing)
    app.decorateRequest('user', null)
    app.decorateRequest('session', null)
    app.decorateRequest('generation', -1)

    function sessionToken(request: FastifyRequest): string | undefined {
      const signed = request.cookies[SESSION_COOKIE]
      if (!signed) return undefined
      let token = verifiedCookies().get(signed)
      if (token === undefined) {
        token = signing.verifyCookie(SESSION_COOKIE, signed)
        // A copy as the key: the parsed value is a slice of the whole Cookie header, which a
        // cached slice would keep alive for every connection that sent one.
        if (token !== undefined) verifiedCookies().set(Buffer.from(signed, 'latin1').toString('latin1'), token)
      }
      return token
    }

    function cookieOptions(request: FastifyRequest) {
      return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: isHttps(request) }
    }

    // A plain (callback) hook, as every hook on the request path is: an async one costs each
    // request a promise and a turn of the microtask queue. Each read is one statement, so it
    // needs no transaction of its own.
    app.addHook('onRequest', (request, reply, done) => {
      if (UNSAFE.has(request.method) && app.store.readOne((m) => m.bans.isBanned(request.ip))) return void reply.sendError(429, 'Too many requests.')
      const token = sessionToken(request)
      const found = token === undefined ? undefined : findSignedIn(request, token)
      if (found) {
        request.session = found.session
        request.user = found.user
        if (needsRefresh(found.session)) {
          const ua = request.headers['user-agent'] ?? null
          app.store.write((m) => m.sessions.refresh(found.session.id, request.ip, ua)).catch((err) => request.log.warn({ err }, 'session refresh failed'))
        }
      }
      const open = request.routeOptions.config.allowUnauthenticated || request.is404
      // deny_bots: a bot is let in by its key on the bot API only (its own routes, which are
      // open and check the key); anywhere else it gets 403, even with a ?bot_key= that works.
      if (request.user?.role === ROLES.bot && !open) return void reply.sendError(403)
      if (request.user || open) return done()
      if (botKeyWorks(request)) return void reply.sendError(403)
      reply.requireSignIn()
    })

    // Before the lookup, the generation: a later write moves it past what the lookup (and any
    // response made from it, plugins/response-memo.ts) saw.
    function findSignedIn(request: FastifyRequest, token: string): SignedIn | undefined {
      const generation = (request.generation = app.store.generation())
      const known = signedIn().get(token)
      if (known !== undefined && known.generation === generation) return known.found ?? undefined
      const read = app.store.readOne((m) => m.sessions.findSignedIn(token))
      const found = read ? Object.freeze({ session: Object.freeze(read.session), user: Object.freeze(read.user) }) : null
      signedIn().set(token, { generation, found })
      return found ?? undefined
    }

    function botKeyWorks(request: FastifyRequest): boolean {
      const key = (request.query as { bot_key?: unknown } | undefined)?.bot_key
      return typeof key === 'string' && key.length <= 100 && app.store.read((m) => m.bots.authenticate(key)) !== undefined
    }

    app.decorateReply('requireSignIn', function (this: FastifyReply) {
      const request = this.request
      if ((request.method === 'GET' || request.method === 'HEAD') && acceptsHtml(request)) {
        const path = safeReturnPath(request.url)
        if (path) this.setCookie(RETURN_TO_COOKIE, path, { ...cookieOptions(request), maxAge: 60 * 60 })
        return this.redirect('/session/new', 302)
      }
      return this.sendError(401)
    })

    app.decorateReply('startSession', async function (this: FastifyReply, userId: number) {
      const request = this.request
      const ua = request.headers['user-agent'] ?? null
      const token = await app.store.write((m) => m.sessions.start(userId, request.ip, ua))
      this.setCookie(SESSION_COOKIE, signing.signCookie(SESSION_COOKIE, token), { ...cookieOptions(request), maxAge: TWENTY_YEARS_S })
      return token
    })

    app.decorateReply('endSession', async function (this: FastifyReply) {
      const request = this.request
      const token = request.session?.token
      if (token) await app.store.write((m) => m.sessions.end(token))
      request.session = null
      request.user = null
      this.clearCookie(SESSION_COOKIE, cookieOptions(request))
    })
  },
  { name: 'auth', dependencies: ['database', 'errors'] },
)
