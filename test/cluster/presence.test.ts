import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { identifiers } from '../cable/cable-helper.ts'
import type { CableClient } from '../cable/cable-helper.ts'
import { eventually, openCable, presenceIn, signIn, startCluster, workerPids, type Cluster } from './cluster-helper.ts'

const TABS = 6

// Jason Zimdars opens HQ in six tabs; the primary hands connections to the workers in turn,
// so both workers hold some of them.
async function tabsInHq(t: TestContext, cluster: Cluster): Promise<CableClient[]> {
  const cookie = await signIn(cluster.server.baseUrl, 'jz')
  const tabs: CableClient[] = []
  for (let i = 0; i < TABS; i++) {
    const tab = await openCable(t, cluster.server.baseUrl, cookie)
    tab.subscribe(identifiers.presence('hq'))
    await tab.confirmed(identifiers.presence('hq'))
    tabs.push(tab)
  }
  assert.equal(presenceIn(cluster.databasePath, 'hq', 'jz').connections, TABS, 'tabs on both workers add up')
  return tabs
}

async function restarted(cluster: Cluster, id: number, pid: number): Promise<void> {
  await eventually(() => (workerPids(cluster.server).get(id) ?? pid) !== pid, `worker ${id} to be restarted`)
}

test('the connections a worker killed with -9 held are released, and the others stay', { timeout: 120_000 }, async (t) => {
  const cluster = await startCluster(t)
  const tabs = await tabsInHq(t, cluster)
  const victim = workerPids(cluster.server).get(1)!
  // Killed the instant its last count is committed: its share was committed with it.
  process.kill(victim, 'SIGKILL')
  await eventually(() => tabs.some((tab) => tab.closeCode !== null), 'the killed worker’s tabs to close')
  await new Promise((resolve) => setTimeout(resolve, 200))
  const lost = tabs.filter((tab) => tab.closeCode !== null).length
  assert.ok(lost > 0 && lost < TABS, `${lost} of ${TABS} tabs were on the killed worker`)
  await eventually(() => presenceIn(cluster.databasePath, 'hq', 'jz').connections === TABS - lost, `${TABS - lost} connections left`)
  assert.notEqual(presenceIn(cluster.databasePath, 'hq', 'jz').connected_at, null)

  // The restarted worker reset nothing; a tab opened now counts on top.
  await restarted(cluster, 1, victim)
  assert.equal(presenceIn(cluster.databasePath, 'hq', 'jz').connections, TABS - lost)
  const again = await openCable(t, cluster.server.baseUrl, await signIn(cluster.server.baseUrl, 'jz'))
  again.subscribe(identifiers.presence('hq'))
  await again.confirmed(identifiers.presence('hq'))
  assert.equal(presenceIn(cluster.databasePath, 'hq', 'jz').connections, TABS - lost + 1)
})

test('a worker that exits cleanly and is restarted leaves the other workers’ presence as it was', { timeout: 120_000 }, async (t) => {
  const cluster = await startCluster(t)
  const tabs = await tabsInHq(t, cluster)
  const leaving = workerPids(cluster.server).get(2)!

  // Its own shutdown tells its tabs to come back and takes their connections away itself; the
  // primary then has nothing left to release, so nothing is taken twice.
  process.kill(leaving, 'SIGTERM')
  await restarted(cluster, 2, leaving)
  const told = tabs.filter((tab) => tab.frames.some((frame) => frame.type === 'disconnect' && frame.reason === 'server_restart'))
  assert.ok(told.length > 0 && told.length < TABS, `${told.length} of ${TABS} tabs were on the worker that left`)
  assert.equal(presenceIn(cluster.databasePath, 'hq', 'jz').connections, TABS - told.length)
  assert.match(cluster.server.output(), /worker 2 died \(exit code 0\); restarting it/)
})
