import fp from 'fastify-plugin'
import { Piscina } from 'piscina'
import { projectPath, workerUrl } from '../lib/paths.ts'
import type { Config } from '../config.ts'
import { Store } from '../models/store.ts'
import type { CheckpointTask } from '../workers/checkpointer.ts'

declare module 'fastify' {
  interface FastifyInstance {
    store: Store
  }
}

const MIGRATIONS_DIR = projectPath('migrations')
const TRUNCATE_ABOVE_BYTES = 64 * 1024 * 1024

export interface DatabaseOptions {
  config: Config
  checkpointIntervalMs?: number
}

// Opens the SQLite file (migrating it), resets presence left by the previous process, and
// keeps the WAL bounded with a checkpointer on its own thread.
export default fp(
  async function database(app, options: DatabaseOptions) {
    const path = options.config.databasePath
    const store = new Store({ path, migrationsDir: MIGRATIONS_DIR, synchronous: options.config.synchronous })
    if (store.appliedMigrations.length > 0) app.log.info({ migrations: store.appliedMigrations }, 'migrated the database')
    store.writeNow((models) => models.memberships.disconnectAll())
    app.decorate('store', store)

    const checkpointer = new Piscina({
      filename: workerUrl('checkpointer'),
      minThreads: 1,
      maxThreads: 1,
      idleTimeout: Number.POSITIVE_INFINITY,
    })
    let running = false
    const timer = setInterval(() => {
      if (running) return
      running = true
      checkpointer
        .run({ path, truncateAboveBytes: TRUNCATE_ABOVE_BYTES } satisfies CheckpointTask)
        .catch((error: Error) => app.log.warn({ error: error.message }, 'WAL checkpoint failed'))
        .finally(() => (running = false))
    }, options.checkpointIntervalMs ?? 1000)
    timer.unref()

    app.addHook('onClose', async () => {
      clearInterval(timer)
      store.writer.drain()
      await checkpointer.run({ path, truncateAboveBytes: TRUNCATE_ABOVE_BYTES, close: true } satisfies CheckpointTask).catch(() => undefined)
      await checkpointer.destroy()
      store.close()
    })
  },
  { name: 'database' },
)
