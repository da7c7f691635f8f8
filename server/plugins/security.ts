import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    skipForgeryProtection?: boolean
  }
  interface FastifyInstance {
    // The origin of links that leave the request (a message broadcast to everyone in its room,
    // a bot's reply, an email): APP_URL when it is set, so a Host header cannot steer them.
    outgoingOrigin(request: FastifyRequest): string
  }
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i

// Fastify believes X-Forwarded-Proto only from a trusted proxy (TRUSTED_PROXIES).
export function isHttps(request: FastifyRequest): boolean {
  return request.protocol === 'https'
}

export function requestOrigin(request: FastifyRequest): string {
  return `${isHttps(request) ? 'https' : 'http'}://${request.headers.host ?? 'localhost'}`
}

// Fetch Metadata forgery protection instead of per-form tokens (pages stay byte-stable):
// browsers say where a request came from in Sec-Fetch-Site; only same-origin and same-site
// may change anything. A supplied Origin must be ours. Without the header (old browsers,
// scripts) a request is allowed only over plain HTTP, where the header cannot be trusted anyway.
export function forgeryVerdict(request: FastifyRequest): string | null {
  const site = request.headers['sec-fetch-site']
  const origin = request.headers.origin
  if (origin !== undefined && origin !== requestOrigin(request)) return 'foreign Origin'
  if (site === undefined) return isHttps(request) ? 'missing Sec-Fetch-Site over HTTPS' : null
  if (site === 'same-origin' || site === 'same-site') return null
  return `Sec-Fetch-Site ${String(site)}`
}

// URL.canParse of each distinct origin once: a server sees the same few Host headers on every
// request, and parsing one took 2% of a cached page's CPU. Any number of made-up hosts only
// empties the memo, and a long one is parsed every time, so it holds at most 1,000 × 256 bytes.
const ORIGINS_KEPT = 1000
const ORIGIN_KEPT_LENGTH = 256
const origins = new Map<string, boolean>()
function validOrigin(origin: string): boolean {
  if (origin.length > ORIGIN_KEPT_LENGTH) return URL.canParse(origin)
  let valid = origins.get(origin)
  if (valid === undefined) {
    if (origins.size >= ORIGINS_KEPT) origins.clear()
    valid = URL.canParse(origin)
    origins.set(origin, valid)
  }
  return valid
}

export default fp(
  async function security(app, options: { config: Config }) {
    const { config } = options
    let ignoredForwardedHeaders = false
    app.decorate('outgoingOrigin', (request: FastifyRequest) => config.appUrl ?? requestOrigin(request))

    // Plain (callback) hooks: an async one costs each request a promise and a microtask.
    app.addHook('onRequest', (request, reply, done) => {
      if (!ignoredForwardedHeaders && isForwardedFromUntrustedPeer(request)) {
        ignoredForwardedHeaders = true
        request.log.warn({ peer: request.socket.remoteAddress }, 'X-Forwarded-For/-Proto from a peer not in TRUSTED_PROXIES are ignored (logged once); behind a proxy, set TRUSTED_PROXIES to its address')
      }
      reply.header('x-version', config.version)
      reply.header('x-rev', config.revision)
      reply.header('x-content-type-options', 'nosniff')
      reply.header('x-frame-options', 'SAMEORIGIN')
      reply.header('referrer-policy', 'strict-origin-when-cross-origin')
      // Every absolute URL the app makes (redirect URIs, push and email links) starts from the Host
      // header: one that names no valid host (a port past 65535, markup) is refused here, once.
      if (!validOrigin(requestOrigin(request))) return void reply.sendError(400, 'That request names no valid host.')
      if (config.disableSsl || !redirectedToHttps(request, reply)) done()
    })

    app.addHook('preHandler', (request, reply, done) => {
      if (!UNSAFE.has(request.method) || request.routeOptions.config.skipForgeryProtection) return done()
      const verdict = forgeryVerdict(request)
      if (!verdict) return done()
      request.log.warn({ url: request.url, verdict }, 'forgery protection rejected a request')
      reply.sendError(422, 'The change you wanted was rejected: it did not come from this site.')
    })
  },
  { name: 'security', dependencies: ['errors'] },
)

// With trusted proxies, request.ips is the chain of addresses from the peer back to the first
// untrusted one: only the peer itself means the peer was not trusted.
function isForwardedFromUntrustedPeer(request: FastifyRequest): boolean {
  if (request.headers['x-forwarded-for'] === undefined && request.headers['x-forwarded-proto'] === undefined) return false
  return (request.ips?.length ?? 1) <= 1
}

// Unless DISABLE_SSL is set, TLS is assumed to end in a proxy in front of us: plain HTTP is
// redirected and HSTS is sent. Loopback hosts and /up stay on plain HTTP for local use.
// force_ssl: answers whether the request was redirected to HTTPS (else it goes on, with HSTS
// when it came over HTTPS).
function redirectedToHttps(request: FastifyRequest, reply: FastifyReply): boolean {
  if (isHttps(request)) {
    reply.header('strict-transport-security', 'max-age=63072000; includeSubDomains')
    return false
  }
  const host = request.headers.host ?? ''
  if (LOOPBACK_HOST.test(host) || request.url.split('?')[0] === '/up') return false
  const safe = request.method === 'GET' || request.method === 'HEAD'
  reply.redirect(`https://${host}${request.url}`, safe ? 301 : 307)
  return true
}
