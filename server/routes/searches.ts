import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field } from '../plugins/body.ts'
import { requestOrigin } from '../plugins/security.ts'
import { sanitizeQuery } from '../models/message/searchable.ts'
import { resourceRoutes } from './method-override.ts'
import { lastRoomVisited } from './tracked-room-visit.ts'
import type { Models } from '../models/index.ts'
import type { SearchRow } from '../models/search.ts'
import { findOrRender, hasFlash, sendLookup, viewerSignature } from './cached-pages.ts'

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

// Search: GET shows recent searches and, with ?q=, the newest 100 reachable matches; POST
// records the query and redirects to its results; DELETE /searches/clear forgets them all.
export default async function searches(app: FastifyInstance) {
  // Cached per person, query, way back and origin, valid while nothing changed in any of their
  // rooms, their memberships, people, the account or their recent searches.
  app.get('/searches', async (request: SearchRequest, reply) => {
    const user = request.user!
    const raw = lastString(request.query.q)
    const sanitized = raw === undefined ? undefined : sanitizeQuery(raw)
    const query = sanitized !== undefined && sanitized.trim() !== '' ? sanitized : null
    const origin = requestOrigin(request)
    const render = (m: Models, recent: SearchRow[], returnToPath: string) => {
      const rows = query === null ? [] : m.searchable.reachableMatches(user.id, query)
      return reply.renderView('searches/index', {
        query,
        rawQuery: raw ?? '',
        resultCount: rows.length,
        recentSearches: recent.map((search) => ({ query: search.query, path: searchPath(search.query) })),
        returnToPath,
        clearUrl: `${origin}/searches/clear`,
        messagesHtml: app.messageFragments.renderAll(m, rows, { origin, viewerId: user.id, stats: request.cacheStats }),
      })
    }
    const page = app.store.read((m) => {
      const returnTo = lastRoomVisited(m, request)
      const returnToPath = returnTo ? `/rooms/${returnTo.id}` : '/'
      const recent = m.searches.recent(user.id)
      if (hasFlash(request)) {
        request.cacheStats.page = 'bypass'
        return { state: 'uncached', html: render(m, recent, returnToPath) } as const
      }
      const key = `search:${user.id}:${returnToPath}:${origin}:${JSON.stringify(raw ?? null)}`
      const relevant = () => `${m.cacheVersions.search(user.id)}:${viewerSignature(user)}:${recent.map((r) => `${r.id}.${r.updated_at}.${r.query}`).join('|')}`
      return findOrRender(app, m, key, relevant, () => render(m, recent, returnToPath))
    })
    return sendLookup(app, request, reply, page)
  })

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
