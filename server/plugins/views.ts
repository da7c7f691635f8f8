import fp from 'fastify-plugin'
import type { FastifyReply } from 'fastify'
import type { Config } from '../config.ts'
import { Assets, type Asset } from '../rendering/assets.ts'
import { ASSETS_OUT, ensureAssets } from '../build/assets.ts'
import { createTemplates } from '../rendering/templates.ts'
import { createHelpers, type Helpers } from '../rendering/helpers/index.ts'
import { createMessageRenderer, type MessageRenderer } from '../rendering/messages.ts'

export interface Flash {
  notice?: string
  alert?: string
}

declare module 'fastify' {
  interface FastifyInstance {
    assets: Assets
    helpers: Helpers
    renderPartial(template: string, data?: Record<string, unknown>): string
    messageRenderer: MessageRenderer
  }
  interface FastifyReply {
    view(template: string, data?: Record<string, unknown>, status?: number): FastifyReply
    // What view would send, as a string (a cached page renders its per-request shell with it).
    renderView(template: string, data?: Record<string, unknown>): string
    flash(flash: Flash): FastifyReply
  }
}

const FLASH_COOKIE = 'flash'

function readFlash(value: string | undefined): Flash {
  if (!value) return {}
  try {
    const parsed = JSON.parse(value) as Flash
    return {
      notice: typeof parsed.notice === 'string' ? parsed.notice.slice(0, 500) : undefined,
      alert: typeof parsed.alert === 'string' ? parsed.alert.slice(0, 500) : undefined,
    }
  } catch {
    return {}
  }
}

// reply.view renders an eta template inside its layout with what every page needs.
export default fp(
  async function views(app, options: { config: Config }) {
    const eta = createTemplates()
    ensureAssets()
    const assets = new Assets(ASSETS_OUT)
    const helpers = createHelpers(app.signing)
    app.decorate('assets', assets)
    app.decorate('helpers', helpers)
    app.decorate(
      'messageRenderer',
      createMessageRenderer({ eta, helpers, signing: app.signing, assetPath: (name) => assets.path(name), findPeople: (ids) => app.store.read((m) => m.users.people(ids)) }),
    )
    app.decorate('renderPartial', (template: string, data: Record<string, unknown> = {}) => eta.render(template, { ...data, h: helpers }))

    app.decorateReply('flash', function (this: FastifyReply, flash: Flash) {
      return this.setCookie(FLASH_COOKIE, JSON.stringify(flash), { path: '/', httpOnly: true, sameSite: 'lax', maxAge: 60 })
    })

    app.decorateReply('renderView', function (this: FastifyReply, template: string, data: Record<string, unknown> = {}) {
      const request = this.request
      const flash = readFlash(request.cookies[FLASH_COOKIE])
      if (request.cookies[FLASH_COOKIE]) this.clearCookie(FLASH_COOKIE, { path: '/' })
      // A page that read the account in its own read transaction passes it (a cached shell is
      // keyed by what it was rendered from).
      const account = 'account' in data ? data.account : app.store.read((m) => m.accounts.first())
      return eta.render(template, {
        ...data,
        h: helpers,
        user: request.user,
        account: account ?? null,
        flash,
        version: options.config.version,
        stylesheets: assets.stylesheets(),
        javascript: assets.path('application.js'),
        asset: (name: string) => assets.path(name),
        vapidPublicKey: options.config.vapid?.publicKey ?? '',
      })
    })

    app.decorateReply('view', function (this: FastifyReply, template: string, data: Record<string, unknown> = {}, status = 200) {
      return this.code(status).type('text/html; charset=utf-8').send(this.renderView(template, data))
    })

    app.get('/assets/*', { config: { allowUnauthenticated: true } }, async (request, reply) => {
      const asset = assets.find(request.url.split('?')[0]!)
      if (!asset) return reply.sendError(404)
      reply.header('cache-control', 'public, max-age=31536000, immutable')
      return sendAsset(request.headers, reply, asset)
    })
  },
  { name: 'views', dependencies: ['database', 'auth'] },
)

// Sends a built asset, precompressed as the client accepts, revalidated by its etag (the assets
// route, and the service worker at its fixed URL).
export function sendAsset(headers: Record<string, string | string[] | undefined>, reply: FastifyReply, asset: Asset): FastifyReply {
  const accepted = String(headers['accept-encoding'] ?? '')
  reply.header('etag', asset.etag).header('vary', 'accept-encoding')
  if (headers['if-none-match'] === asset.etag) return reply.code(304).send()
  reply.type(asset.contentType)
  if (asset.brotli && /\bbr\b/.test(accepted)) return reply.header('content-encoding', 'br').send(asset.brotli)
  if (asset.gzip && /\bgzip\b/.test(accepted)) return reply.header('content-encoding', 'gzip').send(asset.gzip)
  return reply.send(asset.body)
}

