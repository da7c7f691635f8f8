import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { LazyPool } from '../../server/lib/lazy-pool.ts'
import { workerSource } from '../../server/lib/paths.ts'
import type { PasswordTask } from '../../server/workers/password.ts'
import { compiledWorkers } from '../support/compiled-server.ts'

const piscinaLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/node_modules/piscina/'))

test('a pool loads piscina and starts its thread with its first task, and not before', async () => {
  const pool = new LazyPool({ ...workerSource('password', await compiledWorkers()), minThreads: 0, maxThreads: 1 })
  assert.equal(piscinaLoaded(), false, 'making the pool loads nothing')
  const digest = await pool.run<string>({ op: 'hash', password: 'correct horse', cost: 4 } satisfies PasswordTask)
  assert.match(digest, /^\$2[aby]\$04\$/)
  assert.equal(await pool.run<boolean>({ op: 'verify', password: 'correct horse', digest } satisfies PasswordTask), true)
  assert.equal(piscinaLoaded(), true)
  await pool.destroy()
})

test('a pool that never ran is destroyed at once, with no thread to stop', async () => {
  const pool = new LazyPool({ ...workerSource('password', await compiledWorkers()), minThreads: 0, maxThreads: 1 })
  await pool.destroy()
})
