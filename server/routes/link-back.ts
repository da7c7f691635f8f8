import type { FastifyRequest } from 'fastify'
import { requestOrigin } from '../plugins/security.ts'

// link_back: "Go back" leads where the person came from, or home when they came from nowhere,
// from another site, or from this very page.
export function linkBack(request: FastifyRequest): string {
  const referrer = request.headers.referer
  if (!referrer) return '/'
  let url: URL
  try {
    url = new URL(referrer)
  } catch {
    return '/'
  }
  const path = url.pathname + url.search
  if (url.origin !== requestOrigin(request) || path === request.url || path.startsWith('//')) return '/'
  return path
}
