import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { EmailRefused, joinAccount } from '../models/user/joining.ts'
import { EmailTaken } from '../models/user.ts'
import { isAdministrator, ROLES, STATUSES } from '../models/user.ts'
import { denyBots } from './deny-bots.ts'
import { linkBack } from './link-back.ts'
import { readSignup } from './person-form.ts'
import { parseId } from './rooms/room-scope.ts'
import { transferLinks } from './sessions/transfers.ts'
import { removeFiles } from '../lib/files.ts'

type JoinRequest = FastifyRequest<{ Params: { join_code: string } }>

// Someone deactivated or banned had the address: only an administrator brings them back.
const REFUSED_EMAIL = "That email address can't join here. Please ask an administrator."
const LOOKALIKE_EMAIL = "That email address looks like someone else's here. Please use another one."

// Joining with the account's invite link, and everyone's public profile.
export default async function users(app: FastifyInstance, options: { config: Config }) {
  const { config } = options
  const open = { config: { allowUnauthenticated: true } }
  await app.register(multipart, { throwFileSizeLimit: true })
  app.addHook('preHandler', denyBots)

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
    const signup = await readSignup(request, config)
    if ('error' in signup) {
      if (signup.status !== 422) return reply.sendError(signup.status, signup.error)
      return reply.view('users/new', { joinCode: request.params.join_code, error: signup.error, name: signup.name, emailAddress: signup.emailAddress }, 422)
    }
    const { person, avatar } = signup
    const passwordDigest = await app.passwords.hash(person.password)
    let userId: number
    try {
      userId = await app.store.write((m) => {
        const id = joinAccount(m, { ...person, passwordDigest })
        if (avatar) m.avatars.attach(id, avatar.original, avatar.square)
        return id
      })
    } catch (error) {
      if (avatar) await removeFiles(avatar.paths)
      if (error instanceof EmailRefused) {
        const message = error.reason === 'inactive' ? REFUSED_EMAIL : LOOKALIKE_EMAIL
        return reply.view('users/new', { joinCode: request.params.join_code, error: message, name: person.name, emailAddress: person.emailAddress }, 422)
      }
      if (!(error instanceof EmailTaken)) throw error
      return reply.redirect(`/session/new?email_address=${encodeURIComponent(person.emailAddress)}`, 302)
    }
    await reply.startSession(userId)
    return reply.redirect('/', 302)
  })

  // UsersController#show: anyone's profile, whatever their standing. Administrators also see
  // the email, the sign-in link of an active person and the ban button.
  app.get('/users/:id', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const id = parseId(request.params.id)
    const person = id === null ? undefined : app.store.read((m) => m.users.find(id))
    if (!person) return reply.sendError(404)
    const viewer = request.user!
    const administrator = isAdministrator(viewer)
    const active = person.status === STATUSES.active
    return reply.view('users/show', {
      title: person.name,
      person,
      self: person.id === viewer.id,
      bot: person.role === ROLES.bot,
      active,
      banned: person.status === STATUSES.banned,
      administrator,
      transfer: administrator && active && person.role !== ROLES.bot ? transferLinks(app, request, person) : null,
      canBan: administrator && person.id !== viewer.id && person.status !== STATUSES.deactivated && person.role !== ROLES.bot,
      canErase: administrator && person.id !== viewer.id && !app.store.read((m) => m.erasable.isFormerMember(person.id)),
      backPath: linkBack(request),
    })
  })
}
