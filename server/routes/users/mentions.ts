import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requestOrigin } from '../../plugins/security.ts'
import type { Models } from '../../models/index.ts'
import type { InboxPage } from '../../models/user/mentions.ts'
import { inboxStream } from '../../cable/user-streams.ts'
import { inboxEntry, olderInboxEntries } from '../../rendering/inbox-entries.ts'
import { denyBots } from '../deny-bots.ts'
import { lastRoomVisited } from '../tracked-room-visit.ts'
import { findOrRender, sendViewAround, type PageLookup } from '../cached-pages.ts'

type InboxRequest = FastifyRequest<{ Params: { user_id: string }; Querystring: { before?: unknown } }>

export function inboxPath(before?: number): string {
  return before === undefined ? '/users/me/mentions' : `/users/me/mentions?before=${before}`
}

// A page is valid while the same messages, at the same presentation versions, are on it, each
// as read or unread as before, with the same older page after it.
function signature(page: InboxPage): string {
  return `${page.entries.map((entry) => `${entry.id}.${entry.presentation_version ?? '?'}.${entry.unread}`).join(',')}>${page.older?.id ?? ''}`
}

function entries(app: FastifyInstance, m: Models, request: FastifyRequest, page: InboxPage, origin: string, before: string): PageLookup {
  const userId = request.user!.id
  const render = () => {
    const fragments = app.messageFragments.renderEach(m, page.entries, { origin, viewerId: userId, stats: request.cacheStats })
    const html = fragments.map((fragment, i) => inboxEntry(page.entries[i]!.id, fragment, page.entries[i]!.unread === 1))
    return page.older ? [...html, olderInboxEntries(page.older.id, inboxPath(page.older.id))] : html
  }
  return findOrRender(app, m, `inbox:${userId}:${origin}:${before}`, () => signature(page), render)
}

// Users::MentionsController: the signed-in person's own inbox, whatever the :user_id says.
// ?before=<message id> is the page of older entries, as a room's history pages.
export default async function mentions(app: FastifyInstance) {
  app.addHook('preHandler', denyBots)

  app.get('/users/:user_id/mentions', async (request: InboxRequest, reply) => {
    const user = request.user!
    const before = request.query.before
    if (before !== undefined && (typeof before !== 'string' || !/^\d{1,15}$/.test(before))) return reply.sendError(404)
    if (app.store.read((m) => m.mentionIndex.pending())) await app.mentions.settle()
    const origin = requestOrigin(request)
    const found = app.store.read((m) => {
      const cursor = before === undefined ? undefined : m.inbox.cursor(Number(before))
      if (before !== undefined && !cursor) return null
      const page = m.inbox.page(user.id, cursor)
      const returnTo = lastRoomVisited(m, request)
      return { page, part: entries(app, m, request, page, origin, before ?? 'newest'), account: m.accounts.first() ?? null, returnToPath: returnTo ? `/rooms/${returnTo.id}` : '/' }
    })
    if (!found) return reply.sendError(404)
    const data = {
      before: before ?? null,
      empty: found.page.entries.length === 0,
      returnToPath: found.returnToPath,
      inboxStream: app.signing.signStreamName(inboxStream(user.id)),
    }
    return sendViewAround(app, request, reply, { template: 'users/mentions/index', key: `${user.id}:${origin}:${before ?? 'newest'}`, data, account: found.account }, found.part)
  })
}
