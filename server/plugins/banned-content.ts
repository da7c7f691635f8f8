import { rm } from 'node:fs/promises'
import { setImmediate as nextTurn } from 'node:timers/promises'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { blobPath } from '../lib/files.ts'
import { removeBannedMessages, REMOVAL_BATCH } from '../models/user/banning.ts'

export interface BannedContent {
  // Removes a banned person's messages, after any removal for them already under way, and
  // resolves with how many this run removed, once nothing is left or the person was unbanned.
  remove(userId: number): Promise<number>
  // Resolves when every removal under way has finished.
  settled(): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    bannedContent: BannedContent
  }
}

// Upstream's RemoveBannedContentJob, in process. The ban itself (status, address bans,
// sessions) commits first; the messages then go a batch per write, with a turn of the event
// loop between batches, so a person with 10,000 messages never holds up anyone's request.
// Every batch is its own commit, so a crash leaves a banned person with fewer messages, and
// the next boot resumes removal for every banned person who still has some.
export default fp(
  async function bannedContent(app, options: { config: Config; batchSize?: number }) {
    const batchSize = options.batchSize ?? REMOVAL_BATCH
    const running = new Map<number, Promise<number>>()
    let closing = false

    async function removeFiles(keys: string[]): Promise<void> {
      await Promise.all(
        keys.map((key) => {
          const path = blobPath(options.config.filesPath, key)
          return path ? rm(path, { force: true }).catch((err: Error) => app.log.warn({ err, key }, 'could not delete a banned person’s file')) : undefined
        }),
      )
    }

    async function run(userId: number): Promise<number> {
      let removed = 0
      try {
        while (!closing) {
          const batch = await app.store.write((m) => removeBannedMessages(m, userId, batchSize))
          for (const { room, message } of batch.removed) if (room) app.cable.messageRemoved(room, message)
          await removeFiles(batch.keys)
          removed += batch.removed.length
          if (batch.done) break
          await nextTurn()
        }
      } catch (err) {
        app.log.error({ err, userId, removed }, 'removing a banned person’s messages stopped; the next boot resumes it')
      }
      app.log.info({ userId, removed }, 'removed a banned person’s messages')
      return removed
    }

    const bannedContent: BannedContent = {
      // Runs for one person queue behind each other: a ban arriving while a run is deciding
      // it is done (after an unban, say) still gets a run of its own.
      remove(userId) {
        const removal = (running.get(userId) ?? Promise.resolve(0)).then(() => run(userId))
        running.set(userId, removal)
        void removal.finally(() => {
          if (running.get(userId) === removal) running.delete(userId)
        })
        return removal
      },
      async settled() {
        while (running.size > 0) await Promise.all(running.values())
      },
    }
    app.decorate('bannedContent', bannedContent)

    app.addHook('onReady', async () => {
      const pending = app.store.read((m) => m.bannable.bannedWithMessages())
      if (pending.length > 0) app.log.info({ users: pending }, 'resuming the removal of banned people’s messages')
      for (const userId of pending) void bannedContent.remove(userId)
    })

    // A batch in flight commits before the writer closes; the rest waits for the next boot.
    app.addHook('onClose', async () => {
      closing = true
      await bannedContent.settled()
    })
  },
  { name: 'banned-content', dependencies: ['database', 'cable'] },
)
