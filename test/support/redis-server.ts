import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { TestContext } from 'node:test'
import { findProgram } from '../../server/build/debian-package.ts'
import { REDIS_SERVER_PATH } from '../../server/build/redis.ts'
import { accepts, freePort } from './ports.ts'

// A real redis-server on a free loopback port and a Unix socket, with no persistence, for one
// test. It can be stopped and started again on the same port (the fault tests).
export class RedisServer {
  private child: ChildProcess | null = null
  private log = ''
  private readonly socketDir = mkdtempSync(join(tmpdir(), 'redis-'))

  // `prefix` runs before the program (a benchmark pins it with taskset).
  private constructor(
    readonly port: number,
    private readonly prefix: readonly string[],
  ) {}

  // The running server's process id, or null.
  get pid(): number | null {
    return this.child?.pid ?? null
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`
  }

  // The same server through its Unix socket (unix:///…/redis.sock).
  get socketUrl(): string {
    return `unix://${this.socketPath}`
  }

  get socketPath(): string {
    return join(this.socketDir, 'redis.sock')
  }

  get output(): string {
    return this.log
  }

  static async start(t?: TestContext, prefix: readonly string[] = []): Promise<RedisServer> {
    if (!findProgram(REDIS_SERVER_PATH)) throw new Error(`${REDIS_SERVER_PATH} is missing: install Debian's redis-server (apt-get install -y redis-server), as npm test's pretest does where it can`)
    const server = new RedisServer(await freePort(), prefix)
    await server.resume()
    t?.after(() => server.dispose())
    return server
  }

  // Starts (again) on the same port and waits until it accepts connections.
  async resume(): Promise<void> {
    if (this.child) return
    const command = [...this.prefix, REDIS_SERVER_PATH]
    const child = spawn(command[0]!, [...command.slice(1), '--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--unixsocket', this.socketPath, '--unixsocketperm', '700'], { stdio: ['ignore', 'pipe', 'pipe'] })
    this.child = child
    child.stdout!.on('data', (chunk: Buffer) => (this.log += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (this.log += chunk.toString()))
    child.once('exit', () => {
      if (this.child === child) this.child = null
    })
    const deadline = Date.now() + 10_000
    while (!(await accepts(this.port))) {
      if (this.child !== child) throw new Error(`redis-server exited:\n${this.log}`)
      if (Date.now() > deadline) throw new Error(`redis-server did not start:\n${this.log}`)
      await sleep(25)
    }
  }

  // Stops it at once (SIGKILL: as if it died) or cleanly, and waits for the exit.
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child
    if (!child) return
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve())
      child.kill(signal)
    })
  }

  // Stops it for good and removes its socket's folder.
  async dispose(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.stop(signal)
    rmSync(this.socketDir, { recursive: true, force: true })
  }
}
