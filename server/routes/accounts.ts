import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import { isAdministrator, ROLES } from '../models/user.ts'
import { readAccountForm, INVALID_NAME, validName } from './account/account-form.ts'
import { inviteLinks } from './account/join-codes.ts'
import { prepareLogo, type PreparedLogo } from './account/logo-upload.ts'
import { overriddenVerb } from './method-override.ts'
import { callbackUrl } from '../plugins/oidc.ts'
import { readMultipartForm, UploadRefused, type MultipartForm } from './multipart-form.ts'
import { backPath } from './rooms/room-scope.ts'
import { removeBlobFiles, removeFiles } from '../lib/files.ts'

const SAVED = '✓'


// AccountsController: everyone sees the account page; administrators rename the account,
// change its logo and flip its settings.
export default async function accounts(app: FastifyInstance, options: { config: Config }) {
  const { config } = options

  // The page as it stands, with what a refused form had typed kept (`name`) and its `error`.
  function edit(request: FastifyRequest, reply: FastifyReply, form: { name?: string; error?: string } = {}, status = 200) {
    const user = request.user!
    const administrator = isAdministrator(user)
    const page = app.store.read((m) => {
      const account = m.accounts.first()
      if (!account) return null
      return {
        account,
        settings: m.accounts.settings(account),
        roster: m.roster.page(1, { withBanned: administrator }),
        sso: app.oidc && administrator ? { name: app.oidc.name, redirectUri: callbackUrl(request), providerOnly: m.oidcIdentities.providerOnly(), administratorsWithPassword: m.oidcIdentities.administratorsWithPassword() } : null,
        backPath: backPath(app, request),
      }
    })
    if (!page) return reply.sendError(404)
    const invite = { ...inviteLinks(app, request), isAdministrator: administrator, h: app.helpers }
    return reply.view('accounts/edit', { ...page, administrator, invite, name: form.name ?? page.account.name, error: form.error, viewer: user }, status)
  }

  app.get('/account/edit', async (request, reply) => {
    if (request.user!.role === ROLES.bot) return reply.sendError(403)
    return edit(request, reply)
  })

  // Everything the form asked for is checked before the logo is processed, then written in one
  // transaction; a refused upload leaves no file behind.
  async function update(request: FastifyRequest, reply: FastifyReply) {
    if (!isAdministrator(request.user!)) return reply.sendError(403)
    const account = app.store.read((m) => m.accounts.first())
    if (!account) return reply.sendError(404)
    let body: unknown = request.body
    let upload: MultipartForm | null = null
    if (request.isMultipart()) {
      try {
        upload = await readMultipartForm(request, config, { fileField: 'account[logo]' })
      } catch (error) {
        if (!(error instanceof UploadRefused)) throw error
        return error.status === 422 ? edit(request, reply, { error: error.message }, 422) : reply.sendError(error.status, error.message)
      }
      body = upload.body
    }
    const form = readAccountForm(body)
    const name = form.malformed || form.name === undefined ? undefined : validName(form.name)
    const refuse = async (send: () => FastifyReply) => {
      if (upload?.file) await removeFiles([upload.file.path])
      return send()
    }
    // A real PATCH or PUT is an update whatever its body; a multipart POST is one only with _method.
    const verb = request.method === 'POST' ? overriddenVerb(body) : request.method
    if (upload && !['PATCH', 'PUT'].includes(verb ?? '')) return refuse(() => reply.sendError(405))
    if (form.malformed || (!form.present && !upload?.file)) return refuse(() => reply.sendError(400, 'The account form could not be read.'))
    if (name === null) return refuse(() => edit(request, reply, { name: form.name, error: INVALID_NAME }, 422))

    let logo: PreparedLogo | null = null
    if (upload?.file) {
      try {
        logo = await prepareLogo(config.filesPath, upload.file, upload.filename)
      } catch (error) {
        if (error instanceof UploadRefused) return edit(request, reply, { error: error.message }, error.status)
        throw error
      }
    }
    const stale = await app.store.write((m) => {
      if (name !== undefined) m.accounts.rename(account.id, name)
      if (Object.keys(form.settings).length > 0) m.accounts.updateSettings(account, form.settings)
      return logo ? m.logos.attach(account.id, logo.original, logo.large, logo.small) : []
    }).catch(async (error: unknown) => {
      if (logo) await removeFiles(logo.paths)
      throw error
    })
    await removeBlobFiles(config.filesPath, stale)
    return reply.flash({ notice: SAVED }).redirect('/account/edit', 302)
  }

  // Multipart (the logo) is read on these routes only. The form's own action is upstream's
  // "/account.<id>" (the record fills the format), so that path answers as well.
  await app.register(async function withUploads(scope) {
    await scope.register(multipart, { throwFileSizeLimit: true })
    for (const url of ['/account', '/account.:format']) {
      scope.patch(url, update)
      scope.put(url, update)
      scope.post(url, async (request, reply) => {
        if (request.isMultipart()) return update(request, reply)
        const verb = overriddenVerb(request.body)
        return verb === 'PATCH' || verb === 'PUT' ? update(request, reply) : reply.sendError(verb ? 404 : 400)
      })
    }
  })
}
