import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { SECRET_KEY_BASE, tempStorage } from './helper.ts'
import { compiledServer } from './support/compiled-server.ts'
import { readDockerfile } from './support/dockerfile.ts'
import { freePort } from './support/ports.ts'
import { ROOT, startServer, stopServer } from './support/server-process.ts'

// The image's HEALTHCHECK command, run as the engine runs it (its dist/ is the compiled server's folder).
async function runHealthcheck(env: Record<string, string>): Promise<{ status: number | null; stderr: string; stdout: string }> {
  const { healthcheck } = readDockerfile(join(ROOT, 'Dockerfile'))
  assert.ok(healthcheck, 'the Dockerfile has a HEALTHCHECK')
  const [program, ...args] = healthcheck.cmd
  assert.equal(program, 'node')
  const dist = dirname(await compiledServer())
  // Not spawnSync: a server in this process must go on answering meanwhile.
  const child = spawn(process.execPath, args.map((arg) => arg.replace(/^dist\//, `${dist}/`)), { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve))
  return { status, stderr, stdout }
}

test('the image checks its own health every 30 s, with time to boot, and gives up after three failures', () => {
  const { healthcheck } = readDockerfile(join(ROOT, 'Dockerfile'))
  assert.deepEqual(healthcheck?.options, { interval: '30s', timeout: '5s', 'start-period': '60s', retries: '3' })
  assert.deepEqual(healthcheck?.cmd, ['node', 'dist/healthcheck.js'])
})

test('the health check passes while the server answers /up, and fails in one line once it has stopped', async (t) => {
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: tempStorage(t), SECRET_KEY_BASE, DISABLE_SSL: 'true', HTTP_BIND: '0.0.0.0' })
  t.after(() => stopServer(server))
  const port = new URL(server.baseUrl).port
  assert.deepEqual(await runHealthcheck({ HTTP_PORT: port }), { status: 0, stderr: '', stdout: '' })
  assert.equal((await runHealthcheck({ HTTP_PORT: '', PORT: port })).status, 0, 'PORT when HTTP_PORT is unset, as the server reads them')
  await stopServer(server)
  const stopped = await runHealthcheck({ HTTP_PORT: port })
  assert.equal(stopped.status, 1)
  assert.equal(stopped.stderr, `unhealthy: GET http://127.0.0.1:${port}/up failed (ECONNREFUSED)\n`)
})

test('the health check fails when something other than the server answers on its port', async (t) => {
  const { createServer } = await import('node:http')
  const other = createServer((_request, response) => response.writeHead(503).end('starting'))
  const port = await freePort()
  await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve))
  t.after(() => other.close())
  const result = await runHealthcheck({ HTTP_PORT: String(port), HTTP_BIND: '127.0.0.1' })
  assert.equal(result.status, 1)
  assert.equal(result.stderr, `unhealthy: GET http://127.0.0.1:${port}/up answered 503\n`)
})

test('the health check answers --help without asking anything', async () => {
  const dist = dirname(await compiledServer())
  const help = spawnSync(process.execPath, [join(dist, 'healthcheck.js'), '--help'], { encoding: 'utf8' })
  assert.equal(help.status, 0)
  assert.match(help.stdout, /^Usage: node dist\/healthcheck\.js/)
})
