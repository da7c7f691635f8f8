import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Models } from '../models/index.ts'
import type { MessageRow } from '../models/message.ts'
import type { UserRow } from '../models/user.ts'
import type { CachedPage } from '../rendering/page-cache.ts'

// What a page handler found inside its read transaction: a cached page (or a build of it that is
// under way), HTML it rendered to be cached, or HTML rendered with the page cache off.
export type PageLookup =
  | { state: 'found'; page: CachedPage | Promise<CachedPage> }
  | { state: 'rendered'; key: string; signature: string; html: string | string[] }
  | { state: 'uncached'; html: string }

// Inside store.read: finds the page valid for the current signature, or renders it.
// `render` may give the page as pieces (message fragments, in order).
export function findOrRender(app: FastifyInstance, models: Models, key: string, relevant: () => string, render: () => string | string[]): PageLookup {
  const cache = app.pageCache
  if (!cache) return { state: 'uncached', html: joined(render()) }
  const signature = app.pageSignature(models, relevant)
  const page = cache.find(key, signature)
  if (page) return { state: 'found', page }
  return { state: 'rendered', key, signature, html: render() }
}

function joined(html: string | string[]): string {
  return typeof html === 'string' ? html : html.join('')
}

// Outside the read transaction: the cached page, admitting what was just rendered.
async function settle(app: FastifyInstance, request: FastifyRequest, lookup: Exclude<PageLookup, { state: 'uncached' }>): Promise<CachedPage> {
  if (lookup.state === 'found') {
    request.cacheStats.page = 'hit'
    return lookup.page
  }
  request.cacheStats.page = 'miss'
  return app.pageCache!.admit(lookup.key, lookup.signature, lookup.html)
}

export async function sendLookup(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, lookup: PageLookup): Promise<FastifyReply> {
  if (lookup.state === 'uncached') {
    if (request.cacheStats.page === 'none') request.cacheStats.page = 'off'
    return reply.type('text/html; charset=utf-8').send(lookup.html)
  }
  return reply.sendPage(await settle(app, request, lookup))
}

// A page whose `messagesHtml` is a cached part (room, search): the viewer's shell is rendered
// around it for each request and spliced with its compressed bytes, or, with the page cache
// off, the whole page is rendered.
export async function sendViewAround(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, template: string, data: Record<string, unknown>, part: PageLookup): Promise<FastifyReply> {
  if (part.state === 'uncached') {
    request.cacheStats.page = 'off'
    return reply.view(template, { ...data, messagesHtml: part.html })
  }
  const cached = await settle(app, request, part)
  const [before, after] = splitAround(reply.renderView(template, { ...data, messagesHtml: PAGE_PART }), PAGE_PART)
  return reply.sendSplicedPage(before, cached, after)
}

// A list of messages is valid as long as the same messages, at the same presentation
// versions, are on it.
export function rowsSignature(rows: MessageRow[]): string {
  return rows.map((row) => `${row.id}.${row.presentation_version ?? '?'}`).join(',')
}

// The viewer as the page shows them (name, avatar, role), from the row authentication read.
export function viewerSignature(user: UserRow): string {
  return `${user.id}.${user.role}.${user.updated_at}.${user.name}.${user.bio ?? ''}`
}

// Where a page's cached part goes in its per-request shell.
const PAGE_PART = '<!--campfire:cached-part-->'

function splitAround(html: string, marker: string): [string, string] {
  const at = html.indexOf(marker)
  if (at < 0 || html.indexOf(marker, at + 1) >= 0) throw new Error('the page part marker must appear exactly once')
  return [html.slice(0, at), html.slice(at + marker.length)]
}

export function hasFlash(request: FastifyRequest): boolean {
  return Boolean(request.cookies.flash)
}
