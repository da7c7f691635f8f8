import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { findProgram } from '../build/debian-package.ts'
import { freeLoopbackPort } from '../lib/free-port.ts'
import { litestreamBinary, litestreamConfig, redacted } from './binary.ts'
import type { LitestreamReadout } from './lag.ts'

const FIRST_RESTART_MS = 100
const LONGEST_RESTART_MS = 5_000
const STOP_WAIT_MS = 10_000
// Its lines saying it wrote to the replica.
const SHIPPED = /\bmsg="?(?:wal segment|snapshot) written/

export interface SidecarLog {
  debug(details: object, message: string): void
  info(details: object, message: string): void
  warn(details: object, message: string): void
  error(details: object, message: string): void
}

// Litestream's lines (`time=… level=ERROR msg=…`) are logged at their own level, so a replica
// that fails shows at error and LOG_LEVEL=warn still shows it; a line without one is info.
export function litestreamLevel(line: string): keyof SidecarLog {
  const level = /(?:^|\s)level=([A-Za-z]+)/.exec(line)?.[1]?.toUpperCase()
  if (level === 'ERROR' || level === 'FATAL' || level === 'PANIC') return 'error'
  if (level === 'WARN' || level === 'WARNING') return 'warn'
  if (level === 'DEBUG' || level === 'TRACE') return 'debug'
  return 'info'
}

export interface Litestream extends LitestreamReadout {
  readonly pid: number | null
  // Asks it to stop (SIGTERM: it ships what it has not yet shipped, then exits) and waits for it,
  // at most 10 s; then removes its configuration.
  stop(): Promise<void>
}

// LITESTREAM_REPLICA_URL: `litestream replicate` beside the server, as the container runs
// redis-server beside a cluster (server/cluster/local-redis.ts). The process that boots the
// database starts it once the database is open and migrated: one process, or a cluster's
// primary. It dies with this process even when this one is killed (setpriv --pdeathsig), and one
// that dies on its own is started again; Litestream then carries on from the replica's position,
// or starts a new generation (a fresh snapshot) when it cannot. While it runs, our own WAL
// checkpointer stands aside: Litestream checkpoints, after it has copied the WAL. With
// `metrics`, each run serves Litestream's own metrics on a loopback port free when it starts
// (`metricsUrl`), which the server's metrics read (server/plugins/metrics/litestream.ts).
export function startLitestream(databasePath: string, replicaUrl: string, log: SidecarLog, env: Record<string, string | undefined> = process.env, options: { metrics?: boolean } = {}): Litestream {
  const binary = findProgram(litestreamBinary(env))
  if (!binary) throw new Error(`LITESTREAM_REPLICA_URL is set, but ${litestreamBinary(env)} is not an executable Litestream`)
  const folder = mkdtempSync(join(tmpdir(), 'campfire-litestream-'))
  const configPath = join(folder, 'litestream.yml')
  const args = ['replicate', '-config', configPath, '-no-expand-env']
  const setpriv = findProgram('setpriv')
  const command = setpriv ? [setpriv, '--pdeathsig', 'KILL', '--', binary, ...args] : [binary, ...args]

  let child: ChildProcess | null = null
  let stopping = false
  let restartMs = FIRST_RESTART_MS
  let restartTimer: NodeJS.Timeout | null = null
  let metricsUrl: string | null = null
  let shippedAt = Date.now()
  const run = async () => {
    restartTimer = null
    const port = options.metrics ? await freeLoopbackPort().catch(() => null) : null
    if (stopping) return
    writeFileSync(configPath, litestreamConfig(databasePath, replicaUrl, port === null ? null : `127.0.0.1:${port}`), { mode: 0o600 })
    const startedAt = Date.now()
    const started = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] })
    child = started
    shippedAt = startedAt
    metricsUrl = port === null ? null : `http://127.0.0.1:${port}/metrics`
    log.info({ litestream: started.pid, replica: redacted(replicaUrl), ...(port === null ? {} : { metrics: metricsUrl }) }, 'litestream started')
    // Whole lines, however the pipe cuts its chunks.
    for (const stream of [started.stdout!, started.stderr!]) {
      createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
        if (SHIPPED.test(line)) shippedAt = Date.now()
        if (line.trim()) log[litestreamLevel(line)]({ litestream: started.pid }, `litestream: ${line.trim()}`)
      })
    }
    started.once('error', (error) => log.error({}, `litestream could not be started: ${error.message}`))
    started.once('exit', (code, signal) => {
      if (child !== started) return
      child = null
      metricsUrl = null
      if (stopping) return
      if (Date.now() - startedAt > 60_000) restartMs = FIRST_RESTART_MS
      log.error({ code, signal, restartInMs: restartMs }, 'litestream stopped; starting it again')
      restartLater()
    })
  }
  // A start that fails before Litestream runs (its configuration cannot be written: a full
  // disk) is logged and tried again later, never an unhandled rejection.
  const runOrRetry = () =>
    void run().catch((error: Error) => {
      if (stopping) return
      log.error({ restartInMs: restartMs }, `litestream could not be started: ${error.message}`)
      restartLater()
    })
  function restartLater() {
    restartTimer = setTimeout(runOrRetry, restartMs)
    restartTimer.unref()
    restartMs = Math.min(restartMs * 2, LONGEST_RESTART_MS)
  }
  runOrRetry()

  return {
    get pid() {
      return child?.pid ?? null
    },
    get metricsUrl() {
      return metricsUrl
    },
    get shippedAt() {
      return shippedAt
    },
    async stop() {
      if (stopping) return
      stopping = true
      if (restartTimer) clearTimeout(restartTimer)
      const running = child
      if (running && running.exitCode === null && running.signalCode === null) {
        const exited = new Promise((resolve) => running.once('exit', resolve))
        running.kill('SIGTERM')
        const timer = setTimeout(() => running.kill('SIGKILL'), STOP_WAIT_MS)
        await exited
        clearTimeout(timer)
      }
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

