import type { FastifyInstance, FastifyRequest } from 'fastify'
import { field } from '../plugins/body.ts'
import { EmailTaken, joinAccount } from '../models/user/joining.ts'
import { readPerson } from './person-form.ts'

type JoinRequest = FastifyRequest<{ Params: { join_code: string } }>

// Joining with the account's invite link.
export default async function users(app: FastifyInstance) {
  const open = { config: { allowUnauthenticated: true } }

  function validCode(request: JoinRequest): boolean {
    const account = app.store.read((m) => m.accounts.first())
    return account !== undefined && account.join_code === request.params.join_code
  }

  app.get('/join/:join_code', open, async (request: JoinRequest, reply) => {
    if (request.user) return reply.redirect('/', 302)
    if (!validCode(request)) return reply.sendError(404)
    return reply.view('users/new', { joinCode: request.params.join_code })
  })

  app.post('/join/:join_code', open, async (request: JoinRequest, reply) => {
    if (request.user) return reply.redirect('/', 302)
    if (!validCode(request)) return reply.sendError(404)
    const person = readPerson(request.body)
    if ('error' in person) {
      const form = { joinCode: request.params.join_code, error: person.error, name: field(request.body, 'user', 'name'), emailAddress: field(request.body, 'user', 'email_address') }
      return reply.view('users/new', form, 422)
    }
    const passwordDigest = await app.passwords.hash(person.password)
    try {
      const userId = await app.store.write((m) => joinAccount(m, { ...person, passwordDigest }))
      await reply.startSession(userId)
      return reply.redirect('/', 302)
    } catch (error) {
      if (!(error instanceof EmailTaken)) throw error
      return reply.redirect(`/session/new?email_address=${encodeURIComponent(person.emailAddress)}`, 302)
    }
  })
}
