import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { caddyProgram } from '../../../server/build/caddy.ts'
import { SECRET_KEY_BASE, tempStorage } from '../../helper.ts'
import { accepts, freePort } from '../../support/ports.ts'
import { ROOT, startServer, stopServer } from '../../support/server-process.ts'
import { selfSignedCertificate, shownInOperations, walkThrough, type Proxy } from './support/through-proxy.ts'

// docs/proxies/Caddyfile, as docs/operations.md shows it, run in Debian's Caddy in front of a
// real server: only the host's own values are put in (ports, a self-signed certificate instead
// of one from Let's Encrypt, loopback only, no admin endpoint, its files in the test's folder).
const CONFIG = join(ROOT, 'docs', 'proxies', 'Caddyfile')

describe('the Caddy configuration in the docs', { skip: !caddyProgram() && 'caddy is missing (npm test’s pretest unpacks Debian’s)' }, () => {
  test('is the one docs/operations.md shows', () => {
    assert.equal(shownInOperations('Caddyfile'), readFileSync(CONFIG, 'utf8'))
  })

  test('serves pages, posts, uploads up to the limit, live messages over /cable over TLS, and counts sign-ins by the address Caddy saw', { timeout: 600_000 }, async (t) => {
    const storage = tempStorage(t)
    const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, TRUSTED_PROXIES: 'loopback', CAMPFIRE_MIN_FREE_MB: '0' })
    t.after(() => stopServer(server))
    await walkThrough(t, await startCaddy(t, storage, Number(new URL(server.baseUrl).port)), 'caddy')
  })
})

async function startCaddy(t: { after: (fn: () => void) => void }, folder: string, serverPort: number): Promise<Proxy> {
  const [httpPort, tlsPort] = [await freePort(), await freePort()]
  const { cert, key } = selfSignedCertificate(folder)
  const global = ['admin off', `http_port ${httpPort}`, `https_port ${tlsPort}`, 'default_bind 127.0.0.1', `storage file_system ${join(folder, 'caddy-data')}`]
  const site = readFileSync(CONFIG, 'utf8')
    .replace(/^\{\n/m, `{\n${global.map((line) => `\t${line}\n`).join('')}`)
    .replace(/^chat\.example\.com \{\n/m, `localhost {\n\ttls ${cert} ${key}\n`)
    .replace('reverse_proxy 127.0.0.1:3000', `reverse_proxy 127.0.0.1:${serverPort}`)
  writeFileSync(join(folder, 'Caddyfile'), site)
  const env = { ...process.env, HOME: folder, XDG_CONFIG_HOME: join(folder, 'caddy-config'), XDG_DATA_HOME: join(folder, 'caddy-data') }
  const caddy = spawn(caddyProgram()!, ['run', '--config', join(folder, 'Caddyfile'), '--adapter', 'caddyfile'], { stdio: ['ignore', 'pipe', 'pipe'], env })
  let log = ''
  caddy.stderr.on('data', (chunk) => (log += chunk))
  t.after(() => caddy.kill('SIGTERM'))
  for (let i = 0; !(await accepts(tlsPort)); i++) {
    assert.ok(caddy.exitCode === null && i < 200, `caddy did not start:\n${log}`)
    await sleep(50)
  }
  // Debian 12's Caddy 2.6.2 answers a body cut off at request_body's max_size with 502.
  return { httpPort, tlsPort, ca: readFileSync(cert, 'utf8'), redirect: { status: 308, location: 'https://localhost/up' }, overLimit: { byLength: false, status: 502 } }
}
