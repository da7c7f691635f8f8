import { get } from 'node:http'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import BetterSqlite3 from 'better-sqlite3'
import WebSocket from 'ws'
import { projectPath } from '../../server/lib/paths.ts'
import { Store } from '../../server/models/store.ts'
import { CableClient } from '../cable/cable-helper.ts'
import { loadFixtures, PASSWORD, rooms, users, type RoomName, type UserName } from '../fixtures.ts'
import { SECRET_KEY_BASE, tempStorage } from '../helper.ts'
import { RedisServer } from '../support/redis-server.ts'
import { CookieJar, formPost, request, startServer, stopServer, type ServerProcess } from '../support/server-process.ts'

export interface Cluster {
  server: ServerProcess
  redis: RedisServer
  storage: string
  databasePath: string
}

// `WEB_CONCURRENCY=2` as a real process tree (a primary and two workers) on a free port, with
// a real redis-server, on a fresh file holding the fixture cast.
export async function startCluster(t: TestContext, env: Record<string, string> = {}): Promise<Cluster> {
  const storage = tempStorage(t)
  const databasePath = join(storage, 'db', 'production.sqlite3')
  const store = new Store({ path: databasePath, migrationsDir: projectPath('migrations') })
  store.writeNow((m) => loadFixtures(m.db))
  store.close()
  const redis = await RedisServer.start(t)
  const server = await startServer({ WEB_CONCURRENCY: '2', REDIS_URL: redis.url, CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', ...env })
  t.after(() => stopServer(server))
  // The primary's "Server listening at" comes once every worker has told it so over IPC; a
  // worker's own line may reach the shared pipe a moment later.
  await eventually(() => workerPids(server).size === 2, 'every worker to log that it listens')
  return { server, redis, storage, databasePath }
}

type LogLine = Record<string, unknown> & { msg?: string }

export function logLines(server: ServerProcess): LogLine[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine)
}

// Each worker's process id, from its latest "worker N listening at" line.
export function workerPids(server: ServerProcess): Map<number, number> {
  const pids = new Map<number, number>()
  for (const line of logLines(server)) if (/^worker \d+ listening at /.test(line.msg ?? '')) pids.set(line.worker as number, line.pid as number)
  return pids
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

export async function eventually(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

// The worker that answered a GET made on a connection of its own (Server-Timing `worker;desc=N`).
export function answeringWorker(baseUrl: string, path = '/session/new'): Promise<number | null> {
  return new Promise((resolve, reject) => {
    get(baseUrl + path, { agent: false }, (response) => {
      response.resume()
      const timing = String(response.headers['server-timing'] ?? '')
      const match = /worker;desc=(\d+)/.exec(timing)
      resolve(match ? Number(match[1]) : null)
    }).on('error', reject)
  })
}

export async function signIn(baseUrl: string, name: UserName): Promise<string> {
  const jar = new CookieJar()
  const response = await request(baseUrl, jar, '/session', formPost({ email_address: users[name].email!, password: PASSWORD }))
  if (response.status !== 302 || !jar.has('session_token')) throw new Error(`sign in as ${name} failed: ${response.status}`)
  return jar.header()
}

// A socket on /cable as a browser tab opens it, waiting for the welcome.
export async function openCable(t: TestContext, baseUrl: string, cookie: string): Promise<CableClient> {
  const socket = new WebSocket(baseUrl.replace(/^http/, 'ws') + '/cable', ['actioncable-v1-json', 'actioncable-unsupported'], { headers: { cookie, origin: baseUrl } })
  t.after(() => socket.terminate())
  const client = new CableClient(socket)
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve())
    socket.once('error', reject)
  })
  await client.frame((frame) => frame.type === 'welcome')
  return client
}

// The membership's presence as the file has it now, read by a connection of the test's own.
export function presenceIn(databasePath: string, room: RoomName, name: UserName): { connections: number; connected_at: string | null } {
  const db = new BetterSqlite3(databasePath, { readonly: true, fileMustExist: true })
  try {
    return db.prepare('SELECT connections, connected_at FROM memberships WHERE room_id = ? AND user_id = ?').get(rooms[room].id, users[name].id) as { connections: number; connected_at: string | null }
  } finally {
    db.close()
  }
}
