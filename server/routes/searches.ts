import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field } from '../plugins/body.ts'
import { requestOrigin } from '../plugins/security.ts'
import { sanitizeQuery } from '../models/message/searchable.ts'
import { resourceRoutes } from './method-override.ts'
import { lastRoomVisited } from './tracked-room-visit.ts'
import { findOrRender, rowsSignature, sendViewAround, type PageLookup } from './cached-pages.ts'
import type { Models } from '../models/index.ts'
import type { CachedResults } from '../rendering/page-cache.ts'

type SearchRequest = FastifyRequest<{ Querystring: Record<string, unknown> }>

// A repeated parameter arrives as an array; like Rails, the last value wins.
function lastString(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return [...value].reverse().find((v): v is string => typeof v === 'string')
  return undefined
}

export function searchPath(query?: string): string {
  return query === undefined ? '/searches' : `/searches?${new URLSearchParams({ q: query })}`
}

// The person's matches for the query as a shared part of the page. Which part they gave is
// remembered per person and query, valid while nothing the person can reach has changed (their
// rooms' content versions and their memberships): then the search is not run again.
function results(m: Models, userId: number, query: string, origin: string, request: FastifyRequest): { resultCount: number; results: PageLookup | null } {
  const app = request.server
  const memoKey = `search-results:${userId}:${origin}:${query}`
  const reachable = app.pageCache && app.cacheConfig.pageInvalidation === 'relevant' ? m.cacheVersions.search(userId) : null
  if (reachable !== null) {
    const memo = app.pageCache!.recall<CachedResults>(memoKey, reachable)
    const page = memo && app.pageCache!.find(memo.partKey, memo.signature)
    if (memo && page) return { resultCount: memo.count, results: { state: 'found', page } }
  }
  const rows = m.searchable.reachableMatches(userId, query)
  if (rows.length === 0) return { resultCount: 0, results: null }
  const partKey = `search:${origin}:${rows.map((row) => row.id).join(',')}`
  const signature = rowsSignature(rows)
  if (reachable !== null) app.pageCache!.store(memoKey, signature, { partKey, signature, count: rows.length }, reachable)
  const render = () => app.messageFragments.renderEach(m, rows, { origin, viewerId: userId, stats: request.cacheStats })
  // A person's results are rarely another's, and a page of 100 is ~850 KB of HTML: it is
  // compressed at zlib's level 2, and stored only once it is asked for a second time, so one-off
  // searches don't push rooms and sidebars out of the cache. On such a page level 2 takes 37% of
  // level 6's time for 1.26× its bytes, and with Node's own zlib it is both faster and smaller
  // than level 1 (0.99 ms and 47.6 KB against 1.16 ms and 57.6 KB, measured; docs/benchmarks.md).
  return { resultCount: rows.length, results: findOrRender(app, m, partKey, () => signature, render, { level: 2, secondSighting: true }) }
}

// Search: GET shows recent searches and, with ?q=, the newest 100 reachable matches; POST
// records the query and redirects to its results; DELETE /searches/clear forgets them all.
export default async function searches(app: FastifyInstance) {
  // The results are the same bytes for everyone who reaches the same matches: they are cached by
  // the matching messages and origin, valid while those messages keep their presentation versions,
  // and shared by everyone whose rooms give the same results. The shell around them (the query,
  // recent searches, the way back) is the person's own and rendered for each request.
  app.get('/searches', app.memoized(async (request: SearchRequest, reply) => {
    const user = request.user!
    const raw = lastString(request.query.q)
    const sanitized = raw === undefined ? undefined : sanitizeQuery(raw)
    const query = sanitized !== undefined && sanitized.trim() !== '' ? sanitized : null
    const origin = requestOrigin(request)
    const page = app.store.read((m) => {
      const returnTo = lastRoomVisited(m, request)
      return {
        returnToPath: returnTo ? `/rooms/${returnTo.id}` : '/',
        recent: m.searches.recent(user.id),
        account: m.accounts.first() ?? null,
        ...(query === null ? { resultCount: 0, results: null } : results(m, user.id, query, origin, request)),
      }
    })
    const data = {
      query,
      rawQuery: raw ?? '',
      resultCount: page.resultCount,
      recentSearches: page.recent.map((search) => ({ query: search.query, path: searchPath(search.query) })),
      returnToPath: page.returnToPath,
      clearUrl: `${origin}/searches/clear`,
    }
    if (page.results === null) return reply.view('searches/index', { ...data, account: page.account, messagesHtml: '' })
    return sendViewAround(app, request, reply, { template: 'searches/index', key: `${user.id}:${origin}:${query}`, data, account: page.account }, page.results)
  }))

  app.post('/searches', async (request, reply) => {
    const raw = field(request.body, 'q') ?? lastString((request.query as Record<string, unknown>).q)
    const query = raw === undefined ? '' : sanitizeQuery(raw)
    if (query.trim() === '') return reply.redirect(searchPath(), 303)
    await app.store.write((m) => m.searches.record(request.user!.id, query))
    return reply.redirect(searchPath(query), 303)
  })

  async function clear(request: FastifyRequest, reply: FastifyReply) {
    await app.store.write((m) => m.searches.clear(request.user!.id))
    return reply.redirect(searchPath(), 303)
  }
  resourceRoutes(app, '/searches/clear', { DELETE: clear })
}
