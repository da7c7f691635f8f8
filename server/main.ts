import cluster from 'node:cluster'
import { superviseWorkers } from './cluster/primary.ts'
import { clusterWorkerId, joinCluster, workerListenText, workerLogger } from './cluster/worker.ts'
import { startLitestream } from './litestream/sidecar.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { UnknownSchemaError } from './models/upstream-eras.ts'

function configOrExit(): Config {
  try {
    return loadConfig()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(`Campfire cannot start: ${error.message}`)
    process.exit(78)
  }
}

// One process serves everything; with WEB_CONCURRENCY > 1 this one supervises that many
// workers (server/cluster/), each of which serves as one process does.
async function serve(config: Config, workerId: number | undefined): Promise<void> {
  // Loaded here, so a cluster's primary never loads the app, sharp or their threads.
  const { buildApp } = await import('./app.ts')
  const { startImageThreads } = await import('./lib/images.ts')
  const app = await buildApp({ config, workerId, logger: workerId === undefined ? undefined : workerLogger(config, workerId) })

  // A cluster's primary has said what is wrong with the config already.
  if (workerId === undefined && config.secretKeyBaseSource === 'generated') app.log.warn('SECRET_KEY_BASE was not set: generated one and kept it in the storage folder')
  if (workerId === undefined && config.vapidProblem) app.log.warn(`Web Push is disabled: ${config.vapidProblem}`)
  if (workerId === undefined && config.emailProblem) app.log.info(`Email is off: ${config.emailProblem}`)
  if (app.video.problem && (workerId ?? 1) === 1) app.log.warn(app.video.problem)
  await startImageThreads()
  if (workerId !== undefined) joinCluster(app)
  // One process replicates its own database; a cluster's primary does it for its workers.
  const litestream = workerId === undefined && config.litestreamReplicaUrl ? startOrExit(() => startLitestream(config.databasePath, config.litestreamReplicaUrl!, app.log)) : null

  let closing = false
  async function shutdown(signal: string) {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down')
    const timer = setTimeout(() => process.exit(1), 10_000)
    timer.unref()
    await app.close()
    await litestream?.stop()
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))

  await app.listen({ port: config.httpPort, host: config.httpBind, ...(workerId === undefined ? {} : { listenTextResolver: workerListenText(workerId) }) })
}

function startOrExit<T>(start: () => T): T {
  try {
    return start()
  } catch (error) {
    console.error(`Campfire cannot start: ${(error as Error).message}`)
    process.exit(78)
  }
}

// A database this server does not know, or an upgrade step that failed, stops the boot with the
// version named, the file left as it was found.
async function boot(config: Config): Promise<void> {
  try {
    if (config.webConcurrency > 1 && cluster.isPrimary) await superviseWorkers(config)
    else await serve(config, clusterWorkerId())
  } catch (error) {
    if (!(error instanceof UnknownSchemaError)) throw error
    console.error(`Campfire cannot start: ${error.message}`)
    process.exit(65)
  }
}

await boot(configOrExit())
