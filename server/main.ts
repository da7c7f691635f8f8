import cluster from 'node:cluster'
import { superviseWorkers } from './cluster/primary.ts'
import { clusterWorkerId, joinCluster, workerListenText, workerLogger } from './cluster/worker.ts'
import { startLitestream, type Litestream } from './litestream/sidecar.ts'
import { startBackupSchedule } from './backups/schedule.ts'
import { ConfigError, keepGeneratedSecret, loadConfig, type Config } from './config.ts'
import { DatabaseInUse } from './lib/database-lock.ts'
import { checkListening, ListenProblem, listenProblem } from './listen-check.ts'
import { UnknownSchemaError } from './models/upstream-eras.ts'
import { checkStorage, StorageProblem } from './storage-folder.ts'
import { closePromptly, exitIfStillStopping } from './stopping.ts'
import { codeCacheReport, settled } from './lib/code-cache.ts'

function configOrExit(): Config {
  try {
    return loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    cannotStart(error.message)
  }
}

function cannotStart(message: string, code = 78): never {
  console.error(`Campfire cannot start: ${message}`)
  process.exit(code)
}

// How long after listening the server starts what the first requests need not wait for (serve).
const SETTLE_AFTER_LISTENING_MS = 1_000

// One process serves everything; with WEB_CONCURRENCY > 1 this one supervises that many
// workers (server/cluster/), each of which serves as one process does.
async function serve(config: Config, workerId: number | undefined): Promise<void> {
  // Loaded here, so a cluster's primary never loads the app, sharp or their threads.
  const { buildApp } = await import('./app.ts')
  const { startImageThreads } = await import('./lib/images.ts')
  const { warmTimeFormats } = await import('./rendering/helpers/time.ts')
  let litestream: Litestream | null = null
  const app = await buildApp({ config, workerId, logger: workerId === undefined ? undefined : workerLogger(config, workerId), litestream: () => litestream })
  // The database is open and upgraded: a generated secret is kept from now on.
  if (workerId === undefined) keepGeneratedSecret(config)

  // A cluster's primary has said what is wrong with the config already.
  if (workerId === undefined && config.secretKeyBaseSource === 'generated') app.log.warn('SECRET_KEY_BASE was not set: generated one and kept it in the storage folder')
  if (workerId === undefined && config.vapidProblem) app.log.warn(`Web Push is disabled: ${config.vapidProblem}`)
  if (workerId === undefined && config.emailProblem) app.log.info(`Email is off: ${config.emailProblem}`)
  if (workerId !== undefined) joinCluster(app)
  // One process replicates its own database; a cluster's primary does it for its workers.
  // With metrics on, Litestream serves its own on loopback, for ours to read its lag from.
  if (workerId === undefined && config.litestreamReplicaUrl) litestream = startOrExit(() => startLitestream(config.databasePath, config.litestreamReplicaUrl!, app.log, process.env, { metrics: config.metrics !== null }))
  // Likewise the scheduled backups (BACKUP_SCHEDULE).
  const backups = workerId === undefined && config.backups ? startBackupSchedule(config.backups, config, app.log) : null

  let closing = false
  let afterListening: NodeJS.Timeout | undefined
  async function shutdown(signal: string) {
    if (closing) return
    closing = true
    clearTimeout(afterListening)
    app.log.info({ signal }, 'shutting down')
    exitIfStillStopping(app)
    await backups?.stop()
    await closePromptly(app)
    await litestream?.stop()
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))

  try {
    await app.listen({ port: config.httpPort, host: config.httpBind, ...(workerId === undefined ? {} : { listenTextResolver: workerListenText(workerId) }) })
  } catch (error) {
    throw listenProblem(error as NodeJS.ErrnoException, config.httpPort, config.httpBind)
  }
  // What need not hold up the first requests waits until the server has listened a moment: the
  // ffmpeg check starts two programs, the image threads load sharp, and ICU's data (the date
  // formats and the sidebar's collation) takes 20-50 ms to load, time the first requests after a
  // start (a replaced worker's, or /up's) would otherwise queue behind; a page in that second
  // loads ICU itself. A failure of the first two is logged in one line; neither stops the server.
  afterListening = setTimeout(() => {
    warmTimeFormats()
    void app.video.problem.then((problem) => {
      if (problem && (workerId ?? 1) === 1) app.log.warn(problem)
    })
    startImageThreads().catch((error: Error) => app.log.error(`image threads could not start: ${error.message}`))
    // The compiled server keeps the code this start compiled, for the next (lib/code-cache.ts).
    settled()
    const cache = codeCacheReport()
    if (cache) app.log.debug(`code cache: ${cache.state}${cache.written ? ` (${(cache.written.bytes / 1e6).toFixed(1)} MB in ${Math.round(cache.written.ms)} ms)` : ''}`)
  }, SETTLE_AFTER_LISTENING_MS)
  afterListening.unref()
}

function startOrExit<T>(start: () => T): T {
  try {
    return start()
  } catch (error) {
    cannotStart((error as Error).message)
  }
}

// What is wrong with the settings, the storage folder or the address is one line and exit 78
// (EX_CONFIG), checked before anything is written. A database this server does not know, or an
// upgrade step that failed, stops the boot with the version named, the file left as it was
// found (exit 65).
async function boot(config: Config): Promise<void> {
  const workerId = clusterWorkerId()
  try {
    if (workerId === undefined) {
      checkStorage(config)
      await checkListening(config.httpPort, config.httpBind)
    }
    if (config.webConcurrency > 1 && cluster.isPrimary) await superviseWorkers(config)
    else await serve(config, workerId)
  } catch (error) {
    if (error instanceof UnknownSchemaError) cannotStart(error.message, 65)
    if (error instanceof ConfigError || error instanceof StorageProblem || error instanceof ListenProblem || error instanceof DatabaseInUse) cannotStart(error.message)
    throw error
  }
}

// Without a top-level await: the compiled server is one CommonJS file (lib/code-cache.ts).
// `npm start -- --help` (and `npm run dev -- --help`): what the server reads, nothing started.
if (process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) {
  void import('./server-help.ts').then(({ printServerHelp }) => {
    printServerHelp()
    process.exit(0)
  })
} else {
  void boot(configOrExit())
}
