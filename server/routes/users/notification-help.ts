import type { FastifyInstance } from 'fastify'
import { denyBots } from '../deny-bots.ts'
import { installPlatform } from './install-platform.ts'

// The help inside the bell's "Notifications aren't allowed" dialog (upstream's
// pwa/_browser_settings and pwa/_system_settings): how to allow notifications in this browser
// and on this system, read from the User-Agent. It is a frame of its own, loaded when the dialog
// opens, so the room page (cached per person and room) stays the same for every browser.
export type HelpBrowser = 'chrome' | 'edge' | 'firefox' | 'safari' | 'other'
export type HelpSystem = 'windows' | 'mac' | 'android' | 'ios' | 'other'

export interface NotificationHelp {
  browser: HelpBrowser
  browserName: string
  system: HelpSystem
  systemName: string
}

export function notificationHelp(userAgent: string | undefined): NotificationHelp {
  const ua = userAgent ?? ''
  const system: HelpSystem = /iPhone|iPad|iPod/.test(ua) ? 'ios' : /Android/.test(ua) ? 'android' : /Windows/.test(ua) ? 'windows' : /Macintosh/.test(ua) ? 'mac' : 'other'
  const browser: HelpBrowser = /EdgA?\/|EdgiOS\//.test(ua) ? 'edge' : /Firefox\/|FxiOS\//.test(ua) ? 'firefox' : /Chrome\/|CriOS\//.test(ua) ? 'chrome' : /Safari\//.test(ua) ? 'safari' : 'other'
  const names = { chrome: 'Chrome', edge: 'Edge', firefox: 'Firefox', safari: 'Safari', other: 'your browser' }
  const systems = { windows: 'Windows', mac: 'macOS', android: 'Android', ios: /iPad/.test(ua) ? 'iPadOS' : 'iOS', other: 'system' }
  return { browser, browserName: names[browser], system, systemName: systems[system] }
}

export default async function notificationHelpRoutes(app: FastifyInstance) {
  app.addHook('preHandler', denyBots)
  app.get('/users/me/notification_help', async (request, reply) => {
    const userAgent = request.headers['user-agent']
    const origin = `${request.protocol}://${request.host}/`
    return reply.view('users/notification_help', { help: notificationHelp(userAgent), platform: installPlatform(userAgent), origin, turboFrame: true })
  })
}
