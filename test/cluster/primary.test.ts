import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { connect } from 'node:net'
import BetterSqlite3 from 'better-sqlite3'
import { rooms } from '../fixtures.ts'
import { SECRET_KEY_BASE, tempStorage } from '../helper.ts'
import { identifiers } from '../cable/cable-helper.ts'
import { ROOT } from '../support/server-process.ts'
import { answeringWorker, eventually, isRunning, logLines, openCable, signIn, startCluster, workerPids } from './cluster-helper.ts'

const BENDER_MESSAGES = `/rooms/${rooms.pets.id}/5-BenderToken1/messages`

function acceptsConnections(baseUrl: string): Promise<boolean> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => resolve(false))
  })
}

async function workersSeen(baseUrl: string, requests: number): Promise<Set<number | null>> {
  const seen = new Set<number | null>()
  for (let i = 0; i < requests; i++) seen.add(await answeringWorker(baseUrl))
  return seen
}

test('two workers answer on one port, each naming itself in Server-Timing', { timeout: 120_000 }, async (t) => {
  const { server } = await startCluster(t)
  assert.equal(server.output().match(/Server listening at/g)?.length, 1, 'one readiness line, from the primary')
  assert.deepEqual([...(await workersSeen(server.baseUrl, 20))].sort(), [1, 2])
})

test('WEB_CONCURRENCY=2 without REDIS_URL stops at boot with one clear message and listens on nothing', { timeout: 60_000 }, async (t) => {
  const env = { ...process.env, WEB_CONCURRENCY: '2', REDIS_URL: '', CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE, HTTP_PORT: '0', HTTP_BIND: '127.0.0.1', LOG_LEVEL: 'info' }
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile('node', ['--import', 'tsx', 'server/main.ts'], { cwd: ROOT, env }, (error, stdout, stderr) => resolve({ code: child.exitCode ?? (error as { code?: number } | null)?.code ?? 0, stdout, stderr }))
  })
  assert.equal(code, 78)
  assert.equal(stderr.trim(), 'Campfire cannot start: WEB_CONCURRENCY=2 needs REDIS_URL: worker processes share their broadcasts through Redis (unset WEB_CONCURRENCY, or set it to 1, to run one process with no other service)')
  assert.doesNotMatch(stdout + stderr, /listening/)
})

test('a worker killed with -9 is restarted, the port keeps answering, and no acknowledged post is lost', { timeout: 180_000 }, async (t) => {
  const { server, databasePath } = await startCluster(t)
  const victim = workerPids(server).get(1)!

  // Forty posts at once; worker 1 is killed as soon as ten have been answered, while the rest
  // are still in flight on both workers.
  const acknowledged: string[] = []
  let killed = false
  const post = (text: string) =>
    // A connection the primary was handing to worker 1 as it was killed may never be answered:
    // such a post was not acknowledged, and is given up on.
    fetch(server.baseUrl + BENDER_MESSAGES, { method: 'POST', body: text, headers: { 'content-type': 'application/x-www-form-urlencoded' }, signal: AbortSignal.timeout(15_000) })
      .then((response) => {
        if (response.status === 201) acknowledged.push(new URL(response.headers.get('location')!).pathname)
        if (acknowledged.length === 10 && !killed) {
          killed = true
          process.kill(victim, 'SIGKILL')
        }
      })
      .catch(() => undefined)
  await Promise.all(Array.from({ length: 40 }, (_, i) => post(`before the kill ${i}`)))
  assert.ok(killed)

  // The other worker answers while the first is restarted.
  await eventually(() => (workerPids(server).get(1) ?? victim) !== victim, 'worker 1 to be restarted')
  assert.equal(isRunning(victim), false)
  const death = logLines(server).find((line) => line.msg?.startsWith('worker 1 died'))
  assert.equal(death?.signal, 'SIGKILL', server.output().split('\n').filter((line) => line.includes('"primary":true')).join('\n'))
  for (let i = 0; i < 10; i++) await post(`after the restart ${i}`)
  assert.deepEqual([...(await workersSeen(server.baseUrl, 20))].sort(), [1, 2])

  const db = new BetterSqlite3(databasePath, { readonly: true })
  t.after(() => db.close())
  const stored = new Set((db.prepare('SELECT id FROM messages').pluck().all() as number[]).map((id) => `/messages/${id}`))
  assert.ok(acknowledged.length >= 20, `${acknowledged.length} posts acknowledged`)
  for (const location of acknowledged) assert.ok(stored.has(location), `${location} was acknowledged but lost`)
})

test('SIGTERM to the primary shuts every worker down cleanly and exits 0, leaving nothing listening', { timeout: 120_000 }, async (t) => {
  const { server } = await startCluster(t)
  const pids = [...workerPids(server).values()]
  assert.equal(pids.length, 2)
  const tab = await openCable(t, server.baseUrl, await signIn(server.baseUrl, 'kevin'))
  tab.subscribe(identifiers.heartbeat)
  await tab.confirmed(identifiers.heartbeat)

  const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)))
  server.child.kill('SIGTERM')
  const told = await tab.frame((frame) => frame.type === 'disconnect', 20_000)
  assert.deepEqual(told, { type: 'disconnect', reason: 'server_restart', reconnect: true })
  assert.equal(await exited, 0)
  for (const pid of pids) assert.equal(isRunning(pid), false, `worker ${pid} is still running`)
  assert.equal(await acceptsConnections(server.baseUrl), false)
  assert.equal(server.output().match(/worker \d stopped/g)?.length, 2)
})

test('the workers of a primary killed with -9 exit too', { timeout: 120_000 }, async (t) => {
  const { server } = await startCluster(t)
  const pids = [...workerPids(server).values()]
  server.child.kill('SIGKILL')
  await eventually(() => pids.every((pid) => !isRunning(pid)), 'the workers to exit')
  assert.equal(await acceptsConnections(server.baseUrl), false)
})
