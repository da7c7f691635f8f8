import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { MetricsConfigError, readMetricsConfig } from '../server/metrics-config.ts'
import { SECRET_KEY_BASE, tempStorage } from './helper.ts'
import { compiledServer } from './support/compiled-server.ts'
import { ROOT } from './support/server-process.ts'

const TOKEN = 'a-token-of-sixteen-or-more'

test('metrics are off unless METRICS_TOKEN or METRICS_BIND is set', () => {
  assert.equal(readMetricsConfig({}, 3000), null)
  assert.equal(readMetricsConfig({ METRICS_TOKEN: ' ', METRICS_BIND: '' }, 3000), null)
  assert.deepEqual(readMetricsConfig({ METRICS_TOKEN: TOKEN }, 3000), { token: TOKEN, bind: null })
})

test('METRICS_BIND takes a loopback address and a port of its own', () => {
  assert.deepEqual(readMetricsConfig({ METRICS_BIND: '127.0.0.1:9394' }, 3000)?.bind, { host: '127.0.0.1', port: 9394 })
  assert.deepEqual(readMetricsConfig({ METRICS_BIND: '[::1]:9394' }, 3000)?.bind, { host: '::1', port: 9394 })
  assert.deepEqual(readMetricsConfig({ METRICS_BIND: 'localhost:0' }, 0)?.bind, { host: 'localhost', port: 0 })
  for (const bind of ['0.0.0.0:9394', '[::]:9394', '10.0.0.5:9394', '192.168.1.2:9394', 'metrics.example.com:9394', '127.0.0.1', '127.0.0.1:99999', ':9394']) {
    assert.throws(() => readMetricsConfig({ METRICS_BIND: bind }, 3000), (error: Error) => error instanceof MetricsConfigError && /METRICS_BIND must be a loopback address and port/.test(error.message), bind)
  }
  assert.throws(() => readMetricsConfig({ METRICS_BIND: '127.0.0.1:3000' }, 3000), /METRICS_BIND needs a port of its own, not HTTP_PORT's 3000/)
})

test('METRICS_TOKEN must be long enough and printable, without spaces', () => {
  for (const token of ['short', 'sixteen chars ok', 'tab\tin-the-middle-of-it']) {
    assert.throws(() => readMetricsConfig({ METRICS_TOKEN: token }, 3000), /METRICS_TOKEN must be at least 16 printable characters/, token)
  }
})

// The server as `npm start` runs it: its exit status and what it said.
async function boot(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [await compiledServer()], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HTTP_PORT: '0', HTTP_BIND: '127.0.0.1', DISABLE_SSL: 'true', SECRET_KEY_BASE, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  clearTimeout(timer)
  return { code, stdout, stderr }
}

test('a METRICS_BIND that is not loopback stops the real boot with one line and exit 78', async (t) => {
  const { code, stdout, stderr } = await boot({ CAMPFIRE_STORAGE_PATH: tempStorage(t), METRICS_BIND: '0.0.0.0:9394' })
  assert.equal(code, 78, stderr + stdout)
  assert.deepEqual(stderr.trimEnd().split('\n'), [
    'Campfire cannot start: METRICS_BIND must be a loopback address and port, e.g. 127.0.0.1:9394, got "0.0.0.0:9394" (metrics are never served to the network this way: use METRICS_TOKEN behind your proxy instead)',
  ])
})

test('a METRICS_BIND port already in use stops the real boot with one line and exit 78', async (t) => {
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  t.after(() => taken.close())
  const port = (taken.address() as { port: number }).port
  for (const workers of [{}, { WEB_CONCURRENCY: '2', REDIS_URL: 'redis://127.0.0.1:9' }] as Record<string, string>[]) {
    const { code, stdout, stderr } = await boot({ CAMPFIRE_STORAGE_PATH: tempStorage(t), METRICS_BIND: `127.0.0.1:${port}`, ...workers })
    assert.equal(code, 78, stderr + stdout)
    const said = `${stderr}${stdout}`.trimEnd().split('\n').filter((line) => /cannot start/.test(line))
    assert.equal(said.length, 1, stderr + stdout)
    assert.match(said[0]!, new RegExp(`Campfire cannot start: METRICS_BIND=127\\.0\\.0\\.1:${port} cannot be listened on: that port is already in use`))
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack')
  }
})
