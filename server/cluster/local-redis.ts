import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { findProgram } from '../build/debian-package.ts'
import type { PrimaryLog } from './log.ts'

const READY_WITHIN_MS = 10_000
const FIRST_RESTART_MS = 100
const LONGEST_RESTART_MS = 5_000

export interface LocalRedis {
  // unix:///tmp/campfire-redis-…/redis.sock, for REDIS_URL.
  readonly url: string
  readonly pid: number | null
  // Stops it at once (SIGTERM, which it obeys without saving anything) and removes its socket
  // folder. Synchronous, so it also runs from an 'exit' handler.
  stop(): void
}

// A redis-server beside a cluster whose REDIS_URL is unset, as upstream's image runs Redis beside
// Rails: on a Unix socket in a private folder under the temporary directory (never a port, which
// on a host network would be the host's), persisting nothing. It dies with this process even when
// this one is killed (setpriv --pdeathsig), and one that dies on its own is started again on the
// same socket, where the workers' connections find it.
export async function startLocalRedis(program: string, log: PrimaryLog): Promise<LocalRedis> {
  const found = findProgram(program)
  if (!found) throw new Error(`WEB_CONCURRENCY is above 1 and REDIS_URL is unset, but ${program} is not installed to start one (install redis-server, or set REDIS_URL)`)
  const folder = mkdtempSync(join(tmpdir(), 'campfire-redis-'))
  const socket = join(folder, 'redis.sock')
  const args = ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--loglevel', 'warning']
  const setpriv = findProgram('setpriv')
  const command = setpriv ? [setpriv, '--pdeathsig', 'KILL', '--', found, ...args] : [found, ...args]

  let child: ChildProcess | null = null
  let stopping = false
  let restartMs = FIRST_RESTART_MS
  let output = ''
  const run = () => {
    output = ''
    const started = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] })
    child = started
    const heard = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000)
      // Its start-up banner is logged at its warning level; what matters reaches the log as
      // this process's errors (it stopped, or never answered, with its last words).
      for (const line of chunk.toString().split('\n')) if (line.trim()) log.info({ redis: started.pid }, `redis-server: ${line.trim()}`)
    }
    started.stdout!.on('data', heard)
    started.stderr!.on('data', heard)
    started.once('error', (error) => log.error({}, `redis-server could not be started: ${error.message}`))
    started.once('exit', (code, signal) => {
      if (child === started) child = null
      if (stopping) return
      log.error({ code, signal, restartInMs: restartMs }, 'the local redis-server stopped; starting it again')
      setTimeout(run, restartMs).unref()
      restartMs = Math.min(restartMs * 2, LONGEST_RESTART_MS)
    })
  }
  const stop = () => {
    if (stopping) return
    stopping = true
    child?.kill('SIGTERM')
    rmSync(folder, { recursive: true, force: true })
  }

  run()
  const deadline = Date.now() + READY_WITHIN_MS
  while (!(await answersPing(socket))) {
    if (Date.now() > deadline) {
      stop()
      throw new Error(`the local redis-server did not answer within ${READY_WITHIN_MS / 1000} s:\n${output}`)
    }
    await sleep(20)
  }
  restartMs = FIRST_RESTART_MS
  return {
    url: `unix://${socket}`,
    get pid() {
      return child?.pid ?? null
    },
    stop,
  }
}

function answersPing(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path)
    let heard = ''
    const done = (ok: boolean) => (socket.destroy(), resolve(ok))
    socket.setTimeout(1000, () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.on('data', (chunk) => {
      heard += chunk.toString()
      if (heard.includes('\r\n')) done(heard.startsWith('+PONG'))
    })
    socket.once('error', () => done(false))
  })
}
