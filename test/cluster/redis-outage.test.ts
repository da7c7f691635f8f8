import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { rooms } from '../fixtures.ts'
import { formPost } from '../support/server-process.ts'
import { signIn, startCluster, type Cluster } from './cluster-helper.ts'

const TURBO = 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml'
const POSTERS = 4
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Post {
  id: string
  status: number
  // As the client saw it, and the part the server spent waiting for Redis (Server-Timing relay).
  ms: number
  relayMs: number
  during: boolean
}

// Posters post to HQ on both workers while Redis is taken away by `outage` (killed, or stopped
// with its connections left open and silent) and for four seconds after.
async function postThroughOutage(t: TestContext, outage: (cluster: Cluster) => Promise<void>): Promise<{ posts: Post[]; cluster: Cluster }> {
  const cluster = await startCluster(t)
  const cookie = await signIn(cluster.server.baseUrl, 'david')
  const posts: Post[] = []
  let during = false
  let stop = false
  const poster = async (n: number) => {
    for (let i = 0; !stop; i++) {
      const id = `${n}x${i}`
      const started = performance.now()
      const init = formPost({ 'message[body]': `poster ${n} post ${i}`, 'message[client_message_id]': id })
      const response = await fetch(`${cluster.server.baseUrl}/rooms/${rooms.hq.id}/messages`, { ...init, headers: { ...(init.headers as Record<string, string>), cookie, accept: TURBO }, signal: AbortSignal.timeout(10_000) }).catch(() => null)
      await response?.arrayBuffer()
      const relay = /relay;dur=([\d.]+)/.exec(response?.headers.get('server-timing') ?? '')
      posts.push({ id, status: response?.status ?? 0, ms: performance.now() - started, relayMs: relay ? Number(relay[1]) : 0, during })
      await sleep(20)
    }
  }
  const posting = Array.from({ length: POSTERS }, (_, n) => poster(n))
  await sleep(1500)
  during = true
  await outage(cluster)
  await sleep(4000)
  stop = true
  await Promise.all(posting)
  return { posts, cluster }
}

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

function summary(posts: Post[]): string {
  const times = posts.map((p) => p.ms)
  const relay = posts.map((p) => p.relayMs)
  return `${posts.length} posts, p50 ${Math.round(percentile(times, 0.5))} ms, p99 ${Math.round(percentile(times, 0.99))} ms, slowest ${Math.round(Math.max(...times))} ms (waiting for Redis: p50 ${percentile(relay, 0.5)} ms, slowest ${Math.max(...relay)} ms)`
}

function assertAnsweredWithoutWaiting(t: TestContext, { posts, cluster }: { posts: Post[]; cluster: Cluster }): void {
  const before = posts.filter((p) => !p.during)
  const during = posts.filter((p) => p.during)
  t.diagnostic(`before: ${summary(before)}`)
  t.diagnostic(`during the outage: ${summary(during)}`)
  assert.ok(before.some((p) => p.relayMs > 0), 'with Redis up, a post waits (briefly) for its publish, and says so in Server-Timing')
  assert.ok(during.length > 20, `posts kept coming (${during.length})`)
  assert.deepEqual(during.filter((p) => p.status !== 200).map((p) => `${p.id}: ${p.status}`), [], 'every post is answered 200')
  // A post that waited on the dead Redis waited 250 ms or more, every one of them; now at most
  // 100 ms, and only the posts of the moment it stopped answering. Judged on the many rather
  // than each: on a loaded machine a starved process's timers can fire late by a second.
  const waits = during.map((p) => p.relayMs)
  assert.ok(percentile(waits, 0.5) < 20, `most posts do not wait on Redis at all (p50 ${percentile(waits, 0.5)} ms)`)
  assert.ok(percentile(waits, 0.9) < 100, `nine in ten wait under 100 ms (p90 ${percentile(waits, 0.9)} ms)`)
  const db = new BetterSqlite3(cluster.databasePath, { readonly: true })
  t.after(() => db.close())
  const stored = new Set(db.prepare('SELECT client_message_id FROM messages').pluck().all() as string[])
  assert.deepEqual(posts.filter((p) => p.status === 200 && !stored.has(p.id)).map((p) => p.id), [], 'every acknowledged post is stored')
}

test('posts on both workers are answered without waiting for Redis once it is killed', { timeout: 120_000 }, async (t) => {
  assertAnsweredWithoutWaiting(t, await postThroughOutage(t, (cluster) => cluster.redis.stop('SIGKILL')))
})

test('posts on both workers are answered without waiting for Redis once it stops answering with its connections open', { timeout: 120_000 }, async (t) => {
  let stopped: number | null = null
  try {
    const result = await postThroughOutage(t, async (cluster) => {
      stopped = cluster.redis.pid!
      process.kill(stopped, 'SIGSTOP')
    })
    assertAnsweredWithoutWaiting(t, result)
  } finally {
    // Before the servers are stopped: a stopped redis-server would not heed their SIGTERM.
    if (stopped !== null) process.kill(stopped, 'SIGCONT')
  }
})
