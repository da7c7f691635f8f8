import cluster from 'node:cluster'
import { hostname } from 'node:os'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { presenceWrites } from '../cable/channels/presence-writes.ts'
import type { Config } from '../config.ts'
import { logStream } from '../lib/log-format.ts'

// The primary numbers its workers 1..N; a restarted worker keeps its number.
export const WORKER_ID_ENV = 'CAMPFIRE_WORKER_ID'

// This process's worker number when it is one of a cluster's workers.
export function clusterWorkerId(): number | undefined {
  if (!cluster.isWorker) return undefined
  const id = Number(process.env[WORKER_ID_ENV])
  return Number.isInteger(id) && id > 0 ? id : undefined
}

// Every log line of a worker names it.
export function workerLogger(config: Config, workerId: number): FastifyServerOptions['logger'] {
  return { level: config.logLevel, stream: logStream(config.logFormat), base: { pid: process.pid, hostname: hostname(), worker: workerId } }
}

// The primary prints the one "Server listening at" line once every worker listens.
export function workerListenText(workerId: number): (address: string) => string {
  return (address) => `worker ${workerId} listening at ${address}`
}

// Wires a worker's app to its primary: the presence it writes is kept as its own share, under
// its process id (its primary releases it if it dies), and when the primary is gone (the IPC
// channel closes, and Node exits the worker at once) what is queued is written.
export function joinCluster(app: FastifyInstance): void {
  presenceWrites(app.store).worker = process.pid
  cluster.worker!.on('disconnect', () => {
    app.log.warn('the primary is gone: exiting')
    app.store.writer.drain()
  })
}
