import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import type { StoredUpload } from '../../lib/uploads.ts'
import { nextInvolvement } from '../../models/membership/involvement.ts'
import { EmailTaken } from '../../models/user.ts'
import { normalizeEmail } from '../../models/user.ts'
import type { ProfileChanges, ProfileMembership } from '../../models/user/profile.ts'
import { denyBots } from '../deny-bots.ts'
import { BAD_METHOD_OVERRIDE, overriddenVerb } from '../method-override.ts'
import { FormRefused, readMultipartForm, UploadRefused } from '../multipart-form.ts'
import { transferLinks } from '../sessions/transfers.ts'
import { linkBack } from '../link-back.ts'
import { prepareAvatar, type PreparedAvatar } from './avatar-upload.ts'
import { removeBlobFiles, removeFiles } from '../../lib/files.ts'
import { installPlatform } from './install-platform.ts'
import { readProfile, type ProfileInput } from './profile-form.ts'

export const AVATAR_NOTICE = 'It may take up to 30 minutes to change everywhere.'
const EMAIL_TAKEN = 'Someone else already uses that email address.'

interface Upload {
  upload: StoredUpload
  filename: string
}

// Users::ProfilesController: the signed-in person's own settings, whatever the :user_id says.
// The details form is urlencoded; the avatar forms are multipart (one file, streamed to disk).
export default async function profiles(app: FastifyInstance, options: { config: Config }) {
  const { config } = options
  await app.register(multipart, { throwFileSizeLimit: true })
  app.addHook('preHandler', denyBots)

  function show(request: FastifyRequest, reply: FastifyReply, status = 200, error?: string, typed: ProfileInput = {}) {
    const user = request.user!
    const { memberships, hasAvatar, linked, missedMessages } = app.store.read((m) => ({
      memberships: m.profiles.memberships(user),
      hasAvatar: m.avatars.originalFor(user.id) !== undefined,
      linked: app.oidc ? m.oidcIdentities.forUser(user.id, app.oidc.issuer) : undefined,
      missedMessages: m.emailPreferences.wantsMissedMessages(user.id),
    }))
    return reply.view(
      'users/profiles/show',
      {
        title: user.name,
        profile: user,
        values: { name: typed.name ?? user.name, emailAddress: typed.emailAddress ?? user.email_address ?? '', bio: typed.bio ?? user.bio ?? '' },
        error,
        shared: withNextLevel(memberships.shared),
        directs: withNextLevel(memberships.directs),
        hasAvatar,
        identity: app.oidc ? { name: app.oidc.name, linked: linked ?? null, canUnlink: user.password_digest !== null } : null,
        email: app.email.enabled ? { missedMessages } : null,
        transfer: transferLinks(app, request, user),
        backPath: linkBack(request),
        installPlatform: installPlatform(request.headers['user-agent']),
      },
      status,
    )
  }

  async function update(request: FastifyRequest, reply: FastifyReply, body: unknown, file: Upload | null) {
    const reading = readProfile(body, { fileSent: file !== null })
    if ('malformed' in reading) {
      if (file) await removeFiles([file.upload.path])
      return reply.sendError(400, reading.malformed)
    }
    const { input, error } = reading
    if (error) {
      if (file) await removeFiles([file.upload.path])
      return show(request, reply, 422, error, input)
    }
    const changes = await changesFrom(request, input)
    let avatar: PreparedAvatar | null = null
    if (file) {
      try {
        avatar = await prepareAvatar(config.filesPath, file.upload, file.filename)
      } catch (refused) {
        if (!(refused instanceof UploadRefused)) throw refused
        return show(request, reply, refused.status, refused.message, input)
      }
    }
    let stale: string[]
    try {
      stale = await app.store.write((m) => {
        m.profiles.update(request.user!.id, changes)
        return avatar ? m.avatars.attach(request.user!.id, avatar.original, avatar.square) : []
      })
    } catch (failure) {
      if (avatar) await removeFiles(avatar.paths)
      if (!(failure instanceof EmailTaken)) throw failure
      return show(request, reply, 422, EMAIL_TAKEN, input)
    }
    await removeBlobFiles(config.filesPath, stale)
    return reply.flash({ notice: avatar ? AVATAR_NOTICE : '✓' }).redirect('/users/me/profile', 302)
  }

  // Only what differs from what is stored, so saving an unchanged form changes nothing.
  async function changesFrom(request: FastifyRequest, input: ProfileInput): Promise<ProfileChanges> {
    const user = request.user!
    const changes: ProfileChanges = {}
    const name = input.name?.trim()
    if (name !== undefined && name !== user.name) changes.name = name
    const email = input.emailAddress === undefined ? undefined : normalizeEmail(input.emailAddress)
    if (email !== undefined && email !== user.email_address) changes.emailAddress = email
    if (input.bio !== undefined && input.bio !== (user.bio ?? '')) changes.bio = input.bio
    if (input.password) changes.passwordDigest = await app.passwords.hash(input.password)
    return changes
  }

  // A multipart update carries its own _method among its fields; the file is read first.
  async function submitted(request: FastifyRequest, reply: FastifyReply, verbs: 'any' | 'override') {
    if (!request.isMultipart()) {
      if (verbs === 'any') return update(request, reply, request.body, null)
      const verb = overriddenVerb(request.body)
      if (!verb) return reply.sendError(400, BAD_METHOD_OVERRIDE)
      return verb === 'PATCH' || verb === 'PUT' ? update(request, reply, request.body, null) : reply.sendError(404)
    }
    let form
    try {
      form = await readMultipartForm(request, config, { fileField: 'user[avatar]' })
    } catch (refused) {
      if (!(refused instanceof FormRefused)) throw refused
      if (refused.status !== 422) return reply.sendError(refused.status, refused.message)
      const typed = readProfile(refused.body, { fileSent: true })
      return show(request, reply, 422, refused.message, 'input' in typed ? typed.input : {})
    }
    const file = form.file ? { upload: form.file, filename: form.filename } : null
    const verb = verbs === 'any' ? 'PATCH' : overriddenVerb(form.body)
    if (verb === 'PATCH' || verb === 'PUT') return update(request, reply, form.body, file)
    if (file) await removeFiles([file.upload.path])
    return verb ? reply.sendError(404) : reply.sendError(400, BAD_METHOD_OVERRIDE)
  }

  app.get('/users/:user_id/profile', async (request, reply) => show(request, reply))
  app.patch('/users/:user_id/profile', async (request, reply) => submitted(request, reply, 'any'))
  app.put('/users/:user_id/profile', async (request, reply) => submitted(request, reply, 'any'))
  app.post('/users/:user_id/profile', async (request, reply) => submitted(request, reply, 'override'))
}

// Each room with the level its bell switches to next.
function withNextLevel(memberships: ProfileMembership[]) {
  return memberships.map((membership) => ({ ...membership, next: nextInvolvement(membership.room.type, membership.involvement) }))
}
