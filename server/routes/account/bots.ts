import multipart from '@fastify/multipart'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import { isAdministrator } from '../../models/user.ts'
import { botKey, type BotRow } from '../../models/user/bot.ts'
import { createBot, updateBot } from '../../models/user/bot-setup.ts'
import { requestOrigin } from '../../plugins/security.ts'
import { BAD_METHOD_OVERRIDE } from '../method-override.ts'
import { UploadRefused } from '../multipart-form.ts'
import { parseId } from '../rooms/room-scope.ts'
import { prepareAvatar, type PreparedAvatar } from '../users/avatar-upload.ts'
import { removeBlobFiles, removeFiles } from '../../lib/files.ts'
import { FormRefused, readBotForm, readBotSubmission, type BotInput, type BotSubmission } from './bot-form.ts'

type BotRequest = FastifyRequest<{ Params: { id: string } }>

// Accounts::BotsController: administrators list, add, change and remove the account's bots.
// The form is multipart (the avatar); a refused one comes back as typed, with a 422.
export default async function bots(app: FastifyInstance, options: { config: Config }) {
  const { config } = options
  await app.register(multipart, { throwFileSizeLimit: true })
  app.addHook('preHandler', async (request, reply) => {
    if (!isAdministrator(request.user!)) return reply.sendError(403)
  })

  app.get('/account/bots', async (request, reply) => {
    const origin = requestOrigin(request)
    const list = app.store.read((m) => {
      const active = m.bots.active()
      const rooms = m.bots.sharedRoomsOf(active.map((bot) => bot.id))
      return active.map((bot) => ({
        bot,
        rooms: (rooms.get(bot.id) ?? []).map((room) => ({ name: room.name ?? '', url: `${origin}/rooms/${room.id}/${botKey(bot)}/messages` })),
      }))
    })
    return reply.view('accounts/bots/index', { title: 'Chat bots', bots: list })
  })

  // The new or edit form, with what was typed and why it was refused.
  function form(reply: FastifyReply, bot: BotRow | null, typed: BotInput = {}, error?: string, status = 200) {
    const webhookUrl = typed.webhookUrl ?? (bot ? app.store.read((m) => m.webhooks.urlFor(bot.id)) : null) ?? ''
    const values = { name: typed.name ?? bot?.name ?? '', webhookUrl }
    return reply.view(bot ? 'accounts/bots/edit' : 'accounts/bots/new', { title: bot ? 'Edit bot' : 'New chat bot', bot, values, error }, status)
  }

  function findBot(request: BotRequest): BotRow | undefined {
    const id = parseId(request.params.id)
    return id === null ? undefined : app.store.read((m) => m.bots.findActive(id))
  }

  app.get('/account/bots/new', async (_request, reply) => form(reply, null))
  app.get('/account/bots/:id/edit', async (request: BotRequest, reply) => {
    const bot = findBot(request)
    return bot ? form(reply, bot) : reply.sendError(404)
  })

  // Create and update: the fields are checked before the avatar is processed, then everything
  // is written in one transaction; a refused form leaves no file behind.
  async function save(request: FastifyRequest, reply: FastifyReply, bot: BotRow | null, submission: BotSubmission) {
    const { file } = submission
    const reading = readBotForm(submission.body, { creating: bot === null })
    if ('malformed' in reading || reading.error) {
      if (file) await removeFiles([file.upload.path])
      if ('malformed' in reading) return reply.sendError(400, reading.malformed)
      return form(reply, bot, reading.input, reading.error, 422)
    }
    const { input } = reading
    let avatar: PreparedAvatar | null = null
    if (file) {
      try {
        avatar = await prepareAvatar(config.filesPath, file.upload, file.filename)
      } catch (refused) {
        if (!(refused instanceof UploadRefused)) throw refused
        return form(reply, bot, input, refused.message, refused.status)
      }
    }
    const name = input.name?.trim()
    // As upstream's update_bot!, an update without a webhook URL removes the webhook.
    const webhookUrl = input.webhookUrl?.trim() || null
    const written = await app.store
      .write((m) => {
        const id = bot ? (updateBot(m, bot.id, { name, webhookUrl }) ? bot.id : null) : createBot(m, { name: name!, webhookUrl })
        return id === null ? null : avatar ? m.avatars.attach(id, avatar.original, avatar.square) : []
      })
      .catch(async (error: unknown) => {
        if (avatar) await removeFiles(avatar.paths)
        throw error
      })
    if (written === null) {
      if (avatar) await removeFiles(avatar.paths)
      return reply.sendError(404)
    }
    await removeBlobFiles(config.filesPath, written)
    return reply.redirect('/account/bots', 302)
  }

  // Reads the form (urlencoded or multipart) and hands it to `then`; a refused upload is
  // shown on the form it came from.
  async function submitted(request: FastifyRequest, reply: FastifyReply, bot: BotRow | null, then: (submission: BotSubmission) => Promise<FastifyReply>) {
    let submission: BotSubmission
    try {
      submission = await readBotSubmission(request, config)
    } catch (refused) {
      if (!(refused instanceof FormRefused)) throw refused
      if (refused.status !== 422) return reply.sendError(refused.status, refused.message)
      const typed = readBotForm(refused.body, { creating: bot === null })
      return form(reply, bot, 'input' in typed ? typed.input : {}, refused.message, 422)
    }
    return then(submission)
  }

  app.post('/account/bots', async (request, reply) => submitted(request, reply, null, (submission) => save(request, reply, null, submission)))

  // Accounts::BotsController#destroy: the bot is deactivated (it leaves its shared rooms, its
  // key stops working) and its sockets, if any, are closed.
  async function destroy(reply: FastifyReply, bot: BotRow) {
    const deactivated = await app.store.write((m) => m.deactivatable.deactivate(bot.id))
    if (!deactivated) return reply.sendError(404)
    app.cable.disconnectUser(bot.id, { reconnect: false })
    return reply.redirect('/account/bots', 302)
  }

  async function change(request: BotRequest, reply: FastifyReply, verb: 'PATCH' | 'DELETE' | 'override') {
    const bot = findBot(request)
    if (!bot) return reply.sendError(404)
    if (verb === 'DELETE') return destroy(reply, bot)
    return submitted(request, reply, bot, async (submission) => {
      const wanted = verb === 'override' ? submission.verb : 'PATCH'
      if (wanted === 'PATCH' || wanted === 'PUT') return save(request, reply, bot, submission)
      if (submission.file) await removeFiles([submission.file.upload.path])
      if (wanted === 'DELETE') return destroy(reply, bot)
      return wanted === null ? reply.sendError(400, BAD_METHOD_OVERRIDE) : reply.sendError(405)
    })
  }

  app.patch('/account/bots/:id', async (request: BotRequest, reply) => change(request, reply, 'PATCH'))
  app.put('/account/bots/:id', async (request: BotRequest, reply) => change(request, reply, 'PATCH'))
  app.delete('/account/bots/:id', async (request: BotRequest, reply) => change(request, reply, 'DELETE'))
  app.post('/account/bots/:id', async (request: BotRequest, reply) => change(request, reply, 'override'))
}
