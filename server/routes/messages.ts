import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { requestOrigin } from '../plugins/security.ts'
import { LRUCache } from 'lru-cache'
import { rowsSignature, findOrRender, peekQuick, sendLookup } from './cached-pages.ts'
import { isFresh, railsTimestamp, setValidators, weakEtag, type Validators } from './conditional-get.ts'
import { resourceRoutes } from './method-override.ts'
import { positiveId, roomFor } from './room-scoped.ts'
import { create } from './messages/create.ts'
import { destroy } from './messages/destroy.ts'
import edit from './messages/edit.ts'
import { renderMessage, type MessageParams } from './messages/message-scoped.ts'
import permalink from './messages/permalink.ts'
import show from './messages/show.ts'
import { update } from './messages/update.ts'
import { onFirstUse } from '../lib/on-first-use.ts'

// A room's messages: the history pages and posting here; one message's routes in messages/.
export default async function messages(app: FastifyInstance, options: { config: Config }) {
  const { config } = options

  // The newest updated_at of each page, by page key and room content version: what a
  // conditional request is checked against without reading the page's rows again.
  const lastModified = onFirstUse(() => new LRUCache<string, Date>({ max: 10_000 }))

  // A page of history as a bare fragment, or 204 when there is none. It is the same for every
  // viewer, so it is cached once per room, anchor and origin, valid while its messages are.
  // As upstream's fresh_when, it carries a weak ETag and Last-Modified (its newest message's
  // updated_at) and answers 304 to a request that has it already. The ETag moves with the
  // room's content_version, which moves whenever any message of the room does, and with the
  // server's version (the markup).
  app.get('/rooms/:room_id/messages', app.memoized(async (request: FastifyRequest<MessageParams>, reply) => {
    const origin = requestOrigin(request)
    const page = app.store.read((m) => {
      const room = roomFor(m, request, request.params.room_id)
      if (!room) return null
      const { before, after } = request.query
      const anchorId = positiveId(before ?? after)
      if ((before ?? after) !== undefined && anchorId === null) return null
      const key = `messages:${room.id}:${anchorId === null ? 'latest' : before !== undefined ? 'before' : 'after'}:${anchorId ?? ''}:${origin}`
      // While the room's content_version is the one the cached page was last found valid
      // under, its messages (the anchor among them) are as they were: nothing else is read.
      const quick = `v${room.content_version}`
      const validatorKey = `${key}:${quick}`
      const etag = weakEtag(`${validatorKey}:${config.version}`)
      const known = lastModified().get(validatorKey)
      if (known && isFresh(request, { etag, lastModified: known })) return { fresh: { etag, lastModified: known } }
      const unchanged = known ? peekQuick(app, key, quick) : null
      if (unchanged) return { lookup: unchanged, validators: { etag, lastModified: known! } }
      const anchor = anchorId === null ? undefined : m.messages.findInRoom(anchorId, room.id)
      if (anchorId !== null && !anchor) return null
      const rows = !anchor ? m.messagePages.lastPage(room.id) : before !== undefined ? m.messagePages.pageBefore(anchor) : m.messagePages.pageAfter(anchor)
      if (rows.length === 0) return 'empty' as const
      const validators: Validators = { etag, lastModified: railsTimestamp(rows.reduce((newest, row) => (row.updated_at > newest ? row.updated_at : newest), rows[0]!.updated_at)) }
      lastModified().set(validatorKey, validators.lastModified)
      if (isFresh(request, validators)) return { fresh: validators }
      const render = () => app.messageFragments.renderEach(m, rows, { origin, viewerId: request.user!.id, stats: request.cacheStats, rooms: [room] })
      return { lookup: findOrRender(app, m, key, () => rowsSignature(rows), render, { quick }), validators }
    })
    if (!page) return reply.sendError(404)
    if (page === 'empty') return reply.code(204).send()
    if ('fresh' in page) return setValidators(reply, page.fresh!).code(304).send()
    setValidators(reply, page.validators)
    return sendLookup(app, request, reply, page.lookup)
  }))

  // Multipart (a file upload) is accepted on this route only: the parts are streamed, the file
  // straight to disk, with their own limits rather than the 2 MiB form limit.
  await app.register(async function upload(scope) {
    await scope.register(multipart, { throwFileSizeLimit: true })

    // The post: routes/messages/create.ts.
    scope.post('/rooms/:room_id/messages', { config: { diskReserve: 'text-post' } }, create(app, config))
  })

  await app.register(show)
  await app.register(edit)
  const revise = update(app)
  resourceRoutes(app, '/rooms/:room_id/messages/:id', { PATCH: revise, PUT: revise, DELETE: destroy(app, config) })
  await app.register(permalink)
}
