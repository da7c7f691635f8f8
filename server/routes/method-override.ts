import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'

type Verb = 'POST' | 'PUT' | 'PATCH' | 'DELETE'
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Handler = (request: FastifyRequest<any>, reply: FastifyReply) => unknown
const OVERRIDES: Record<string, Verb> = { put: 'PUT', patch: 'PATCH', delete: 'DELETE', post: 'POST', '': 'POST' }

export const BAD_METHOD_OVERRIDE = 'The _method parameter must be one of put, patch or delete.'

// The verb a POST stands for: its _method when that is a plain string naming put, patch or
// delete (any case), POST when there is none (or it is empty or "post"). Anything else, an
// unknown verb or a non-string (an array from "_method[]=", an object from JSON), is null.
export function overriddenVerb(body: unknown): Verb | null {
  if (!body || typeof body !== 'object' || !Object.hasOwn(body, '_method')) return 'POST'
  const value = (body as Record<string, unknown>)._method
  if (typeof value !== 'string') return null
  return Object.hasOwn(OVERRIDES, value.toLowerCase()) ? OVERRIDES[value.toLowerCase()]! : null
}

// HTML forms can only POST, so Rails forms carry "_method=delete" and the like. For a URL we
// register every verb's handler, plus one POST route that dispatches on _method.
export function resourceRoutes(app: FastifyInstance, url: string, handlers: Partial<Record<Verb, Handler>>, options: RouteShorthandOptions = {}) {
  for (const [verb, handler] of Object.entries(handlers) as [Verb, Handler][]) {
    if (verb !== 'POST') app.route({ ...options, method: verb, url, handler })
  }
  app.route({
    ...options,
    method: 'POST',
    url,
    handler(request, reply) {
      const verb = overriddenVerb(request.body)
      if (!verb) return reply.sendError(400, BAD_METHOD_OVERRIDE)
      const handler = handlers[verb]
      if (!handler) return reply.sendError(405)
      return handler(request, reply)
    },
  })
}
