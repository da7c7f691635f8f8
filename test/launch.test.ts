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

const envFor = (t: { after: (fn: () => void) => void }, extra: Record<string, string> = {}) => ({ CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE: SECRET, DISABLE_SSL: 'true', LOG_LEVEL: 'debug', LOG_FORMAT: 'json', ...extra })

// Starts the compiled server, waits for `pattern` in its log, checks /up, and stops it.
async function startAndSee(env: Record<string, string>, pattern: RegExp): Promise<void> {
  const server = await startServer(env, undefined, await command())
  try {
    assert.equal((await fetch(`${server.baseUrl}/up`)).status, 200)
    assert.ok(await until(() => pattern.test(server.output()), 10_000), server.output())
  } finally {
    await stopServer(server)
  }
}

test('the compiled server writes its code cache a second after its first start listens, and the next start runs from it', { timeout: 60_000 }, async (t) => {
  const env = envFor(t)
  await startAndSee(env, /code cache: written/)
  await startAndSee(env, /code cache: used/)
})

test('with CAMPFIRE_CODE_CACHE=off the compiled server starts and answers without one', { timeout: 60_000 }, async (t) => {
  await startAndSee(envFor(t, { CAMPFIRE_CODE_CACHE: 'off' }), /code cache: off/)
})
