import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BoundedQueue } from '../../server/lib/bounded-queue.ts'

// A task that runs until the test lets it go, recording that it started.
function gate() {
  let open: () => void = () => {}
  const opened = new Promise<void>((resolve) => (open = resolve))
  return { open, opened }
}

test('no more tasks run at once than the concurrency, and the waiting ones start as slots free up', async () => {
  const queue = new BoundedQueue({ concurrency: 2, maxPending: 10 })
  const gates = [gate(), gate(), gate(), gate()]
  const started: number[] = []
  let peak = 0
  gates.forEach((g, index) =>
    queue.push(async () => {
      started.push(index)
      peak = Math.max(peak, queue.running)
      await g.opened
    }),
  )
  assert.deepEqual(started, [0, 1])
  assert.equal(queue.pending, 2)
  gates[0]!.open()
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(started, [0, 1, 2])
  for (const g of gates) g.open()
  await queue.idle()
  assert.deepEqual(started, [0, 1, 2, 3])
  assert.equal(peak, 2)
  assert.equal(queue.running + queue.pending, 0)
})

test('a full queue refuses a task instead of holding it', async () => {
  const queue = new BoundedQueue({ concurrency: 1, maxPending: 2 })
  const hold = gate()
  const accepted = [1, 2, 3, 4, 5].map(() => queue.push(() => hold.opened))
  assert.deepEqual(accepted, [true, true, true, false, false])
  assert.equal(queue.running, 1)
  assert.equal(queue.pending, 2)
  hold.open()
  await queue.idle()
})

test('a failing task is reported and frees its slot', async () => {
  const errors: unknown[] = []
  const queue = new BoundedQueue({ concurrency: 1, maxPending: 5, onError: (error) => errors.push(error) })
  let ran = false
  queue.push(async () => {
    throw new Error('boom')
  })
  queue.push(() => {
    throw new Error('thrown before any promise')
  })
  queue.push(async () => {
    ran = true
  })
  await queue.idle()
  assert.deepEqual(errors.map((e) => (e as Error).message), ['boom', 'thrown before any promise'])
  assert.equal(ran, true)
})

test('closing drops what waits, aborts what runs, and refuses new work', async () => {
  const queue = new BoundedQueue({ concurrency: 1, maxPending: 5 })
  let aborted = false
  let secondRan = false
  queue.push((signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => ((aborted = true), resolve()))))
  queue.push(async () => {
    secondRan = true
  })
  await queue.close()
  assert.equal(aborted, true)
  assert.equal(secondRan, false)
  assert.equal(queue.push(async () => {}), false)
})
