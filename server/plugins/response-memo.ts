import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { ResponseMemo } from '../lib/response-memo.ts'

declare module 'fastify' {
  interface FastifyInstance {
    responseMemo: ResponseMemo | null
    // The handler of a GET route whose response depends on nothing but the request and the
    // database, behind the memo: it runs only when the memo has no answer.
    memoized<Request extends FastifyRequest>(handler: (request: Request, reply: FastifyReply) => Promise<unknown>, options?: MemoOptions): (request: Request, reply: FastifyReply) => Promise<unknown>
  }
  interface FastifyRequest {
    memoKey: string | null
    memoCookies: readonly string[] | undefined
  }
}

export interface MemoOptions {
  // Cookies the route may set that depend on nothing but the request either (no Expires, which
  // would be a time): a response that sets these, and no other, may still be kept.
  cookies?: readonly string[]
}

// Headers that belong to one response, not to the page.
const UNKEPT = new Set(['server-timing', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'])

// Whether every cookie the response sets is one the route named, with no time in it.
function replayableCookies(setCookie: unknown, allowed: readonly string[] | undefined): boolean {
  if (setCookie === undefined) return true
  if (allowed === undefined) return false
  const cookies = Array.isArray(setCookie) ? setCookie : [setCookie]
  return cookies.every((cookie) => typeof cookie === 'string' && !/;\s*expires=/i.test(cookie) && allowed.some((name) => cookie.startsWith(`${name}=`)))
}

// The request as the key of its response: method, URL, scheme and every header as it came, in
// order. Two requests with the same key differ in nothing a route can read.
function keyOf(request: FastifyRequest): string {
  return `${request.method} ${request.url} ${request.protocol}\n${request.raw.rawHeaders.join('\n')}`
}

// The response memo (docs/architecture.md, "Caching"): on the routes whose handler is memoized
// (the room page, a page of messages, the sidebar, search), a response is kept whole and sent
// again to the same request while the database is at the generation authentication read before
// anything else. The memo is asked where the handler would start, so every hook of every scope
// (security, authentication, the browser gate) has run for a hit as for a miss. A response with
// any status but 200, or that sets a cookie the route did not name, is not kept.
export default fp(
  async function responseMemoPlugin(app, options: { config: Config }) {
    const { cache } = options.config
    const memo = cache.responseMemo ? new ResponseMemo(cache.responseMemoBytes) : null
    app.decorate('responseMemo', memo)
    app.decorateRequest('memoKey', null)
    app.decorateRequest('memoCookies', undefined)

    // Whether the memo answered; on a miss, marks a response worth keeping for onSend.
    function answered(request: FastifyRequest, reply: FastifyReply, options: MemoOptions): boolean {
      if (request.method !== 'GET') return false
      if (memo === null) {
        request.cacheStats.memo = 'off'
        return false
      }
      if (request.generation < 0) {
        request.cacheStats.memo = 'bypass'
        return false
      }
      const key = keyOf(request)
      const entry = memo.find(key, request.generation)
      if (entry !== undefined) {
        request.cacheStats.memo = 'hit'
        reply.code(entry.status).headers(entry.headers).send(entry.body)
        return true
      }
      request.cacheStats.memo = 'miss'
      if (memo.wouldKeep(key, request.generation)) {
        request.memoKey = key
        request.memoCookies = options.cookies
      }
      return false
    }

    app.decorate('memoized', function <Request extends FastifyRequest>(handler: (request: Request, reply: FastifyReply) => Promise<unknown>, options: MemoOptions = {}) {
      return async (request: Request, reply: FastifyReply) => (answered(request, reply, options) ? reply : handler(request, reply))
    })

    app.addHook('onSend', (request, reply, payload, done) => {
      const key = request.memoKey
      if (key === null || memo === null || reply.statusCode !== 200) return done(null, payload)
      if (!replayableCookies(reply.getHeader('set-cookie'), request.memoCookies)) return done(null, payload)
      const body = Buffer.isBuffer(payload) ? payload : typeof payload === 'string' ? Buffer.from(payload, 'utf8') : null
      if (body === null) return done(null, payload)
      const headers: Record<string, string | string[]> = {}
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined && !UNKEPT.has(name)) headers[name] = typeof value === 'number' ? String(value) : value
      }
      memo.keep(key, { generation: request.generation, status: 200, headers, body })
      done(null, body)
    })
  },
  { name: 'response-memo', dependencies: ['server-timing', 'auth'] },
)
