import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { field } from '../plugins/body.ts'
import { requestOrigin } from '../plugins/security.ts'
import { sanitizeQuery } from '../models/message/searchable.ts'
import { resourceRoutes } from './method-override.ts'
import { lastRoomVisited } from './tracked-room-visit.ts'

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
  app.get('/searches', async (request: SearchRequest, reply) => {
    const user = request.user!
    const raw = lastString(request.query.q)
    const sanitized = raw === undefined ? undefined : sanitizeQuery(raw)
    const query = sanitized !== undefined && sanitized.trim() !== '' ? sanitized : null
    const page = app.store.read((m) => {
      const rows = query === null ? [] : m.searchable.reachableMatches(user.id, query)
      const returnTo = lastRoomVisited(m, request)
      return {
        messages: m.messageDisplay.load(rows),
        recentSearches: m.searches.recent(user.id).map((search) => ({ query: search.query, path: searchPath(search.query) })),
        returnToPath: returnTo ? `/rooms/${returnTo.id}` : '/',
      }
    })
    const origin = requestOrigin(request)
    return reply.view('searches/index', {
      query,
      rawQuery: raw ?? '',
      resultCount: page.messages.length,
      recentSearches: page.recentSearches,
      returnToPath: page.returnToPath,
      clearUrl: `${origin}/searches/clear`,
      messagesHtml: app.messageRenderer.renderAll(page.messages, origin),
    })
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
