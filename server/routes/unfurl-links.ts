import type { FastifyInstance } from 'fastify'
import { field } from '../plugins/body.ts'
import type { FetchPolicy } from '../lib/opengraph-fetch.ts'
import { RateLimit } from '../lib/rate-limit.ts'
import { unfurl } from '../lib/unfurl.ts'

export const MAX_URL_LENGTH = 2048
// Every unfurl is an outgoing fetch any member can set off: 30 a minute per person is more than
// pasting links by hand ever needs.
export const UNFURLS_PER_MINUTE = 30

export interface UnfurlLinksOptions {
  // Tests may widen the guard (e.g. to reach a local server); production uses the defaults.
  policy?: FetchPolicy
  limit?: RateLimit
}

// POST /unfurl_link: {url} as JSON (or a form) → 200 {title,url,image,description}, or 204 when
// there is nothing to unfurl or anything went wrong. Signed-in people only (default auth), and at
// most UNFURLS_PER_MINUTE each (429 beyond).
export default async function unfurlLinks(app: FastifyInstance, options: UnfurlLinksOptions = {}) {
  const limit = options.limit ?? new RateLimit(UNFURLS_PER_MINUTE, 60_000)
  app.post('/unfurl_link', async (request, reply) => {
    if (!limit.hit(request.user ? `user:${request.user.id}` : `ip:${request.ip}`)) return reply.sendError(429, 'Too many links unfurled; try again in a minute.')
    const url = field(request.body, 'url')
    if (url === undefined || url.trim() === '') return reply.sendError(400, 'A url is required.')
    if (url.length > MAX_URL_LENGTH) return reply.sendError(422, 'The url is too long.')
    try {
      const card = await unfurl(url.trim(), options.policy, (message, detail) => request.log.warn(detail, message))
      if (!card) return reply.code(204).send()
      return reply.header('cache-control', 'no-store').send(card)
    } catch (err) {
      request.log.warn({ url, err: (err as Error).message }, 'unfurl failed')
      return reply.code(204).send()
    }
  })
}
