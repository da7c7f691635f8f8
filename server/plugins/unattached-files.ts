import { setImmediate as nextTurn } from 'node:timers/promises'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { removeBlobFiles } from '../lib/files.ts'
import { strayFiles } from '../lib/stored-files.ts'

// How many blobs one write purges (each with its variants and preview).
export const PURGE_BATCH = 50

export interface UnattachedFiles {
  // Purges every blob nothing is attached to any more (a deleted room's attachments, their
  // variants and previews), rows a batch per write and then their files; resolves with how many.
  purge(): Promise<number>
  settled(): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    unattachedFiles: UnattachedFiles
  }
}

// Deleting a room detaches its files in the room's own transaction; their blobs and files go
// here afterwards, in the background, as a banned person's messages do (banned-content.ts).
// Every batch commits before its files are deleted, so a crash leaves blobs still unattached,
// and the next boot resumes. At boot the files folder is also walked once, in the background,
// and one line reports files no blob names (`npm run doctor -- --fix` removes them).
export default fp(
  async function unattachedFiles(app, options: { config: Config; batchSize?: number; scanAtBoot?: boolean }) {
    const batchSize = options.batchSize ?? PURGE_BATCH
    let running: Promise<number> | null = null
    let again = false
    let closing = false

    async function run(): Promise<number> {
      let purged = 0
      try {
        do {
          again = false
          while (!closing) {
            const batch = await app.store.write((m) => m.blobs.purgeUnattached(batchSize))
            await removeBlobFiles(options.config.filesPath, batch.keys).catch(() => undefined)
            purged += batch.purged
            if (batch.done) break
            await nextTurn()
          }
        } while (again && !closing)
      } catch (err) {
        app.log.warn({ err, purged }, 'purging unattached files stopped; the next boot resumes it')
      }
      if (purged > 0) app.log.info({ purged }, 'purged unattached files')
      return purged
    }

    const unattachedFiles: UnattachedFiles = {
      purge() {
        if (running) {
          again = true
          return running
        }
        running = run().finally(() => (running = null))
        return running
      },
      async settled() {
        while (running) await running
      },
    }
    app.decorate('unattachedFiles', unattachedFiles)

    app.addHook('onReady', async () => {
      const pending = app.store.read((m) => m.blobs.countUnattached())
      if (pending > 0) void unattachedFiles.purge()
      if (options.scanAtBoot === false) return
      void (async () => {
        let strays = 0
        let bytes = 0
        for await (const file of strayFiles(options.config.filesPath, (key) => app.store.read((m) => m.blobs.keyExists(key)))) {
          strays++
          bytes += file.size
          if (closing) return
        }
        if (pending > 0 || strays > 0) app.log.warn({ unattachedBlobs: pending, strayFiles: strays, strayBytes: bytes }, 'orphaned files found at boot: unattached blobs are being purged; run `npm run doctor -- --fix` for the stray files')
      })().catch((err: Error) => app.log.warn({ err }, 'could not look for orphaned files'))
    })

    app.addHook('onClose', async () => {
      closing = true
      await unattachedFiles.settled()
    })
  },
  { name: 'unattached-files', dependencies: ['database'] },
)
