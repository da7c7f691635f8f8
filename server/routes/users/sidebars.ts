import type { FastifyInstance } from 'fastify'
import { globalIdParam } from '../../lib/rails/signing.ts'
import { isAdministrator } from '../../models/user.ts'
import type { Models } from '../../models/index.ts'
import { findOrRender, hasFlash, sendLookup, viewerSignature } from '../cached-pages.ts'

// The sidebar is a whole document (it is also fetched without Turbo), whose frame the room
// page loads lazily. The :user_id segment is always the signed-in person ("me").
export default async function sidebars(app: FastifyInstance) {
  // Cached per person, valid while their sidebar version, people and the account stay put
  // (presence and other people's rooms move none of them).
  app.get('/users/:user_id/sidebar', async (request, reply) => {
    const user = request.user!
    const render = (m: Models) => {
      const account = m.accounts.first()
      const restricted = account ? m.accounts.settings(account).restrict_room_creation_to_administrators : false
      return reply.renderView('users/sidebars/show', {
        ...m.sidebars.forUser(user),
        canCreateRooms: isAdministrator(user) || !restricted,
        roomsStream: app.signing.signStreamName('rooms'),
        userRoomsStream: app.signing.signStreamName(`${globalIdParam('User', user.id)}:rooms`),
      })
    }
    if (hasFlash(request)) {
      request.cacheStats.page = 'bypass'
      return reply.type('text/html; charset=utf-8').send(app.store.read(render))
    }
    const page = app.store.read((m) =>
      findOrRender(app, m, `sidebar:${user.id}`, () => `${m.cacheVersions.sidebar(user.id)}:${viewerSignature(user)}`, () => render(m)),
    )
    return sendLookup(app, request, reply, page)
  })
}
