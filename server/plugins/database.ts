import fp from 'fastify-plugin'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { projectPath, workerSource } from '../lib/paths.ts'
import type { Config } from '../config.ts'
import { workerConnectionsFor } from '../models/membership/worker-connections.ts'
import { Store } from '../models/store.ts'
import { shareDatabase } from '../lib/database-lock.ts'
import { Throttled } from '../lib/disk-space.ts'
import type { CheckpointResult, CheckpointTask } from '../workers/checkpointer.ts'
import { LazyPool } from '../lib/lazy-pool.ts'

declare module 'fastify' {
  interface FastifyInstance {
    store: Store
    // This process's WAL checkpointer: null in a cluster's worker (its primary runs it) or under Litestream.
    checkpointer: Checkpointer | null
  }
}

const MIGRATIONS_DIR = projectPath('migrations')
const TRUNCATE_ABOVE_BYTES = 64 * 1024 * 1024

export interface DatabaseOptions {
  config: Config
  checkpointIntervalMs?: number
  // A cluster's worker (server/cluster/): its primary booted the file and checkpoints the WAL.
  bootedByPrimary?: boolean
  // Compiled workers for the checkpointer's thread (tests: workerSource).
  compiledWorkers?: string
}

export interface BootLog {
  info(details: object, message: string): void
  warn(details: object, message: string): void
}

// Opens the SQLite file. The process that boots it (the only one, or a cluster's primary)
// migrates it and resets presence left by the previous run; a cluster's workers only open it,
// since the others' connections are live.
// Each process holds its share of the file's lock (lib/database-lock.ts) from before it opens
// the file until it closes it, so restore and finish-restore refuse while it is open.
export function openStore(config: Config, log: BootLog, boot = true): Store {
  mkdirSync(dirname(config.databasePath), { recursive: true })
  const lock = shareDatabase(config.databasePath)
  let store: Store
  try {
    store = new Store({ path: config.databasePath, migrationsDir: MIGRATIONS_DIR, synchronous: config.synchronous, migrate: boot, onClose: () => lock.release() })
  } catch (error) {
    lock.release()
    throw error
  }
  if (store.appliedMigrations.length > 0) log.info({ migrations: store.appliedMigrations }, 'migrated the database')
  if (boot)
    store.writeNow((models) => {
      models.memberships.disconnectAll()
      workerConnectionsFor(models.db).forgetAll()
    })
  return store
}

export interface CheckpointStats {
  // Checkpoints run, those that truncated the WAL, those that failed.
  runs: number
  truncated: number
  failed: number
}

export interface Checkpointer {
  readonly stats: Readonly<CheckpointStats>
  // Stops checkpointing and lets go of the file (after the last write).
  close(): Promise<void>
}

// Keeps the WAL bounded from its own thread, one per database file in use. While the disk is
// below its reserve (minFreeBytes) every checkpoint truncates the WAL; a failed checkpoint (a
// full disk) is warned about once a minute, and the next one truncates.
export function startCheckpointer(path: string, log: BootLog, intervalMs = 1000, minFreeBytes = 0, compiledWorkers?: string): Checkpointer {
  const checkpointer = new LazyPool({
    ...workerSource('checkpointer', compiledWorkers),
    // Its thread starts with the first checkpoint, a second after boot, not before the server
    // can listen; once started it stays.
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: Number.POSITIVE_INFINITY,
  })
  let running = false
  const failures = new Throttled()
  const stats: CheckpointStats = { runs: 0, truncated: 0, failed: 0 }
  const timer = setInterval(() => {
    if (running) return
    running = true
    checkpointer
      .run<CheckpointResult>({ path, truncateAboveBytes: TRUNCATE_ABOVE_BYTES, truncateBelowFreeBytes: minFreeBytes } satisfies CheckpointTask)
      .then((result: CheckpointResult) => {
        stats.runs++
        if (result.mode === 'TRUNCATE') stats.truncated++
        if (result.recovered) log.info({ walBytes: result.walBytes }, 'WAL checkpoint succeeded again and truncated the WAL')
      })
      .catch((error: Error) => {
        stats.failed++
        const held = failures.next()
        if (held !== null) log.warn({ error: error.message, failuresSinceLastWarning: held }, 'WAL checkpoint failed')
      })
      .finally(() => (running = false))
  }, intervalMs)
  timer.unref()
  return {
    stats,
    async close() {
      clearInterval(timer)
      await checkpointer.run({ path, truncateAboveBytes: TRUNCATE_ABOVE_BYTES, close: true } satisfies CheckpointTask).catch(() => undefined)
      await checkpointer.destroy()
    },
  }
}

// Opens the SQLite file (migrating it), resets presence left by the previous process, and
// keeps the WAL bounded with a checkpointer on its own thread.
export default fp(
  async function database(app, options: DatabaseOptions) {
    const boot = !options.bootedByPrimary
    const store = openStore(options.config, app.log, boot)
    app.decorate('store', store)
    // Litestream checkpoints when it runs (it must copy the WAL before a checkpoint resets it).
    const checkpointer = boot && !options.config.litestreamReplicaUrl ? startCheckpointer(options.config.databasePath, app.log, options.checkpointIntervalMs, options.config.minFreeBytes, options.compiledWorkers) : null
    app.decorate('checkpointer', checkpointer)

    app.addHook('onClose', async () => {
      store.writer.drain()
      await checkpointer?.close()
      store.close()
    })
  },
  { name: 'database' },
)
