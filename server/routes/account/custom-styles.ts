import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isAdministrator } from '../../models/user.ts'
import { requestOrigin } from '../../plugins/security.ts'
import { resourceRoutes } from '../method-override.ts'

// Every page carries these in its <head>, so they are kept to a size a page can bear.
export const CUSTOM_STYLES_LIMIT = 100_000
// Grouped by hand: toLocaleString here loaded ICU's data at every start, a twentieth of it.
const TOO_LONG = `Custom styles can be up to ${String(CUSTOM_STYLES_LIMIT).replace(/\B(?=(\d{3})+$)/g, ',')} characters long.`

// Accounts::CustomStylesController: administrators only, the page as well as the update.
export default async function customStyles(app: FastifyInstance) {
  function edit(request: FastifyRequest, reply: FastifyReply, form: { css?: string; error?: string } = {}, status = 200) {
    const account = app.store.read((m) => m.accounts.first())
    if (!account) return reply.sendError(404)
    const css = form.css ?? account.custom_styles ?? ''
    return reply.view('accounts/custom_styles/edit', { css, error: form.error, action: `${requestOrigin(request)}/account/custom_styles` }, status)
  }

  app.get('/account/custom_styles/edit', async (request, reply) => {
    if (!isAdministrator(request.user!)) return reply.sendError(403)
    return edit(request, reply)
  })

  async function update(request: FastifyRequest, reply: FastifyReply) {
    if (!isAdministrator(request.user!)) return reply.sendError(403)
    const account = (request.body as { account?: unknown } | undefined)?.account
    const css = account && typeof account === 'object' ? (account as Record<string, unknown>).custom_styles : undefined
    if (typeof css !== 'string') return reply.sendError(400, 'The custom styles form could not be read.')
    if (css.length > CUSTOM_STYLES_LIMIT) return edit(request, reply, { css, error: TOO_LONG }, 422)
    const current = app.store.read((m) => m.accounts.first())
    if (!current) return reply.sendError(404)
    await app.store.write((m) => m.accounts.updateCustomStyles(current.id, css))
    return reply.flash({ notice: '✓' }).redirect('/account/custom_styles/edit', 302)
  }

  resourceRoutes(app, '/account/custom_styles', { PATCH: update, PUT: update })
}
