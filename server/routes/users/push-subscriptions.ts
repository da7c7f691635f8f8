import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { subscriptionProblem, type PushSubscriptionInput } from '../../models/push/subscription.ts'
import { field } from '../../plugins/body.ts'
import { denyBots } from '../deny-bots.ts'
import { resourceRoutes } from '../method-override.ts'
import { parseId } from '../rooms/room-scope.ts'

type SubscriptionRequest = FastifyRequest<{ Params: { user_id: string; id: string } }>

export const SUBSCRIPTION_MISSING = 'A push_subscription with endpoint, p256dh_key and auth_key is required.'

// Users::PushSubscriptionsController: the bell's subscription arrives here as JSON (or a form),
// {push_subscription: {endpoint, p256dh_key, auth_key}}; an identical one is touched, anything
// else is stored with the browser's user agent, and the answer is an empty 200. Whatever the
// :user_id segment says, these act on the signed-in person's own subscriptions, as upstream's do.
// The list (upstream's development tool) shows them with a test send and a delete.
export default async function pushSubscriptions(app: FastifyInstance) {
  app.addHook('preHandler', denyBots)

  app.get('/users/:user_id/push_subscriptions', async (request, reply) => {
    const subscriptions = app.store.read((m) => m.pushSubscriptions.forUser(request.user!.id))
    return reply.view('users/push_subscriptions/index', {
      title: 'Push subscriptions',
      enabled: app.webPush.enabled,
      subscriptions: subscriptions.map((s) => ({ id: s.id, service: serviceOf(s.endpoint), userAgent: s.user_agent ?? '', createdAt: s.created_at })),
    })
  })

  async function create(request: FastifyRequest, reply: FastifyReply) {
    const input = subscriptionFrom(request.body)
    if (!input) return reply.sendError(hasSubscription(request.body) ? 422 : 400, SUBSCRIPTION_MISSING)
    const problem = subscriptionProblem(input, (url) => app.webPush.permitsEndpoint(url))
    if (problem) return reply.sendError(422, problem)
    const userId = request.user!.id
    await app.store.write((m) => m.pushSubscriptions.subscribe(userId, input, request.headers['user-agent']))
    return reply.code(200).send()
  }

  async function destroy(request: SubscriptionRequest, reply: FastifyReply) {
    const id = parseId(request.params.id)
    const userId = request.user!.id
    const destroyed = id !== null && (await app.store.write((m) => m.pushSubscriptions.destroy(userId, id)))
    if (!destroyed) return reply.sendError(404)
    return reply.redirect('/users/me/push_subscriptions', 302)
  }

  resourceRoutes(app, '/users/:user_id/push_subscriptions', { POST: create })
  resourceRoutes(app, '/users/:user_id/push_subscriptions/:id', { DELETE: destroy })
}

function hasSubscription(body: unknown): boolean {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>).push_subscription : undefined
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function subscriptionFrom(body: unknown): PushSubscriptionInput | null {
  const [endpoint, p256dh, auth] = ['endpoint', 'p256dh_key', 'auth_key'].map((name) => field(body, 'push_subscription', name))
  if (!endpoint || !p256dh || !auth) return null
  return { endpoint, p256dh_key: p256dh, auth_key: auth }
}

// Where a subscription's pushes go, for the list: the push service's host, not the whole endpoint.
function serviceOf(endpoint: string): string {
  try {
    return new URL(endpoint).host
  } catch {
    return 'an invalid endpoint'
  }
}
