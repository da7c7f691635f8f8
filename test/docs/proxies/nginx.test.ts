import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { nginxProgram } from '../../../server/build/nginx.ts'
import { chromiumAvailable, launchBrowser, waitUntilLive } from '../../browser/support/browser.ts'
import { SECRET_KEY_BASE, tempStorage } from '../../helper.ts'
import { multipart } from '../../support/multipart.ts'
import { accepts, freePort } from '../../support/ports.ts'
import { ROOT, startServer, stopServer } from '../../support/server-process.ts'

// docs/proxies/nginx.conf, as docs/operations.md shows it, run in Debian's nginx in front of a
// real server: only the host's own values are put in (ports, the certificate, no IPv6 listen).
const CONFIG = join(ROOT, 'docs', 'proxies', 'nginx.conf')
const MB = 1024 * 1024
const TURBO = 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml'

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

interface Proxy {
  httpPort: number
  tlsPort: number
  ca: string
}

describe('the nginx configuration in the docs', { skip: !nginxProgram() && 'nginx is missing (npm test’s pretest unpacks Debian’s)' }, () => {
  test('is the one docs/operations.md shows', () => {
    const operations = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8')
    const shown = /<!-- docs\/proxies\/nginx\.conf -->\s*```nginx\n([\s\S]*?)```/.exec(operations)
    assert.ok(shown, 'docs/operations.md shows docs/proxies/nginx.conf')
    assert.equal(shown[1], readFileSync(CONFIG, 'utf8'))
  })

  test('serves pages, posts, uploads up to the limit, live messages over /cable over TLS, and counts sign-ins by the address nginx saw', { timeout: 600_000 }, async (t) => {
    const storage = tempStorage(t)
    const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, TRUSTED_PROXIES: 'loopback', CAMPFIRE_MIN_FREE_MB: '0' })
    t.after(() => stopServer(server))
    const proxy = await startNginx(t, storage, Number(new URL(server.baseUrl).port))

    // Plain HTTP is sent to HTTPS.
    const plain = await send(proxy, { tls: false, path: '/up' })
    assert.equal(plain.status, 301)
    assert.equal(plain.headers.location, 'https://localhost/up')

    // A page and a post.
    const first = await send(proxy, { method: 'POST', path: '/first_run', form: { 'user[name]': 'Ada', 'user[email_address]': 'ada@example.com', 'user[password]': 'secret123456' } })
    assert.equal(first.status, 302)
    const cookie = cookiesOf(first)
    assert.match(cookie, /session_token=/)
    const roomPath = (await send(proxy, { path: '/', cookie })).headers.location as string
    assert.match(roomPath, /^\/rooms\/\d+$/)
    const page = await send(proxy, { path: roomPath, cookie })
    assert.equal(page.status, 200)
    assert.match(page.body, /<turbo-cable-stream-source/)
    assert.equal(page.headers['strict-transport-security'] !== undefined, true, 'the server saw https (X-Forwarded-Proto) and sent HSTS')
    const posted = await send(proxy, { method: 'POST', path: `${roomPath}/messages`, cookie, accept: TURBO, form: { 'message[body]': 'Through nginx', 'message[client_message_id]': 'nginx-1' } })
    assert.equal(posted.status, 200)

    // A live message over /cable: a browser on the room hears a post from elsewhere.
    if (chromiumAvailable()) {
      const context = await (await launchBrowser(t)).newContext({ baseURL: `https://localhost:${proxy.tlsPort}`, ignoreHTTPSErrors: true })
      await context.addCookies(cookie.split('; ').map((pair) => ({ name: pair.split('=')[0]!, value: pair.slice(pair.indexOf('=') + 1), url: `https://localhost:${proxy.tlsPort}` })))
      const browserPage = await context.newPage()
      const sockets: string[] = []
      browserPage.on('websocket', (socket) => sockets.push(socket.url()))
      await browserPage.goto(roomPath)
      await waitUntilLive(browserPage)
      await send(proxy, { method: 'POST', path: `${roomPath}/messages`, cookie, accept: TURBO, form: { 'message[body]': 'Heard live through nginx', 'message[client_message_id]': 'nginx-2' } })
      await browserPage.locator('#message-area .message', { hasText: 'Heard live through nginx' }).waitFor({ timeout: 15_000 })
      assert.deepEqual(sockets, [`wss://localhost:${proxy.tlsPort}/cable`])
    } else t.diagnostic('chromium is missing: the live message over /cable was not tried')

    // An upload of exactly CAMPFIRE_MAX_UPLOAD_MB is taken; one byte more is refused by the
    // server (nginx lets the form through), and a body over nginx's limit by nginx itself.
    const atLimit = await upload(proxy, cookie, roomPath, 100 * MB, 'at-limit')
    assert.equal(atLimit.status, 200, atLimit.body.slice(0, 300))
    const overServer = await upload(proxy, cookie, roomPath, 100 * MB + 1, 'over-limit')
    assert.equal(overServer.status, 413)
    const overNginx = await send(proxy, { method: 'POST', path: `${roomPath}/messages`, cookie, headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(102 * MB) }, body: Buffer.alloc(0), bodyless: true })
    assert.equal(overNginx.status, 413)
    assert.match(overNginx.body, /nginx/)

    // Sign-ins are counted by the address nginx saw (10 a window): another client is not
    // limited with the first, and a forged X-Forwarded-For does not make the first someone else.
    const signIn = (localAddress: string, headers: Record<string, string> = {}) => send(proxy, { method: 'POST', path: '/session', localAddress, headers, form: { email_address: 'ada@example.com', password: 'wrong password' } })
    for (let i = 0; i < 10; i++) assert.equal((await signIn('127.0.0.2')).status, 401)
    assert.equal((await signIn('127.0.0.2')).status, 429)
    assert.equal((await signIn('127.0.0.2', { 'x-forwarded-for': '203.0.113.9' })).status, 429)
    assert.equal((await signIn('127.0.0.3')).status, 401)
  })
})

// nginx in the foreground with the docs' file inside a minimal main configuration of its own.
async function startNginx(t: { after: (fn: () => void) => void }, folder: string, serverPort: number): Promise<Proxy> {
  const [httpPort, tlsPort] = [await freePort(), await freePort()]
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', join(folder, 'key.pem'), '-out', join(folder, 'cert.pem')], { stdio: 'ignore' })
  const site = readFileSync(CONFIG, 'utf8')
    .replace('server 127.0.0.1:3000;', `server 127.0.0.1:${serverPort};`)
    .replace(/^ *listen \[::\].*\n/gm, '')
    .replace('listen 80;', `listen 127.0.0.1:${httpPort};`)
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${tlsPort} ssl http2;`)
    .replace('/etc/letsencrypt/live/chat.example.com/fullchain.pem', join(folder, 'cert.pem'))
    .replace('/etc/letsencrypt/live/chat.example.com/privkey.pem', join(folder, 'key.pem'))
  writeFileSync(join(folder, 'campfire.conf'), site)
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  writeFileSync(
    join(folder, 'nginx.conf'),
    [
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
    ].join('\n'),
  )
  const nginx = spawn(nginxProgram()!, ['-p', folder, '-c', join(folder, 'nginx.conf'), '-e', 'stderr', '-g', 'daemon off;'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  nginx.stderr.on('data', (chunk) => (log += chunk))
  t.after(() => nginx.kill('SIGQUIT'))
  for (let i = 0; !(await accepts(tlsPort)); i++) {
    assert.ok(nginx.exitCode === null && i < 200, `nginx did not start:\n${log}`)
    await sleep(50)
  }
  return { httpPort, tlsPort, ca: readFileSync(join(folder, 'cert.pem'), 'utf8') }
}

interface Sent {
  method?: string
  path: string
  tls?: boolean
  cookie?: string
  accept?: string
  form?: Record<string, string>
  headers?: Record<string, string>
  body?: Buffer
  // Send the headers only (a body nginx refuses before reading it).
  bodyless?: boolean
  localAddress?: string
}

// One request through nginx, over TLS unless told, from the given loopback address.
function send(proxy: Proxy, sent: Sent): Promise<Answer> {
  const tls = sent.tls ?? true
  const body = sent.form ? Buffer.from(new URLSearchParams(sent.form).toString()) : sent.body
  const headers: Record<string, string> = { host: 'localhost', 'sec-fetch-site': 'same-origin', ...(sent.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(sent.cookie ? { cookie: sent.cookie } : {}), ...(sent.accept ? { accept: sent.accept } : {}), ...sent.headers }
  if (body && !sent.bodyless) headers['content-length'] = String(body.length)
  const options = { host: '127.0.0.1', port: tls ? proxy.tlsPort : proxy.httpPort, method: sent.method ?? 'GET', path: sent.path, headers, localAddress: sent.localAddress, ca: proxy.ca, servername: 'localhost', agent: false as const }
  return new Promise((resolve, reject) => {
    const req = (tls ? httpsRequest : httpRequest)(options, (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, body: text })
        if (sent.bodyless) req.destroy()
      })
    })
    req.on('error', reject)
    if (sent.bodyless) req.flushHeaders()
    else req.end(body)
  })
}

function upload(proxy: Proxy, cookie: string, roomPath: string, bytes: number, id: string): Promise<Answer> {
  const form = multipart([{ name: 'message[client_message_id]', value: id }, { name: 'message[attachment]', filename: `${id}.bin`, type: 'application/octet-stream', data: Buffer.alloc(bytes, 7) }], { accept: TURBO })
  return send(proxy, { method: 'POST', path: `${roomPath}/messages`, cookie, headers: form.headers, body: form.payload })
}

function cookiesOf(answer: Answer): string {
  const set = answer.headers['set-cookie'] as string[] | undefined
  return (set ?? []).map((header) => header.split(';')[0]).join('; ')
}
