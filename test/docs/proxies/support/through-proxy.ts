import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { join } from 'node:path'
import { chromiumAvailable, launchBrowser, waitUntilLive } from '../../../browser/support/browser.ts'
import { multipart } from '../../../support/multipart.ts'
import { ROOT } from '../../../support/server-process.ts'

// What the proxy tests share: a request through the proxy from a chosen loopback address, and
// the walk through a Campfire behind it that docs/operations.md promises.
const MB = 1024 * 1024
const TURBO = 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml'

export interface Proxy {
  httpPort: number
  tlsPort: number
  // The self-signed certificate the proxy serves.
  ca: string
  // What plain HTTP to /up is answered with.
  redirect: { status: number; location: string }
  // How a body over the proxy's limit is refused: from its Content-Length before it is sent
  // (nginx), or once the proxy has counted past the limit (Caddy), and with what status.
  overLimit: { byLength: boolean; status: number }
}

export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

// The block docs/operations.md shows under `<!-- docs/proxies/NAME -->`.
export function shownInOperations(name: string): string | null {
  const operations = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8')
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`<!-- docs/proxies/${escaped} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(operations)?.[1] ?? null
}

// A certificate for localhost and 127.0.0.1, made with the openssl command.
export function selfSignedCertificate(folder: string): { cert: string; key: string } {
  const cert = join(folder, 'cert.pem')
  const key = join(folder, 'key.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' })
  return { cert, key }
}

// The server behind the proxy runs with TRUSTED_PROXIES=loopback and without DISABLE_SSL.
export async function walkThrough(t: { diagnostic: (message: string) => void; after: (fn: () => Promise<void>) => void }, proxy: Proxy, proxyName: string): Promise<void> {
  // Plain HTTP is sent to HTTPS.
  const plain = await send(proxy, { tls: false, path: '/up' })
  assert.deepEqual({ status: plain.status, location: plain.headers.location }, proxy.redirect)

  // A page and a post, the server knowing it was HTTPS.
  const first = await send(proxy, { method: 'POST', path: '/first_run', form: { 'user[name]': 'Ada', 'user[email_address]': 'ada@example.com', 'user[password]': 'secret123456' } })
  assert.equal(first.status, 302)
  const cookie = cookiesOf(first)
  assert.match(cookie, /session_token=/)
  const roomPath = (await send(proxy, { path: '/', cookie })).headers.location as string
  assert.match(roomPath, /^\/rooms\/\d+$/)
  const page = await send(proxy, { path: roomPath, cookie })
  assert.equal(page.status, 200)
  assert.match(page.body, /<turbo-cable-stream-source/)
  assert.ok(page.headers['strict-transport-security'], 'the server believed X-Forwarded-Proto: https and sent HSTS')
  const posted = await send(proxy, { method: 'POST', path: `${roomPath}/messages`, cookie, accept: TURBO, form: { 'message[body]': `Through ${proxyName}`, 'message[client_message_id]': 'proxied-1' } })
  assert.equal(posted.status, 200)

  // A live message over /cable: a browser on the room hears a post from elsewhere.
  if (chromiumAvailable()) {
    const origin = `https://localhost:${proxy.tlsPort}`
    const context = await (await launchBrowser(t)).newContext({ baseURL: origin, ignoreHTTPSErrors: true })
    await context.addCookies(cookie.split('; ').map((pair) => ({ name: pair.split('=')[0]!, value: pair.slice(pair.indexOf('=') + 1), url: origin })))
    const tab = await context.newPage()
    const sockets: string[] = []
    tab.on('websocket', (socket) => sockets.push(socket.url()))
    await tab.goto(roomPath)
    await waitUntilLive(tab)
    await send(proxy, { method: 'POST', path: `${roomPath}/messages`, cookie, accept: TURBO, form: { 'message[body]': `Heard live through ${proxyName}`, 'message[client_message_id]': 'proxied-2' } })
    await tab.locator('#message-area .message', { hasText: `Heard live through ${proxyName}` }).waitFor({ timeout: 15_000 })
    assert.deepEqual(sockets, [`wss://localhost:${proxy.tlsPort}/cable`])
  } else t.diagnostic('chromium is missing: the live message over /cable was not tried')

  // An upload of exactly CAMPFIRE_MAX_UPLOAD_MB is taken; one byte more is refused by the
  // server (the proxy lets the form through), and a body over the proxy's limit is refused.
  const atLimit = await upload(proxy, cookie, roomPath, 100 * MB, 'at-limit')
  assert.equal(atLimit.status, 200, atLimit.body.slice(0, 300))
  const overServer = await upload(proxy, cookie, roomPath, 100 * MB + 1, 'over-limit')
  assert.equal(overServer.status, 413)
  if (proxy.overLimit.byLength) {
    const overProxy = await send(proxy, { method: 'POST', path: `${roomPath}/messages`, cookie, headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(102 * MB) }, bodyless: true })
    assert.equal(overProxy.status, proxy.overLimit.status)
    assert.match(overProxy.body, new RegExp(proxyName), 'the proxy refused it')
  } else assert.equal((await upload(proxy, cookie, roomPath, 102 * MB, 'over-proxy')).status, proxy.overLimit.status)
  const messages = await send(proxy, { path: roomPath, cookie })
  assert.doesNotMatch(messages.body, /over-limit\.bin|over-proxy\.bin/, 'nothing over a limit was posted')
  assert.match(messages.body, /at-limit\.bin/)

  // Sign-ins are counted by the address the proxy saw (10 a window): another client is not
  // limited with the first, and a forged X-Forwarded-For does not make the first someone else.
  const signIn = (localAddress: string, headers: Record<string, string> = {}) => send(proxy, { method: 'POST', path: '/session', localAddress, headers, form: { email_address: 'ada@example.com', password: 'wrong password' } })
  for (let i = 0; i < 10; i++) assert.equal((await signIn('127.0.0.2')).status, 401)
  assert.equal((await signIn('127.0.0.2')).status, 429)
  assert.equal((await signIn('127.0.0.2', { 'x-forwarded-for': '203.0.113.9' })).status, 429)
  assert.equal((await signIn('127.0.0.3')).status, 401)
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
  // Send the headers only (a body the proxy refuses before reading it).
  bodyless?: boolean
  localAddress?: string
}

// One request through the proxy, over TLS unless told, from the given loopback address.
export function send(proxy: Proxy, sent: Sent): Promise<Answer> {
  const tls = sent.tls ?? true
  const body = sent.form ? Buffer.from(new URLSearchParams(sent.form).toString()) : sent.body
  const headers: Record<string, string> = { host: `localhost:${tls ? proxy.tlsPort : proxy.httpPort}`, 'sec-fetch-site': 'same-origin', ...(sent.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(sent.cookie ? { cookie: sent.cookie } : {}), ...(sent.accept ? { accept: sent.accept } : {}), ...sent.headers }
  if (body) headers['content-length'] = String(body.length)
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
