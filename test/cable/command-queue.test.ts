import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CommandQueue } from '../../server/cable/command-queue.ts'

function deferred() {
  let resolve: () => void = () => {}
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

function queue(run: (item: string) => void | Promise<void>, options: { maxLength?: number; maxBytes?: number } = {}) {
  const errors: unknown[] = []
  const q = new CommandQueue<string>({ execute: run, commandFailed: (error) => errors.push(error) }, { queuedCommands: options.maxLength ?? 100, queuedBytes: options.maxBytes ?? 1e9 })
  return { q, errors }
}

test('commands that finish synchronously run at once, in order', () => {
  const ran: string[] = []
  const { q } = queue((item) => void ran.push(item))
  q.push('a')
  q.push('b')
  assert.deepEqual(ran, ['a', 'b'])
  assert.equal(q.length, 0)
})

test('a command that awaits holds back everything behind it', async () => {
  const ran: string[] = []
  const gate = deferred()
  const { q } = queue((item) => {
    ran.push(`start ${item}`)
    if (item === 'slow') return gate.promise.then(() => void ran.push('end slow'))
  })
  q.push('slow')
  q.push('a')
  q.push('b')
  assert.deepEqual(ran, ['start slow'])
  assert.equal(q.length, 2)
  assert.ok(q.busy)
  gate.resolve()
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(ran, ['start slow', 'end slow', 'start a', 'start b'])
})

test('a failing command is reported and the next one still runs', async () => {
  const ran: string[] = []
  const { q, errors } = queue((item) => {
    if (item === 'throws') throw new Error('sync')
    if (item === 'rejects') return Promise.reject(new Error('async'))
    ran.push(item)
  })
  q.push('throws')
  q.push('rejects')
  q.push('ok')
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(ran, ['ok'])
  assert.deepEqual(errors.map((e) => (e as Error).message), ['sync', 'async'])
})

test('a full queue refuses more, by count or by bytes, unless forced', () => {
  const gate = deferred()
  const { q } = queue(() => gate.promise, { maxLength: 2, maxBytes: 100 })
  assert.ok(q.push('in flight', 10))
  assert.ok(q.push('a', 10))
  assert.ok(q.push('b', 10))
  assert.equal(q.push('c', 10), false)
  assert.equal(q.push('server', 0, true), true)
  const bytes = queue(() => gate.promise, { maxLength: 100, maxBytes: 100 }).q
  bytes.push('in flight', 10)
  assert.ok(bytes.push('a', 60))
  assert.equal(bytes.push('b', 60), false)
  assert.equal(bytes.bytes, 60)
})

test('closing drops what has not started, lets the command in flight finish, then runs the cleanup last', async () => {
  const ran: string[] = []
  const gate = deferred()
  const { q } = queue((item) => {
    ran.push(item)
    if (item === 'slow') return gate.promise.then(() => void ran.push('slow done'))
  })
  q.push('slow')
  q.push('dropped')
  const closed = q.close(() => void ran.push('cleanup'))
  assert.equal(q.push('late'), false)
  gate.resolve()
  await closed
  assert.deepEqual(ran, ['slow', 'slow done', 'cleanup'])
  assert.equal(q.close(() => void ran.push('again')), closed, 'closing twice is closing once')
})

test('a long burst does not keep the consumed part of the queue', async () => {
  const gate = deferred()
  let count = 0
  const { q } = queue((item) => {
    count++
    if (item === 'first') return gate.promise
  }, { maxLength: 10_000 })
  q.push('first')
  for (let n = 0; n < 5000; n++) q.push(String(n))
  gate.resolve()
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(count, 5001)
  assert.equal(q.length, 0)
})
