import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { projectPath } from '../../../server/lib/paths.ts'
import { Store } from '../../../server/models/store.ts'
import { eventually, startCluster } from '../../cluster/cluster-helper.ts'
import { loadFixtures, rooms } from '../../fixtures.ts'
import { SECRET_KEY_BASE, tempStorage } from '../../helper.ts'
import { parseScrape, valueOf, type Family } from '../../support/prometheus-text.ts'
import { startServer, stopServer, type ServerProcess } from '../../support/server-process.ts'

const TOKEN = 'litestream-metrics-token-0123456789'
const BENDER_MESSAGES = `/rooms/${rooms.pets.id}/5-BenderToken1/messages`

async function scrape(server: ServerProcess): Promise<{ families: Map<string, Family>; ms: number }> {
  const started = Date.now()
  const response = await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  const ms = Date.now() - started
  assert.equal(response.status, 200)
  return { families: parseScrape(await response.text()), ms }
}

// The one sample of a family: it is there once, whatever the processes.
function only(families: Map<string, Family>, name: string): number {
  const samples = [...families.values()].flatMap((family) => family.samples.filter((sample) => sample.name === name))
  assert.equal(samples.length, 1, `${name} is in the scrape once`)
  return Number(samples[0]!.value)
}

async function post(server: ServerProcess, count: number, label: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await fetch(server.baseUrl + BENDER_MESSAGES, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: `${label} ${i} ${'x'.repeat(2000)}` })
    assert.equal(response.status, 201)
  }
}

// The pid of the Litestream started after `after` characters of the log, and its metrics' address.
async function litestreamStarted(server: ServerProcess, after = 0): Promise<{ pid: number; metrics: string }> {
  let found: RegExpExecArray | null = null
  await eventually(() => (found = /"litestream":(\d+)[^\n]*"metrics":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"[^\n]*"msg":"litestream started"/.exec(server.output().slice(after))) !== null, 'Litestream to start with its metrics on')
  return { pid: Number(found![1]), metrics: found![2]! }
}

async function caughtUp(server: ServerProcess): Promise<Map<string, Family>> {
  let last = new Map<string, Family>()
  const litestream = () => ['up', 'lag_bytes', 'lag_seconds'].map((name) => `${name} ${only(last, `campfire_litestream_${name}`)}`).join(', ')
  await eventually(async () => {
    last = (await scrape(server)).families
    return only(last, 'campfire_litestream_up') === 1 && only(last, 'campfire_litestream_lag_bytes') === 0
  }, 'the replica to catch up', 30_000).catch((error: Error) => assert.fail(`${error.message} (${litestream()}):\n${server.output().split('\n').filter((line) => line.includes('litestream')).slice(-25).join('\n')}`))
  return last
}

function fixtureStorage(t: TestContext): string {
  const storage = tempStorage(t)
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: projectPath('migrations') })
  store.writeNow((m) => loadFixtures(m.db))
  store.close()
  return storage
}

test("the replication lag is read from Litestream's own metrics: 0 once it has synced, growing while the replica cannot be written, and campfire_litestream_up 0, without the scrape failing or hanging, while Litestream is frozen or killed; restarted, it is up and caught up again", { timeout: 180_000 }, async (t) => {
  const storage = fixtureStorage(t)
  const replica = join(tempStorage(t), 'replica')
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', METRICS_TOKEN: TOKEN, LITESTREAM_REPLICA_URL: `file://${replica}` })
  t.after(() => stopServer(server, 'SIGKILL'))
  const first = await litestreamStarted(server)
  await eventually(async () => (await fetch(first.metrics).catch(() => null))?.status === 200, "Litestream's own metrics to answer on loopback")

  await post(server, 30, 'replicated')
  let families = await caughtUp(server)
  assert.equal(only(families, 'campfire_litestream_lag_seconds'), 0)
  assert.equal(only(families, 'campfire_litestream_read_failures_total'), 0)

  // The replica's folder turned into a file: Litestream copies the WAL but cannot ship it.
  renameSync(replica, `${replica}.aside`)
  writeFileSync(replica, 'in the way')
  await post(server, 30, 'held back')
  await eventually(async () => {
    families = (await scrape(server)).families
    return only(families, 'campfire_litestream_lag_bytes') > 30 * 2000 && only(families, 'campfire_litestream_lag_seconds') > 2
  }, 'the lag to grow while the replica cannot be written', 30_000)
  assert.equal(only(families, 'campfire_litestream_up'), 1)
  // Litestream 0.3.13 stays stuck on that segment once the folder is back (no error line, no
  // further write): the lag keeps growing until it is restarted, which the kill below does.
  rmSync(replica)
  renameSync(`${replica}.aside`, replica)

  // Frozen, it does not answer: the scrape gives up on it after 500 ms and answers anyway.
  process.kill(first.pid, 'SIGSTOP')
  const frozen = await scrape(server)
  assert.equal(only(frozen.families, 'campfire_litestream_up'), 0)
  assert.ok(Number.isNaN(only(frozen.families, 'campfire_litestream_lag_bytes')), 'no lag is made up')
  assert.equal(only(frozen.families, 'campfire_litestream_read_failures_total'), 1)
  assert.ok(frozen.ms >= 450 && frozen.ms < 2_000, `the scrape waited for Litestream about 500 ms, not more (${frozen.ms} ms)`)

  // Killed outright: down until the server starts it again, then up, and caught up.
  const logBeforeKill = server.output().length
  process.kill(first.pid, 'SIGKILL')
  const killed = await scrape(server)
  assert.equal(only(killed.families, 'campfire_litestream_up'), 0)
  assert.ok(killed.ms < 1_000, `a dead Litestream costs the scrape little (${killed.ms} ms)`)
  const second = await litestreamStarted(server, logBeforeKill)
  assert.notEqual(second.pid, first.pid)
  await post(server, 5, 'after the restart')
  families = await caughtUp(server)
  assert.ok(only(families, 'campfire_litestream_read_failures_total') >= 2)
})

test('in a cluster the primary runs Litestream and reports its lag, once in the whole server’s scrape', { timeout: 180_000 }, async (t) => {
  const replica = join(tempStorage(t), 'replica')
  const { server } = await startCluster(t, { METRICS_TOKEN: TOKEN, LITESTREAM_REPLICA_URL: `file://${replica}` })
  await litestreamStarted(server)
  await post(server, 10, 'clustered')
  const families = await caughtUp(server)
  assert.equal(only(families, 'campfire_litestream_lag_seconds'), 0)
  // A worker has no Litestream to read: had it reported, its failures would be added in.
  assert.equal(only(families, 'campfire_litestream_read_failures_total'), 0)
  assert.equal(valueOf(families, 'campfire_cluster_workers_scraped'), 2)
})

test('without metrics, Litestream is not asked to serve its own', { timeout: 120_000 }, async (t) => {
  const storage = fixtureStorage(t)
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', LITESTREAM_REPLICA_URL: `file://${join(tempStorage(t), 'replica')}` })
  t.after(() => stopServer(server, 'SIGKILL'))
  await eventually(() => /"msg":"litestream started"/.test(server.output()), 'Litestream to start')
  assert.doesNotMatch(server.output(), /"metrics":"http|serving metrics/)
})
