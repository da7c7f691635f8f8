import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate as nextTurn } from 'node:timers/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../../config.ts'
import { removeBlobFiles } from '../../lib/files.ts'
import { isAdministrator, type UserRow } from '../../models/user.ts'
import { beginErasure, eraseMessages, finishErasure, optimizeSearchIndex, type ErasedMessages } from '../../models/user/erasure.ts'
import { denyBots } from '../deny-bots.ts'
import { parseId } from '../rooms/room-scope.ts'

type ErasureRequest = FastifyRequest<{ Params: { user_id: string }; Body: { messages?: unknown } | undefined }>

export const SELF_ERASURE_REFUSED = 'You can’t erase yourself.'
export const FORMER_MEMBER_REFUSED = '“A former member” holds the messages kept from erased people; it can’t be erased.'
const MODES: readonly ErasedMessages[] = ['delete', 'keep']

// An administrator erases a person (upstream has no erasure): signed out at once, then their
// messages deleted or kept as "A former member"'s (a batch per write, so nobody waits behind a
// busy writer), then everything else of theirs and their row. The answer leaves once it is all
// committed and their files are gone.
export default async function erasures(app: FastifyInstance, options: { config: Config }) {
  app.addHook('preHandler', denyBots)

  function target(request: ErasureRequest, reply: FastifyReply): UserRow | null {
    const refuse = (status: number, message?: string) => (reply.sendError(status, message), null)
    if (!isAdministrator(request.user!)) return refuse(403)
    const id = parseId(request.params.user_id)
    const user = id === null ? undefined : app.store.read((m) => m.users.find(id))
    if (!user) return refuse(404)
    if (user.id === request.user!.id) return refuse(403, SELF_ERASURE_REFUSED)
    // Their messages are where erased people's kept messages go.
    if (app.store.read((m) => m.erasable.isFormerMember(user.id))) return refuse(403, FORMER_MEMBER_REFUSED)
    return user
  }

  app.post('/users/:user_id/erasure', async (request: ErasureRequest, reply) => {
    const user = target(request, reply)
    if (!user) return reply
    const mode = request.body?.messages
    if (typeof mode !== 'string' || !MODES.includes(mode as ErasedMessages)) {
      return reply.sendError(400, 'Choose whether their messages are deleted or kept as a former member’s.')
    }
    await app.store.write((m) => beginErasure(m, user.id))
    app.cable.disconnectUser(user.id, { reconnect: false })
    let messages = 0
    for (;;) {
      const batch = await app.store.write((m) => eraseMessages(m, user.id, mode as ErasedMessages))
      for (const message of batch.removed) {
        const room = app.store.read((m) => m.rooms.find(message.room_id))
        if (room) app.cable.messageRemoved(room, message)
      }
      await removeBlobFiles(options.config.filesPath, batch.keys)
      messages += batch.removed.length
      if (batch.done) break
      await nextTurn()
    }
    const namesThem = (sgid: string) => {
      const found = app.signing.verifySignedGlobalId(sgid)
      return found?.model === 'User' && found.id === String(user.id)
    }
    const keys = await app.store.write((m) => finishErasure(m, user.id, namesThem))
    await removeBlobFiles(options.config.filesPath, keys ?? [])
    app.store.writer.truncateWalAfterNextBatch()
    await app.store.write((m) => optimizeSearchIndex(m))
    await removeExports(options.config.storagePath, user.id)
    request.log.info({ userId: user.id, messages: mode, deleted: messages }, 'erased a person')
    return reply.flash({ notice: `${user.name} was erased.` }).redirect('/account/edit', 302)
  })
}

// Exports already prepared may hold their words: the account's and their own go.
async function removeExports(storagePath: string, userId: number): Promise<void> {
  const folder = join(storagePath, 'exports')
  await Promise.all(['account.zip', 'account.json', `person-${userId}.zip`, `person-${userId}.json`].map((name) => rm(join(folder, name), { force: true })))
}
