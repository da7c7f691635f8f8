import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { nginxProgram } from '../../../server/build/nginx.ts'
import { SECRET_KEY_BASE, tempStorage } from '../../helper.ts'
import { accepts, freePort } from '../../support/ports.ts'
import { ROOT, startServer, stopServer } from '../../support/server-process.ts'
import { selfSignedCertificate, shownInOperations, walkThrough, type Proxy } from './support/through-proxy.ts'

// docs/proxies/nginx.conf, as docs/operations.md shows it, run in Debian's nginx in front of a
// real server: only the host's own values are put in (ports, the certificate, no IPv6 listen).
const CONFIG = join(ROOT, 'docs', 'proxies', 'nginx.conf')

describe('the nginx configuration in the docs', { skip: !nginxProgram() && 'nginx is missing (npm test’s pretest unpacks Debian’s)' }, () => {
  test('is the one docs/operations.md shows', () => {
    assert.equal(shownInOperations('nginx.conf'), readFileSync(CONFIG, 'utf8'))
  })

  test('serves pages, posts, uploads up to the limit, live messages over /cable over TLS, and counts sign-ins by the address nginx saw', { timeout: 600_000 }, async (t) => {
    const storage = tempStorage(t)
    const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, TRUSTED_PROXIES: 'loopback', CAMPFIRE_MIN_FREE_MB: '0' })
    t.after(() => stopServer(server))
    await walkThrough(t, await startNginx(t, storage, Number(new URL(server.baseUrl).port)), 'nginx')
  })
})

// nginx in the foreground with the docs' file inside a minimal main configuration of its own.
async function startNginx(t: { after: (fn: () => void) => void }, folder: string, serverPort: number): Promise<Proxy> {
  const [httpPort, tlsPort] = [await freePort(), await freePort()]
  const { cert, key } = selfSignedCertificate(folder)
  const site = readFileSync(CONFIG, 'utf8')
    .replace('server 127.0.0.1:3000;', `server 127.0.0.1:${serverPort};`)
    .replace(/^ *listen \[::\].*\n/gm, '')
    .replace('listen 80;', `listen 127.0.0.1:${httpPort};`)
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${tlsPort} ssl http2;`)
    .replace('/etc/letsencrypt/live/chat.example.com/fullchain.pem', cert)
    .replace('/etc/letsencrypt/live/chat.example.com/privkey.pem', key)
  writeFileSync(join(folder, 'campfire.conf'), site)
  // Run as root, nginx's workers would otherwise become `nobody`, who cannot use the temp folders.
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  const main = [
    root ? 'user root;' : '',
    'worker_processes 1;',
    `pid ${join(folder, 'nginx.pid')};`,
    'error_log stderr warn;',
    'events { worker_connections 256; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(folder, `${kind}-temp`)};`),
    `  include ${join(folder, 'campfire.conf')};`,
    '}',
  ]
  writeFileSync(join(folder, 'nginx.conf'), main.join('\n'))
  const nginx = spawn(nginxProgram()!, ['-p', folder, '-c', join(folder, 'nginx.conf'), '-e', 'stderr', '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  nginx.stderr.on('data', (chunk) => (log += chunk))
  t.after(() => nginx.kill('SIGQUIT'))
  for (let i = 0; !(await accepts(tlsPort)); i++) {
    assert.ok(nginx.exitCode === null && i < 200, `nginx did not start:\n${log}`)
    await sleep(50)
  }
  return { httpPort, tlsPort, ca: readFileSync(cert, 'utf8'), redirect: { status: 301, location: 'https://localhost/up' }, overLimit: { byLength: true, status: 413 } }
}
