import { readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import type { Config } from '../../config.ts'
import { projectPath } from '../../lib/paths.ts'
import { LOGO_LARGE, LOGO_SMALL } from '../../models/blob/variations.ts'
import { isAdministrator } from '../../models/user.ts'
import { blobPath, removeBlobFiles } from '../../lib/files.ts'
import { maskableIcon } from '../../lib/maskable-icon.ts'
import { resourceRoutes } from '../method-override.ts'
import { processedVariants } from '../processed-variants.ts'

// Our own campfire at both sizes and as a maskable icon (server/build/app-icons.ts), for an
// account without a logo.
const STOCK = {
  large: { name: 'app-icon.png', bytes: readFileSync(projectPath('public', 'images', 'app-icon.png')) },
  small: { name: 'app-icon-192.png', bytes: readFileSync(projectPath('public', 'images', 'app-icon-192.png')) },
  maskable: { name: 'app-icon-maskable.png', bytes: readFileSync(projectPath('public', 'images', 'app-icon-maskable.png')) },
}

type Size = keyof typeof STOCK

type LogoRequest = FastifyRequest<{ Querystring: { size?: unknown } }>

// Accounts::LogosController: the logo as a PNG for anyone (it is the favicon, the app icon and
// the sign-in page's picture); administrators remove it. ?size=maskable is ours: the large logo
// inside the safe zone of a white 512 square, for the web manifest's maskable icon. It is made
// from the large variant on first request and kept in memory, keyed by that variant's blob.
export default async function logos(app: FastifyInstance, options: { config: Config }) {
  const processed = processedVariants(app, options.config.filesPath)
  const maskables = new LRUCache<string, Promise<Buffer | null>>({ max: 4 })
  const maskable = (key: string, large: Buffer): Promise<Buffer | null> => {
    let icon = maskables.get(key)
    if (!icon) maskables.set(key, (icon = maskableIcon(large).catch(() => null)))
    return icon
  }

  app.get('/account/logo', { config: { allowUnauthenticated: true } }, async (request: LogoRequest, reply) => {
    const size: Size = request.query.size === 'small' || request.query.size === 'maskable' ? request.query.size : 'large'
    const found = app.store.read((m) => {
      const account = m.accounts.first()
      return account ? { account, original: m.logos.originalFor(account.id) } : null
    })
    reply.header('cache-control', 'max-age=300, public, stale-while-revalidate=604800')
    if (found) {
      const etag = `W/"account-${found.account.id}-${found.account.updated_at.replace(/\D/g, '')}"`
      reply.header('etag', etag)
      if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send()
    }
    if (found?.original) {
      const variant = await processed(found.original, size === 'small' ? LOGO_SMALL : LOGO_LARGE)
      const path = variant ? blobPath(options.config.filesPath, variant.key) : null
      const bytes = path ? await readFile(path).catch(() => null) : null
      const icon = bytes && size === 'maskable' ? await maskable(variant!.key, bytes) : bytes
      if (icon) return sendPng(reply, size === 'maskable' ? `${variant!.key}-maskable.png` : variant!.key, icon)
    }
    return sendPng(reply, STOCK[size].name, STOCK[size].bytes)
  })

  async function destroy(request: FastifyRequest, reply: FastifyReply) {
    if (!isAdministrator(request.user!)) return reply.sendError(403)
    const account = app.store.read((m) => m.accounts.first())
    if (!account) return reply.sendError(404)
    const stale = await app.store.write((m) => m.logos.detach(account.id))
    await removeBlobFiles(options.config.filesPath, stale)
    return reply.redirect('/account/edit', 302)
  }

  resourceRoutes(app, '/account/logo', { DELETE: destroy })
}

// send_file as Rails does it: the exact type, inline, named for the file.
function sendPng(reply: FastifyReply, name: string, bytes: Buffer): FastifyReply {
  return reply
    .type('image/png')
    .header('content-disposition', `inline; filename="${name}"; filename*=UTF-8''${name}`)
    .header('content-transfer-encoding', 'binary')
    .send(bytes)
}

// If-None-Match: a list of tags, or *, compared weakly.
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false
  const weak = (tag: string) => tag.trim().replace(/^W\//, '')
  return header.split(',').some((tag) => tag.trim() === '*' || weak(tag) === weak(etag))
}
