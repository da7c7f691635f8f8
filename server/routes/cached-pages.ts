import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Models } from '../models/index.ts'
import type { MessageRow } from '../models/message.ts'
import type { UserRow } from '../models/user.ts'
import type { AccountRow } from '../models/account.ts'
import type { CachedPage, CachedShell } from '../rendering/page-cache.ts'
import { acceptsGzip } from '../rendering/gzip.ts'
import { shellOf, shellSignature, slotMarker } from '../rendering/shell-splice.ts'

// What a page handler found inside its read transaction: a cached page (or a build of it that is
// under way), HTML it rendered to be cached, or HTML rendered with the page cache off.
export type PageLookup =
  | { state: 'found'; page: CachedPage | Promise<CachedPage> }
  | { state: 'rendered'; key: string; signature: string; quick?: string; level?: number; once?: boolean; html: string | string[] }
  | { state: 'uncached'; html: string }

// How a page is cached: `quick` is a cheaper version read in the same transaction that moves
// whenever the page could (a room's content_version): while it stays put, the signature is not
// computed (PageCache.findQuick). `level` is the compression level of a page that is rarely
// served twice, and `secondSighting` stores such a page only when it is asked for a second time
// (PageCache.seenBefore): the first time it is compressed for its response alone.
export interface CacheOptions {
  quick?: string
  level?: number
  secondSighting?: boolean
}

// Inside store.read: finds the page valid for the current signature, or renders it.
// `render` may give the page as pieces (message fragments, in order).
export function findOrRender(app: FastifyInstance, models: Models, key: string, relevant: () => string, render: () => string | string[], options: CacheOptions = {}): PageLookup {
  const { quick, level, secondSighting } = options
  const cache = app.pageCache
  if (!cache) return { state: 'uncached', html: joined(render()) }
  let signature: string
  if (quick !== undefined && app.cacheConfig.pageInvalidation === 'relevant') {
    const found = cache.findQuick(key, quick, relevant)
    if ('page' in found) return { state: 'found', page: found.page }
    signature = found.signature
  } else {
    signature = app.pageSignature(models, relevant)
  }
  const page = cache.find(key, signature)
  if (page) return { state: 'found', page }
  const once = secondSighting === true && !cache.seenBefore(key)
  return { state: 'rendered', key, signature, quick, level, once, html: render() }
}

// Inside store.read, before anything else is read: the page if it was last found valid under
// `quick` (see findOrRender), so a page that is still the same needs nothing more read.
export function peekQuick(app: FastifyInstance, key: string, quick: string): PageLookup | null {
  if (!app.pageCache || app.cacheConfig.pageInvalidation !== 'relevant') return null
  const page = app.pageCache.peekQuick<CachedPage>(key, quick)
  return page ? { state: 'found', page } : null
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
  if (lookup.once) return app.pageCache!.compressOnly(lookup.html, lookup.level)
  return app.pageCache!.admit(lookup.key, lookup.signature, lookup.html, lookup.quick, lookup.level)
}

export async function sendLookup(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, lookup: PageLookup): Promise<FastifyReply> {
  if (lookup.state === 'uncached') {
    if (request.cacheStats.page === 'none') request.cacheStats.page = 'off'
    return reply.type('text/html; charset=utf-8').send(lookup.html)
  }
  return reply.sendPage(await settle(app, request, lookup))
}

// A page whose `messagesHtml` is a cached part (room, search): the viewer's shell around it is
// the person's own. With the shell cache on, the shell is kept per person and page (`key`) with
// its compressed bytes, valid while every input of the template is the same (the page's data,
// the person's row and the account, compared as one JSON text of them all), and a hit joins it with
// the part's compressed bytes, rendering nothing. `slots` are data that change far more often
// than the rest (a room's last activity): the cached shell holds their places, and each response
// gets their values. Without the shell cache, or for a response with a flash or without gzip, the
// shell is rendered for the request and spliced with the part; with the page cache off, the
// whole page is rendered.
export interface ShellPage {
  template: string
  key: string
  data: Record<string, unknown>
  account: AccountRow | null
  slots?: Record<string, string>
}

export async function sendViewAround(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, shell: ShellPage, part: PageLookup): Promise<FastifyReply> {
  const slots = shell.slots ?? {}
  const fresh = { ...shell.data, ...slots, account: shell.account }
  if (part.state === 'uncached') {
    request.cacheStats.page = 'off'
    request.cacheStats.shell = 'off'
    return reply.view(shell.template, { ...fresh, messagesHtml: part.html })
  }
  const cached = await settle(app, request, part)
  if (!app.cacheConfig.shellCache || hasFlash(request) || !acceptsGzip(request.headers['accept-encoding'])) {
    request.cacheStats.shell = app.cacheConfig.shellCache ? 'bypass' : 'off'
    const [before, after] = splitAround(reply.renderView(shell.template, { ...fresh, messagesHtml: PAGE_PART }), PAGE_PART)
    return reply.sendSplicedPage(before, cached, after)
  }
  const names = Object.keys(slots)
  const marked = { ...shell.data, ...Object.fromEntries(names.map((name) => [name, slotMarker(name)])) }
  const key = `shell:${shell.template}:${shell.key}`
  const signature = shellSignature(shell.template, marked, request.user, shell.account)
  // A shell is stored whole at once (store), never built under way.
  let found = app.pageCache!.find<CachedShell>(key, signature) as CachedShell | undefined
  if (found) {
    request.cacheStats.shell = 'hit'
  } else {
    request.cacheStats.shell = 'miss'
    const [before, after] = splitAround(reply.renderView(shell.template, { ...marked, account: shell.account, messagesHtml: PAGE_PART }), PAGE_PART)
    found = shellOf(before, after, names)
    app.pageCache!.store(key, signature, found)
  }
  return reply.sendShellPage(found, cached, names.map((name) => slots[name]!))
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
