// The event-loop delay probe that bench:users and bench:routes preload into the server: a process
// that blocks its loop twice for 100 ms reports those stalls and a max delay of about 100 ms; the
// next lap, idle, reports neither (on a busy machine it may see short stalls of its own); a
// process started without the probe's descriptor is left alone, and the probed one hides the
// variable from what it starts; a primary reports its cluster workers' loops.
import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { LoopProbe, PROBE_FD, probeEnv } from './support/loop-delay.ts'
import { sleep } from './support/server.ts'

const BLOCKER = `
process.stdout.write(String(process.env.CAMPFIRE_LOOP_PROBE_FD) + '\\n')
const block = (ms) => { const end = Date.now() + ms; while (Date.now() < end); }
setTimeout(() => block(100), 100)
setTimeout(() => block(100), 300)
setInterval(() => {}, 1000)
`

function start(t: TestContext, withProbe: boolean): { probe: LoopProbe; firstLine: Promise<string> } {
  const child = spawn(process.execPath, ['-e', BLOCKER], {
    stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
    env: { ...process.env, ...(withProbe ? probeEnv('') : { NODE_OPTIONS: probeEnv('').NODE_OPTIONS }) },
  })
  t.after(() => child.kill())
  const firstLine = new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())))
  return { probe: new LoopProbe(child.stdio[PROBE_FD] as Readable & Writable), firstLine }
}

test('two 100 ms blocks are two long stalls; the next lap, idle, has none of them', async (t) => {
  const { probe, firstLine } = start(t, true)
  assert.equal(await firstLine, 'undefined', 'the variable is gone from the probed process (and what it starts)')
  await sleep(600)
  const busy = await probe.lap()
  assert.ok(busy, 'the probe answers')
  assert.ok(busy.stalls_over_10ms >= 2, JSON.stringify(busy))
  assert.ok(busy.stalled_ms >= 190, JSON.stringify(busy))
  assert.ok(busy.longest_stall_ms >= 95 && busy.max_ms >= 95, JSON.stringify(busy))
  assert.ok(busy.p50_ms < 5, JSON.stringify(busy))
  await sleep(300)
  const idle = await probe.lap()
  assert.ok(idle)
  assert.ok(idle.longest_stall_ms < 90 && idle.max_ms < 90, JSON.stringify(idle))
  assert.ok(idle.secs >= 0.25 && idle.secs < 2, JSON.stringify(idle))
})

test('without its descriptor the probe does nothing', async (t) => {
  const { probe, firstLine } = start(t, false)
  assert.equal(await firstLine, 'undefined')
  assert.equal(await probe.lap(300), null)
})

// A primary with two workers, as WEB_CONCURRENCY=2 runs: the second blocks its loop twice.
const CLUSTER = `
const cluster = require('node:cluster')
const block = (ms) => { const end = Date.now() + ms; while (Date.now() < end); }
if (cluster.isPrimary) {
  let listening = 0
  for (const id of [1, 2]) cluster.fork({ BLOCKS: String(id === 2) }).on('online', () => { if (++listening === 2) process.stdout.write('ready\\n') })
  setInterval(() => {}, 1000)
} else {
  if (process.env.BLOCKS === 'true') { setTimeout(() => block(100), 100); setTimeout(() => block(100), 300) }
  setInterval(() => {}, 1000)
}
`

async function startCluster(t: TestContext, probeWorkers: boolean): Promise<LoopProbe> {
  const dir = mkdtempSync(join(tmpdir(), 'loop-probe-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  // A file, not -e: cluster.fork runs the primary's script again.
  writeFileSync(join(dir, 'cluster.cjs'), CLUSTER)
  const child = spawn(process.execPath, [join(dir, 'cluster.cjs')], { stdio: ['ignore', 'pipe', 'inherit', 'pipe'], env: { ...process.env, ...probeEnv('', probeWorkers) } })
  t.after(() => child.kill('SIGKILL'))
  await new Promise<void>((resolve) => child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve()))
  return new LoopProbe(child.stdio[PROBE_FD] as Readable & Writable)
}

test('under a cluster the lap is the workers’: the worst one’s delays, everyone’s stalls, and each worker’s own', async (t) => {
  const probe = await startCluster(t, true)
  await probe.lap()
  await sleep(600)
  const lap = await probe.lap()
  assert.ok(lap?.workers && lap.primary, JSON.stringify(lap))
  assert.equal(lap.workers.length, 2)
  const [calm, blocked] = lap.workers
  assert.ok(blocked!.stalls_over_10ms >= 2 && blocked!.longest_stall_ms >= 95, JSON.stringify(blocked))
  assert.ok(calm!.longest_stall_ms < 90, JSON.stringify(calm))
  assert.ok(lap.stalls_over_10ms >= blocked!.stalls_over_10ms && lap.max_ms >= 95, JSON.stringify(lap))
  assert.ok(lap.primary.longest_stall_ms < 90, 'the primary itself was idle')
})

test('under a cluster whose workers are not to be probed, the lap is the primary’s and says so', async (t) => {
  const probe = await startCluster(t, false)
  await sleep(600)
  const lap = await probe.lap()
  assert.ok(lap, 'the primary answers')
  assert.equal(lap.unprobed_workers, 2)
  assert.equal(lap.workers, undefined)
  assert.ok(lap.longest_stall_ms < 90, 'the blocked worker is not in it')
})
