import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { fieldList } from '../../plugins/body.ts'
import { isAdministrator, ROLES, STATUSES, type UserRow } from '../../models/user.ts'
import { personRole } from '../../models/user/role.ts'
import { TURBO_STREAM_TYPE, turboStream } from '../../rendering/turbo-streams.ts'
import { resourceRoutes } from '../method-override.ts'
import { wantsTurboStream } from '../room-scoped.ts'
import { parseId } from '../rooms/room-scope.ts'

type PersonRequest = FastifyRequest<{ Params: { id: string } }>

// Accounts::UsersController: the next pages of the account page's people list, and an
// administrator changing someone's role or removing them. Nobody changes or removes themselves.
export default async function accountUsers(app: FastifyInstance) {
  async function index(request: FastifyRequest<{ Querystring: { page?: unknown } }>, reply: FastifyReply, format: 'turbo_stream' | null) {
    const viewer = request.user!
    if (viewer.role === ROLES.bot) return reply.sendError(403)
    // Upstream answers a page's HTML request with 406; a person who opens the address gets the
    // account page, where the list lives (docs/features.md, "Differences from upstream").
    if (format === null && !wantsTurboStream(request)) return acceptsHtml(request) ? reply.redirect('/account/edit', 302) : reply.sendError(406)
    const number = pageNumber(request.query.page)
    if (number === null) return reply.sendError(400, 'That is not a page number.')
    const administrator = isAdministrator(viewer)
    const roster = app.store.read((m) => m.roster.page(number, { withBanned: administrator }))
    const items = app.renderPartial('/accounts/users/_page', { roster: { ...roster, last: true }, viewer, administrator })
    let stream = turboStream('replace', 'next_page_container', items)
    if (!roster.last) stream += turboStream('append', 'account_users', app.renderPartial('/accounts/users/_page', { roster: { ...roster, people: [] }, viewer, administrator }))
    return reply.type(TURBO_STREAM_TYPE).send(stream)
  }

  app.get('/account/users', (request: FastifyRequest<{ Querystring: { page?: unknown } }>, reply) => index(request, reply, null))
  app.get('/account/users.turbo_stream', (request: FastifyRequest<{ Querystring: { page?: unknown } }>, reply) => index(request, reply, 'turbo_stream'))

  // An administrator, acting on another active person (bots have their own page).
  function findPerson(request: PersonRequest, reply: FastifyReply): UserRow | undefined {
    const viewer = request.user!
    if (!isAdministrator(viewer)) return void reply.sendError(403)
    const id = parseId(request.params.id)
    const person = id === null ? undefined : app.store.read((m) => m.users.find(id))
    if (!person || person.status !== STATUSES.active || person.role === ROLES.bot) return void reply.sendError(404)
    if (person.id === viewer.id) return void reply.sendError(403, 'You can’t change your own role or remove yourself.')
    return person
  }

  async function update(request: PersonRequest, reply: FastifyReply) {
    const person = findPerson(request, reply)
    if (!person) return reply
    // The checkbox follows a hidden "member", so a ticked box sends both: the last one counts.
    const values = fieldList(request.body, 'user', 'role')
    if (values.length === 0) return reply.sendError(400, 'The role form could not be read.')
    const changed = await app.store.write((m) => m.roles.change(person.id, personRole(values.at(-1))))
    if (!changed) return reply.sendError(404)
    return reply.redirect('/account/edit', 302)
  }

  async function destroy(request: PersonRequest, reply: FastifyReply) {
    const person = findPerson(request, reply)
    if (!person) return reply
    const deactivated = await app.store.write((m) => m.deactivatable.deactivate(person.id))
    if (!deactivated) return reply.sendError(404)
    app.cable.disconnectUser(person.id, { reconnect: false })
    return reply.redirect('/account/edit', 302)
  }

  resourceRoutes(app, '/account/users/:id', { PATCH: update, PUT: update, DELETE: destroy })
}

function acceptsHtml(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '')
  return accept === '' || /text\/html|\*\/\*/.test(accept)
}

// geared_pagination's ?page=: the first page when absent.
function pageNumber(value: unknown): number | null {
  if (value === undefined) return 1
  return typeof value === 'string' && /^[1-9]\d{0,5}$/.test(value) ? Number(value) : null
}
