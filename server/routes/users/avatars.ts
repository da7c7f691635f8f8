import { crc32 } from 'node:zlib'
import { readFile } from 'node:fs/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import { AVATAR_SQUARE } from '../../models/blob/variations.ts'
import { blobPath, removeBlobFiles } from '../../lib/files.ts'
import { initials } from '../../models/user/avatar.ts'
import { ROLES } from '../../models/user.ts'
import { denyBots } from '../deny-bots.ts'
import { resourceRoutes } from '../method-override.ts'
import { processedVariants } from '../processed-variants.ts'

const COLORS = ['#AF2E1B', '#CC6324', '#3B4B59', '#BFA07A', '#ED8008', '#ED3F1C', '#BF1B1B', '#736B1E', '#D07B53', '#736356', '#AD1D1D', '#BF7C2A', '#C09C6F', '#698F9C', '#7C956B', '#5D618F', '#3B3633', '#67695E']
const CACHE_CONTROL = 'max-age=1800, public, stale-while-revalidate=604800'

type Params = { Params: { user_id: string } }

// Avatars are addressed by a signed id, so numeric ids can't be walked, and only to people who
// are signed in, as upstream. The URL's ?v= moves whenever the person changes, so it is cached.
// Only the processed square is ever sent, never the original upload.
export default async function avatars(app: FastifyInstance, options: { config: Config }) {
  const { filesPath } = options.config
  const processed = processedVariants(app, filesPath)
  app.addHook('preHandler', denyBots)

  app.get('/users/:user_id/avatar', async (request: FastifyRequest<Params>, reply) => {
    const userId = app.signing.verifySignedId('User', request.params.user_id, 'avatar')
    const found = userId === undefined ? undefined : app.store.read((m) => {
      const user = m.users.find(userId)
      return user && { user, original: m.avatars.originalFor(user.id) }
    })
    if (!found) return reply.code(404).send()
    const { user, original } = found
    const etag = `W/"user-${user.id}-${user.updated_at.replace(/\D/g, '')}"`
    reply.header('etag', etag)
    if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send()
    reply.header('cache-control', CACHE_CONTROL)
    const square = original ? await processed(original, AVATAR_SQUARE) : null
    const bytes = square ? await readFile(blobPath(filesPath, square.key) ?? '').catch(() => null) : null
    if (square && bytes) return sendFile(reply, bytes, 'image/webp', square.key)
    if (user.role === ROLES.bot) return reply.type('image/svg+xml').send(app.renderPartial('/users/avatars/show', { bot: true }))
    const svg = app.renderPartial('/users/avatars/show', { initials: initials(user.name), color: COLORS[crc32(String(user.id)) % COLORS.length] })
    return reply.type('image/svg+xml; charset=utf-8').send(svg)
  })

  // Always the signed-in person's own avatar, whatever the :user_id.
  async function destroy(request: FastifyRequest, reply: FastifyReply) {
    const stale = await app.store.write((m) => m.avatars.detach(request.user!.id))
    await removeBlobFiles(filesPath, stale)
    return reply.redirect('/users/me/profile', 302)
  }

  resourceRoutes(app, '/users/:user_id/avatar', { DELETE: destroy })
}

function matches(header: string | undefined, etag: string): boolean {
  return header !== undefined && header.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')
}

// send_file: the bytes inline, named for the blob's key.
function sendFile(reply: FastifyReply, bytes: Buffer, type: string, name: string): FastifyReply {
  return reply
    .type(type)
    .header('content-disposition', `inline; filename="${name}"; filename*=UTF-8''${name}`)
    .header('content-transfer-encoding', 'binary')
    .send(bytes)
}
