import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requestOrigin } from '../../plugins/security.ts'
import { SAVED_PAGE_SIZE } from '../../models/saved-message.ts'
import { lastRoomVisited } from '../tracked-room-visit.ts'
import { positiveId } from '../room-scoped.ts'
import { findOrRender, rowsSignature, sendViewAround } from '../cached-pages.ts'

type SavesRequest = FastifyRequest<{ Params: { user_id: string }; Querystring: { before?: string } }>

export function savedMessagesPath(before?: number): string {
  return before === undefined ? '/users/me/saves' : `/users/me/saves?before=${before}`
}

// The "Saved" page: the person's saved messages, newest saved first, a page at a time (?before=
// the last one's place). Only the person's own list exists: "me", or their own id.
export default async function savedMessages(app: FastifyInstance) {
  // The messages are the shared fragments the rooms show, cached as one part by which messages
  // are on the page, valid while they keep their presentation versions; the rows are read on
  // every request (one indexed page), so a save, an unsave, another person's edit or an outside
  // SQL change shows at once. The shell around them is the person's own.
  app.get('/users/:user_id/saves', async (request: SavesRequest, reply) => {
    const user = request.user!
    if (request.params.user_id !== 'me' && positiveId(request.params.user_id) !== user.id) return reply.sendError(404)
    const rawBefore = request.query.before
    const before = rawBefore === undefined ? null : positiveId(rawBefore)
    if (rawBefore !== undefined && before === null) return reply.sendError(400, 'before must be a positive whole number.')
    const origin = requestOrigin(request)
    const page = app.store.read((m) => {
      const rows = m.savedMessages.page(user.id, before)
      const returnTo = lastRoomVisited(m, request)
      const render = () => app.messageFragments.renderEach(m, rows, { origin, viewerId: user.id, stats: request.cacheStats })
      return {
        rows,
        returnToPath: returnTo ? `/rooms/${returnTo.id}` : '/',
        account: m.accounts.first() ?? null,
        part: findOrRender(app, m, `saves:${origin}:${rows.map((row) => row.id).join(',')}`, () => rowsSignature(rows), render),
      }
    })
    const last = page.rows.at(-1)
    const data = {
      count: page.rows.length,
      returnToPath: page.returnToPath,
      olderPath: page.rows.length === SAVED_PAGE_SIZE && last ? savedMessagesPath(last.saved_id) : null,
      newestPath: before === null ? null : savedMessagesPath(),
    }
    const key = `${user.id}:${origin}:${before ?? 'newest'}:${page.rows.length}`
    return sendViewAround(app, request, reply, { template: 'users/saves/index', key, data, account: page.account }, page.part)
  })
}
