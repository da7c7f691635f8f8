import type { FastifyInstance } from 'fastify'
import { globalIdParam } from '../../lib/rails/signing.ts'
import { isAdministrator } from '../../models/user.ts'

// The sidebar is a whole document (it is also fetched without Turbo), whose frame the room
// page loads lazily. The :user_id segment is always the signed-in person ("me").
export default async function sidebars(app: FastifyInstance) {
  app.get('/users/:user_id/sidebar', async (request, reply) => {
    const user = request.user!
    const data = app.store.read((m) => {
      const account = m.accounts.first()
      const restricted = account ? m.accounts.settings(account).restrict_room_creation_to_administrators : false
      return { ...m.sidebars.forUser(user), canCreateRooms: isAdministrator(user) || !restricted }
    })
    return reply.view('users/sidebars/show', {
      ...data,
      roomsStream: app.signing.signStreamName('rooms'),
      userRoomsStream: app.signing.signStreamName(`${globalIdParam('User', user.id)}:rooms`),
    })
  })
}
