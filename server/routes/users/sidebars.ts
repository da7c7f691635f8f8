import type { FastifyInstance } from 'fastify'
import { globalIdParam } from '../../lib/rails/signing.ts'
import { isAdministrator } from '../../models/user.ts'
import type { Models } from '../../models/index.ts'
import type { SlottedPage } from '../../rendering/unread-slots.ts'
import { hasFlash, viewerSignature } from '../cached-pages.ts'

// The sidebar is a whole document (it is also fetched without Turbo), whose frame the room
// page loads lazily. The :user_id segment is always the signed-in person ("me").
export default async function sidebars(app: FastifyInstance) {
  // Cached per person, valid while their sidebar version, people and the account stay put
  // (presence and other people's rooms move none of them). Unread marks are left as slots in
  // the cached page and filled from the person's memberships on every request, so reading a
  // room or a post elsewhere keeps it (server/rendering/unread-slots.ts).
  app.get('/users/:user_id/sidebar', app.memoized(async (request, reply) => {
    const user = request.user!
    const render = (m: Models, slots: boolean) => {
      const account = m.accounts.first()
      const restricted = account ? m.accounts.settings(account).restrict_room_creation_to_administrators : false
      const sidebar = m.sidebars.forUser(user)
      return reply.renderView('users/sidebars/show', {
        shared: slots ? sidebar.shared.map((room) => ({ ...room, unread: 'slot' })) : sidebar.shared,
        directs: slots ? sidebar.directs.map((direct) => ({ ...direct, unread: 'slot' })) : sidebar.directs,
        placeholders: sidebar.placeholders,
        canCreateRooms: isAdministrator(user) || !restricted,
        roomsStream: app.signing.signStreamName('rooms'),
        userRoomsStream: app.signing.signStreamName(`${globalIdParam('User', user.id)}:rooms`),
      })
    }
    const cache = app.pageCache
    if (!cache || hasFlash(request)) {
      request.cacheStats.page = cache ? 'bypass' : 'off'
      return reply.type('text/html; charset=utf-8').send(app.store.read((m) => render(m, false)))
    }
    const key = `sidebar:${user.id}`
    const found = app.store.read((m) => {
      const signature = app.pageSignature(m, () => `${m.cacheVersions.sidebar(user.id)}:${viewerSignature(user)}`)
      const unread = m.memberships.unreadRoomIds(user.id)
      const page = cache.find<SlottedPage>(key, signature)
      return page ? { page, unread } : { signature, html: render(m, true), unread }
    })
    if ('page' in found && found.page) {
      request.cacheStats.page = 'hit'
      return reply.sendSlottedPage(await found.page, found.unread)
    }
    request.cacheStats.page = 'miss'
    return reply.sendSlottedPage(await cache.admitSlotted(key, found.signature!, found.html!), found.unread)
  }))
}
