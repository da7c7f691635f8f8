import cluster, { type Worker } from 'node:cluster'
import type { AddressInfo } from 'node:net'
import { networkInterfaces } from 'node:os'
import { keepGeneratedSecret, type Config } from '../config.ts'
import { workerConnectionsFor } from '../models/membership/worker-connections.ts'
import type { Store } from '../models/store.ts'
import { openStore, startCheckpointer, type Checkpointer } from '../plugins/database.ts'
import type { ClusterMetrics } from './metrics.ts'
import { Handoffs } from './handoffs.ts'
import { startLitestream, type Litestream } from '../litestream/sidecar.ts'
import { startBackupSchedule } from '../backups/schedule.ts'
import { primaryLog, type PrimaryLog } from './log.ts'
import { WORKER_ID_ENV } from './worker.ts'
import { STOP_LIMIT_MS } from '../stopping.ts'

const FIRST_RESTART_MS = 0
const LONGEST_RESTART_MS = 10_000
// A worker that listened for this long died of something new: its next restart is immediate
// again. One that dies sooner (at boot, or soon after) is restarted after a doubling delay.
const STEADY_AFTER_MS = 3_000
// Node fires a worker's `disconnect` after its `exit`, or never (handoffs.ts): what waits for
// both waits for `disconnect` this long at most.
const DISCONNECT_GRACE_MS = 1_000
// Workers get this long to shut down cleanly (their own limit is STOP_LIMIT_MS), then are
// killed; past STOP_EXIT_MS this process exits too, so a stop ends within 5 s.
const STOP_WAIT_MS = STOP_LIMIT_MS + 500
const STOP_EXIT_MS = 4_800

// WEB_CONCURRENCY > 1: this process does the boot work once (the secret is settled by the
// config, the file migrated, presence reset), forks the workers that serve HTTP and /cable on
// the shared port, restarts any that dies, and releases the presence a dead worker held. It
// also runs the one WAL checkpointer and the scheduled backups: it outlives every worker, so
// checkpoints never stop with one, and it closes the file last, after the workers.
export async function superviseWorkers(config: Config): Promise<void> {
  const log = primaryLog(config.logLevel, config.logFormat)
  if (config.vapidProblem) log.warn({}, `Web Push is disabled: ${config.vapidProblem}`)
  if (config.emailProblem) log.info({}, `Email is off: ${config.emailProblem}`)
  const store = openStore(config, log)
  // The database is open and upgraded: a generated secret is kept before the workers read it.
  keepGeneratedSecret(config)
  if (config.secretKeyBaseSource === 'generated') log.warn({}, 'SECRET_KEY_BASE was not set: generated one and kept it in the storage folder')
  // With Litestream, it checkpoints instead (it must copy the WAL before a checkpoint resets it).
  const litestream = config.litestreamReplicaUrl ? startLitestreamOrExit(config.databasePath, config.litestreamReplicaUrl, log, config.metrics !== null) : null
  const checkpointer = litestream ? null : startCheckpointer(config.databasePath, log, 1000, config.minFreeBytes)
  // The scheduled backups run here, once for the whole cluster.
  const backups = config.backups ? startBackupSchedule(config.backups, config, log) : null
  // Prometheus metrics for the whole server (cluster/metrics.ts), loaded only when asked for.
  const metrics = config.metrics ? await startMetricsOrExit(config, store, checkpointer, litestream, log) : null

  let stopping = false
  const supervisor = new Supervisor(config, store, log, (reason) => void stop(reason, 1))
  async function stop(reason: string, code: number) {
    if (stopping) return
    stopping = true
    log.info({ reason }, 'shutting down')
    setTimeout(() => process.exit(1), STOP_EXIT_MS).unref()
    await backups?.stop()
    await supervisor.stop()
    await metrics?.close()
    store.writer.drain()
    await checkpointer?.close()
    store.close()
    await litestream?.stop()
    process.exit(code)
  }
  process.on('SIGINT', () => void stop('SIGINT', 0))
  process.on('SIGTERM', () => void stop('SIGTERM', 0))
  supervisor.start()
}

function startLitestreamOrExit(databasePath: string, replicaUrl: string, log: PrimaryLog, metrics: boolean): Litestream {
  try {
    return startLitestream(databasePath, replicaUrl, log, process.env, { metrics })
  } catch (error) {
    log.error({}, `Campfire cannot start: ${(error as Error).message}`)
    process.exit(78)
  }
}

async function startMetricsOrExit(config: Config, store: Store, checkpointer: Checkpointer | null, litestream: Litestream | null, log: PrimaryLog): Promise<ClusterMetrics> {
  const { startClusterMetrics } = await import('./metrics.ts')
  try {
    return await startClusterMetrics(config, store, checkpointer, litestream, log)
  } catch (error) {
    log.error({}, `Campfire cannot start: ${(error as Error).message}`)
    process.exit(78)
  }
}

interface Slot {
  readonly id: number
  worker: Worker | null
  // Resolves when the worker has exited; `gone` once Node has also disconnected it (or a second later).
  exited: Promise<void>
  gone: Promise<void>
  startedAt: number
  listeningAt: number
  restartMs: number
  restart: NodeJS.Timeout | null
}

class Supervisor {
  private readonly slots: Slot[]
  private readonly listened = new Set<number>()
  private ready = false
  private stopping = false

  constructor(
    private readonly config: Config,
    private readonly store: Store,
    private readonly log: PrimaryLog,
    private readonly fail: (reason: string) => void,
  ) {
    this.slots = Array.from({ length: config.webConcurrency }, (_, i) => ({
      id: i + 1,
      worker: null,
      exited: Promise.resolve(),
      gone: Promise.resolve(),
      startedAt: 0,
      listeningAt: 0,
      restartMs: 0,
      restart: null,
    }))
  }

  start(): void {
    for (const slot of this.slots) this.fork(slot)
  }

  // Asks every worker to shut down as one process does (sockets told server_restart, writes
  // drained), and kills those still running after STOP_WAIT_MS.
  async stop(): Promise<void> {
    this.stopping = true
    for (const slot of this.slots) if (slot.restart) clearTimeout(slot.restart)
    const live = this.slots.filter((slot) => slot.worker !== null)
    for (const slot of live) slot.worker!.process.kill('SIGTERM')
    // Their exit is enough here: this process closes the file next and leaves.
    const allGone = Promise.all(live.map((slot) => slot.exited))
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_WAIT_MS)))
    if ((await Promise.race([allGone, late])) === 'late') {
      for (const slot of live) slot.worker?.process.kill('SIGKILL')
      await allGone
    }
    clearTimeout(timer)
  }

  private fork(slot: Slot): void {
    slot.restart = null
    // The workers sign with the secret this process settled, never one of their own.
    const worker = cluster.fork({ [WORKER_ID_ENV]: String(slot.id), SECRET_KEY_BASE: this.config.secretKeyBase })
    const handoffs = new Handoffs(worker)
    slot.worker = worker
    slot.startedAt = Date.now()
    slot.listeningAt = 0
    worker.once('listening', (address: AddressInfo) => this.listening(slot, worker, address))
    // A worker is replaced as soon as it has exited: its `disconnect` may never come.
    const disconnected = new Promise<void>((resolve) => worker.once('disconnect', () => resolve()))
    slot.exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
    slot.gone = new Promise<void>((resolve) =>
      worker.once('exit', (code: number | null, signal: string | null) => {
        this.died(slot, worker, code, signal, handoffs.closeUnacknowledged())
        const grace = new Promise<void>((done) => setTimeout(done, DISCONNECT_GRACE_MS).unref())
        void Promise.race([disconnected, grace]).then(resolve)
      }),
    )
  }

  private listening(slot: Slot, worker: Worker, address: AddressInfo): void {
    slot.listeningAt = Date.now()
    if (this.ready) {
      this.log.info({ worker: slot.id, workerPid: worker.process.pid, bootMs: slot.listeningAt - slot.startedAt }, `worker ${slot.id} restarted`)
      return this.rebalance(slot)
    }
    this.listened.add(slot.id)
    if (this.listened.size < this.slots.length) return
    this.ready = true
    for (const url of listeningUrls(address)) this.log.info({ workers: this.slots.length }, `Server listening at ${url}`)
  }

  // The keep-alive clients all moved to the workers that stayed up: they let some go (rebalance.ts).
  private rebalance(restarted: Slot): void {
    for (const slot of this.slots) {
      if (slot === restarted || !slot.worker?.isConnected()) continue
      slot.worker.send({ campfire: 'rebalance', workers: this.slots.length })
    }
  }

  private died(slot: Slot, worker: Worker, code: number | null, signal: string | null, unanswered: number): void {
    if (slot.worker === worker) slot.worker = null
    this.release(slot, worker)
    const details = { worker: slot.id, workerPid: worker.process.pid, code, signal, closedConnections: unanswered }
    if (this.stopping) return this.log.info(details, `worker ${slot.id} stopped`)
    if (!this.ready) {
      this.log.error(details, `worker ${slot.id} died before every worker was listening`)
      return this.fail(`worker ${slot.id} died at boot`)
    }
    const steady = slot.listeningAt > 0 && Date.now() - slot.listeningAt >= STEADY_AFTER_MS
    slot.restartMs = steady ? FIRST_RESTART_MS : Math.min(slot.restartMs * 2 || 100, LONGEST_RESTART_MS)
    this.log.error({ ...details, restartInMs: slot.restartMs }, `worker ${slot.id} died (${signal ?? `exit code ${code}`}); restarting it`)
    slot.restart = setTimeout(() => this.fork(slot), slot.restartMs)
  }

  // The dead worker's tabs are gone: each membership loses the connections it held, as kept
  // beside the counts in the worker's own transactions under its process id, so its successor's
  // shares are never taken with them, however late this commits.
  private release(slot: Slot, worker: Worker): void {
    const pid = worker.process.pid
    if (pid === undefined) return
    this.store
      .write((m) => workerConnectionsFor(m.db).release(pid))
      .then((memberships) => {
        if (memberships > 0) this.log.info({ worker: slot.id, memberships }, `released the presence worker ${slot.id} held`)
      })
      .catch((error: Error) => this.log.error({ worker: slot.id, error: error.message }, 'could not release a dead worker’s presence'))
  }
}

// The addresses Fastify names for one process listening on the same address.
function listeningUrls(address: AddressInfo): string[] {
  if (address.address.includes(':')) return [`http://[${address.address}]:${address.port}`]
  const hosts =
    address.address === '0.0.0.0'
      ? Object.values(networkInterfaces())
          .flatMap((list) => list ?? [])
          .filter((entry) => entry.family === 'IPv4')
          .sort((a, b) => Number(b.internal) - Number(a.internal))
          .map((entry) => entry.address)
      : [address.address]
  return hosts.map((host) => `http://${host}:${address.port}`)
}
