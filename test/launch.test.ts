import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compiledServer } from './support/compiled-server.ts'
import { startServer, stopServer } from './support/server-process.ts'
import { tempStorage } from './helper.ts'

const SECRET = 'e'.repeat(128)

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 25))) if (check()) return true
  return check()
}

// A node flag no other test starts the server with, so these starts have a code cache of their
// own (a cache is named by the node flags it was made under).
const command = async () => ['node', '--enable-source-maps', `--title=campfire-code-cache-test-${process.pid}`, await compiledServer()]

test('the compiled server writes its code cache a second after its first start listens, and the next start runs from it', { timeout: 60_000 }, async (t) => {
  const env = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: SECRET, DISABLE_SSL: 'true', LOG_LEVEL: 'debug', LOG_FORMAT: 'json' }
  const first = await startServer(env, undefined, await command())
  try {
    assert.ok(await until(() => /code cache: written/.test(first.output()), 10_000), first.output())
  } finally {
    await stopServer(first)
  }
  const next = await startServer(env, undefined, await command())
  try {
    assert.equal((await fetch(`${next.baseUrl}/up`)).status, 200)
    assert.ok(await until(() => /code cache: used/.test(next.output()), 10_000), next.output())
  } finally {
    await stopServer(next)
  }
})

test('with CAMPFIRE_CODE_CACHE=off the compiled server starts and answers without one', { timeout: 60_000 }, async (t) => {
  const env = { CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: SECRET, DISABLE_SSL: 'true', LOG_LEVEL: 'debug', LOG_FORMAT: 'json', CAMPFIRE_CODE_CACHE: 'off' }
  const server = await startServer(env, undefined, await command())
  try {
    assert.equal((await fetch(`${server.baseUrl}/up`)).status, 200)
    assert.ok(await until(() => /code cache: off/.test(server.output()), 10_000), server.output())
  } finally {
    await stopServer(server)
  }
})
