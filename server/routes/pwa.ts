import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { PWA_SCREENSHOTS, screenshotSize } from '../lib/pwa-screenshots.ts'
import { accountLogoPath } from '../rendering/helpers/logos.ts'
import { sendAsset } from '../plugins/views.ts'

const open = { config: { allowUnauthenticated: true } }

// Rails::PwaController: the web manifest and the service worker, at fixed URLs at the root (the
// worker's scope is the whole site) that are always rechecked, for anyone.
export default async function pwa(app: FastifyInstance) {
  // The manifest: the account's name, its logo at 192 and 512 pixels and as a maskable icon (our
  // campfire while it has none), shortcuts to a new room and to the profile, and screenshots.
  async function manifest(_request: FastifyRequest, reply: FastifyReply) {
    const account = app.store.read((m) => m.accounts.first()) ?? null
    const name = account?.name ?? 'Campfire'
    return reply
      .type('application/manifest+json; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send({
        id: '/',
        name,
        short_name: name,
        description: 'Group chat for your team: rooms, direct messages, @mentions and bots, on your own server.',
        categories: ['social', 'business', 'productivity'],
        icons: [
          { src: accountLogoPath(account, 'small'), type: 'image/png', sizes: '192x192' },
          { src: accountLogoPath(account), type: 'image/png', sizes: '512x512' },
          { src: accountLogoPath(account, 'maskable'), type: 'image/png', sizes: '512x512', purpose: 'maskable' },
        ],
        start_url: '/',
        scope: '/',
        display: 'standalone',
        theme_color: '#ffffff',
        background_color: '#ffffff',
        shortcuts: [
          { name: 'New chat room', description: 'Open Campfire and start a new chat room', url: '/rooms/opens/new', icons: [shortcutIcon('add')] },
          { name: 'My profile', description: 'Open Campfire and view your profile', url: '/users/me/profile', icons: [shortcutIcon('person')] },
        ],
        screenshots: PWA_SCREENSHOTS.flatMap((shot) => {
          // Assets built before a screenshot was added lack it: it is left out, never a 500.
          const asset = app.assets.file(`images/screenshots/${shot.file}`)
          if (!asset) return []
          const { width, height } = screenshotSize(shot)
          return [{ src: asset.path, type: 'image/png', sizes: `${width}x${height}`, form_factor: shot.formFactor, label: shot.label }]
        }),
      })
  }

  const shortcutIcon = (icon: string) => ({ src: app.assets.path(`images/icons/${icon}.svg`), type: 'image/svg+xml', sizes: 'any' })

  app.get('/webmanifest', open, manifest)
  app.get('/webmanifest.json', open, manifest)

  async function serviceWorker(request: FastifyRequest, reply: FastifyReply) {
    reply.header('cache-control', 'no-cache').header('service-worker-allowed', '/')
    return sendAsset(request.headers, reply, app.assets.file('service-worker.js')!)
  }

  app.get('/service-worker', open, serviceWorker)
  app.get('/service-worker.js', open, serviceWorker)
}
