import { crc32 } from 'node:zlib'
import { readFile } from 'node:fs/promises'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import { blobPath, initials } from '../../models/user/avatar.ts'
import { ROLES } from '../../models/user.ts'
import { epochMs } from '../../rendering/helpers/time.ts'

const COLORS = ['#AF2E1B', '#CC6324', '#3B4B59', '#BFA07A', '#ED8008', '#ED3F1C', '#BF1B1B', '#736B1E', '#D07B53', '#736356', '#AD1D1D', '#BF7C2A', '#C09C6F', '#698F9C', '#7C956B', '#5D618F', '#3B3633', '#67695E']

type Params = { Params: { user_id: string } }

// Avatars are addressed by a signed id, so numeric ids can't be walked. Anyone may fetch one
// (they appear in shared pages and notifications), and the URL's ?v= makes it cacheable.
export default async function avatars(app: FastifyInstance, options: { config: Config }) {
  app.get('/users/:user_id/avatar', { config: { allowUnauthenticated: true } }, async (request: FastifyRequest<Params>, reply) => {
    const userId = app.signing.verifySignedId('User', request.params.user_id, 'avatar')
    const found = userId === undefined ? null : app.store.read((m) => ({ user: m.users.find(userId), image: m.avatars.imageFor(userId) }))
    if (!found?.user) return reply.sendError(404)
    const etag = `W/"user-${found.user.id}-${epochMs(found.user.updated_at)}"`
    reply.header('etag', etag).header('cache-control', 'max-age=1800, public, stale-while-revalidate=604800')
    if (request.headers['if-none-match'] === etag) return reply.code(304).send()
    const path = found.image ? blobPath(options.config.filesPath, found.image.key) : null
    if (path) {
      const bytes = await readFile(path).catch(() => null)
      if (bytes) return reply.type(found.image!.contentType).send(bytes)
    }
    const svg = app.renderPartial('/users/avatars/show', {
      initials: initials(found.user.name),
      color: COLORS[crc32(String(found.user.id)) % COLORS.length],
      bot: found.user.role === ROLES.bot,
    })
    return reply.type('image/svg+xml; charset=utf-8').send(svg)
  })
}
