import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { processCpuSeconds, processesCpuSeconds, processMemory, processTree } from './support/measure.ts'

// A server with worker processes is measured over its whole tree: the CPU of a child counts
// while it runs and after it has exited and been waited for.
test('a process’s CPU includes its children’s, running and exited', async () => {
  const before = processCpuSeconds(process.pid)!
  const child = spawn(process.execPath, ['-e', 'const start = process.cpuUsage().user; while (process.cpuUsage().user - start < 500_000);'], { stdio: 'ignore' })
  await once(child, 'spawn')
  assert.ok(processTree(process.pid).includes(child.pid!), 'the child is in the tree')
  await once(child, 'exit')
  const after = processCpuSeconds(process.pid)!
  assert.ok(after - before >= 0.4, `the child's 0.5 s of CPU counted (${(after - before).toFixed(2)} s)`)
})

test('the CPU and memory of a process that is gone are unknown, not zero', () => {
  assert.equal(processCpuSeconds(2 ** 22 + 12345), null)
  assert.equal(processesCpuSeconds([process.pid, 2 ** 22 + 12345]), null)
  assert.equal(processMemory(2 ** 22 + 12345), null)
  assert.ok(processMemory(process.pid)!.rss_mb > 10)
})
