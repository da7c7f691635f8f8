import type { FastifyInstance } from 'fastify'
import { denyBots } from '../deny-bots.ts'

// The profile's "Email me about mentions and Pings I miss" switch (ours: upstream sends no
// email): email_preference[missed_messages] is "1" or "0".
export default async function emailPreferences(app: FastifyInstance) {
  app.addHook('preHandler', denyBots)
  app.post('/users/me/email_preference', async (request, reply) => {
    const fields = (request.body as { email_preference?: unknown } | null | undefined)?.email_preference
    const value = fields && typeof fields === 'object' ? (fields as Record<string, unknown>).missed_messages : undefined
    if (value !== '0' && value !== '1') return reply.sendError(400, 'email_preference[missed_messages] must be 1 or 0.')
    await app.store.write((m) => m.emailPreferences.setMissedMessages(request.user!.id, value === '1'))
    return reply.flash({ notice: '✓' }).redirect('/users/me/profile', 302)
  })
}
