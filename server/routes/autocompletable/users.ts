import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requestOrigin } from '../../plugins/security.ts'
import { escapeHtml } from '../../rendering/templates.ts'
import { AUTOCOMPLETE_PAGE_SIZE } from '../../models/user/autocompletable.ts'
import { roomFor } from '../room-scoped.ts'

type AutocompleteRequest = FastifyRequest<{ Querystring: Record<string, unknown> }>

const MAX_PAGE = 1_000_000

function lastString(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return [...value].reverse().find((v): v is string => typeof v === 'string')
  return undefined
}

// Ruby's String#blank?: empty or only whitespace.
function present(value: string | undefined): value is string {
  return value !== undefined && !/^[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/.test(value)
}

// geared_pagination's page parameter: params[:page].to_i, when positive, else 1.
export function pageNumber(value: string | undefined): number {
  const digits = /^\s*\+?(\d+)/.exec(value ?? '')
  const page = digits ? Number(digits[1]) : 0
  return page > 0 ? Math.min(page, MAX_PAGE) : 1
}

// Only JSON is rendered here (upstream has only the jbuilder template).
function acceptsJson(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '').trim()
  return accept === '' || /application\/json|application\/\*|\*\/\*/.test(accept)
}

// GET /autocompletable/users?query=&room_id=&page=: the people offered for @-mentions and Pings.
export default async function autocompletableUsers(app: FastifyInstance) {
  app.get('/autocompletable/users', async (request: AutocompleteRequest, reply) => {
    if (!acceptsJson(request)) return reply.sendError(406)
    const user = request.user!
    const roomParam = lastString(request.query.room_id)
    const query = lastString(request.query.query)
    const page = pageNumber(lastString(request.query.page))
    const result = app.store.read((m) => {
      let roomId: number | null = null
      if (present(roomParam)) {
        const room = roomFor(m, request, roomParam)
        if (!room) return null
        roomId = room.id
      }
      return m.autocompletable.page(roomId, present(query) ? query : '', page)
    })
    if (!result) return reply.sendError(404)

    const origin = requestOrigin(request)
    reply.header('x-total-count', String(result.total))
    if (page * AUTOCOMPLETE_PAGE_SIZE < result.total) reply.header('link', `<${pageUrl(origin, request.url, page + 1)}>; rel="next"`)
    const body = result.people.map((person) => ({
      name: escapeHtml(person.name),
      value: person.id,
      avatar_url: origin + app.helpers.avatarPath(person),
      sgid: app.signing.signedGlobalId('User', person.id),
    }))
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(body))
  })
}

// The request's URL with another page number, parameters sorted (as Addressable writes them).
function pageUrl(origin: string, url: string, page: number): string {
  const parsed = new URL(url, origin)
  parsed.searchParams.set('page', String(page))
  parsed.searchParams.sort()
  return `${origin}${parsed.pathname}?${parsed.searchParams}`
}
