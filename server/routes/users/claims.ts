import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { dbTime } from '../../lib/time.ts'
import { ClaimRefused, findByClaimToken } from '../../models/user/claimable.ts'
import type { UserRow } from '../../models/user.ts'
import { field } from '../../plugins/body.ts'
import { validEmail, validPassword } from '../person-form.ts'

type ClaimRequest = FastifyRequest<{ Params: { token: string } }>
const UNUSABLE = 'That link has been used or has expired. Ask an administrator for a new one.'

// Opening a claim link (models/user/claimable.ts): the person picks an email and a password,
// and is signed in. A link that was used, has expired or was never made is refused.
export default async function claims(app: FastifyInstance) {
  const open = { config: { allowUnauthenticated: true } }
  const claimant = (request: ClaimRequest) => app.store.read((m) => findByClaimToken(m, app.signing, request.params.token))
  const form = (reply: FastifyReply, request: ClaimRequest, person: UserRow, status = 200, error?: string, emailAddress?: string) => {
    reply.header('cache-control', 'no-store')
    return reply.view('users/claims/show', { title: `Welcome, ${person.name}`, person, token: request.params.token, error, emailAddress }, status)
  }

  app.get('/claim/:token', open, async (request: ClaimRequest, reply) => {
    if (request.user) return reply.redirect('/', 302)
    const person = claimant(request)
    return person ? form(reply, request, person) : reply.sendError(404, UNUSABLE)
  })

  app.post('/claim/:token', open, async (request: ClaimRequest, reply) => {
    const person = claimant(request)
    if (!person) return reply.sendError(404, UNUSABLE)
    const email = field(request.body, 'user', 'email_address')?.trim() ?? ''
    const password = field(request.body, 'user', 'password') ?? ''
    if (!validEmail(email)) return form(reply, request, person, 422, 'Please enter a valid email address.', email)
    if (!password || !validPassword(password)) return form(reply, request, person, 422, 'Please choose a password.', email)
    const digest = await app.passwords.hash(password)
    try {
      await app.store.write((m) => m.claims.claim(person.id, email, digest, dbTime()))
    } catch (error) {
      if (!(error instanceof ClaimRefused)) throw error
      return form(reply, request, person, 422, error.message, email)
    }
    await reply.startSession(person.id)
    return reply.redirect('/', 302)
  })
}
