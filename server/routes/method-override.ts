import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'

type Verb = 'POST' | 'PUT' | 'PATCH' | 'DELETE'
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Handler = (request: FastifyRequest<any>, reply: FastifyReply) => unknown
const OVERRIDES = new Set(['PUT', 'PATCH', 'DELETE'])

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
      const override = String((request.body as Record<string, unknown> | undefined)?._method ?? '').toUpperCase()
      const verb = (OVERRIDES.has(override) ? override : 'POST') as Verb
      const handler = handlers[verb]
      if (!handler) return reply.sendError(405)
      return handler(request, reply)
    },
  })
}
