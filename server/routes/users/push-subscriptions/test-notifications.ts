import { randomUUID } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { denyBots } from '../../deny-bots.ts'
import { parseId } from '../../rooms/room-scope.ts'

export const PUSH_IS_OFF = 'Web Push is off on this server (VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY are not set).'

// Users::PushSubscriptions::TestNotificationsController: "Campfire Test" with a random UUID as
// its body, to one of the person's own subscriptions, then back to the list. Upstream answers
// it only in development; here it works everywhere, so whoever runs a server can see push work.
export default async function testNotifications(app: FastifyInstance) {
  app.addHook('preHandler', denyBots)

  app.post('/users/:user_id/push_subscriptions/:push_subscription_id/test_notifications', async (request: FastifyRequest<{ Params: { push_subscription_id: string } }>, reply) => {
    const id = parseId(request.params.push_subscription_id)
    const subscription = id === null ? undefined : app.store.read((m) => m.pushSubscriptions.find(request.user!.id, id))
    if (!subscription) return reply.sendError(404)
    if (!app.webPush.enabled) return reply.sendError(409, PUSH_IS_OFF)
    app.webPush.notify(subscription, { title: 'Campfire Test', body: randomUUID(), path: '/users/me/push_subscriptions' })
    return reply.redirect('/users/me/push_subscriptions', 302)
  })
}
