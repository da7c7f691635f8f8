import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { IncomingHttpHeaders } from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'

// A push service of the test's own: HTTPS on loopback with a certificate made here by the
// openssl CLI, keeping every request it receives and answering as the test says (or never).
// And a browser's side of a subscription: its P-256 key pair and auth secret, which decrypt
// what arrives (RFC 8291, aes128gcm), and a reader for the VAPID JWT (RFC 8292) that checks
// its ES256 signature against the server's public key.
export interface ReceivedPush {
  path: string
  headers: IncomingHttpHeaders
  body: Buffer
}

export type Answer = { status: number; body?: string } | 'hang'

export interface PushService {
  origin: string
  ca: string
  received: ReceivedPush[]
  endpoint(path: string): string
  // Resolves with the nth request (counting from 1) once it has arrived.
  request(n: number): Promise<ReceivedPush>
}

let certificate: { key: string; cert: string } | null = null

function selfSigned(): { key: string; cert: string } {
  if (certificate) return certificate
  const dir = mkdtempSync(join(tmpdir(), 'campfire-push-cert-'))
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    ], { stdio: 'ignore' })
    certificate = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') }
    return certificate
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function startPushService(t: { after: (fn: () => Promise<void>) => void }, answer: (path: string) => Answer = () => ({ status: 201 })): Promise<PushService> {
  const { key, cert } = selfSigned()
  const received: ReceivedPush[] = []
  const waiting: { n: number; resolve: (push: ReceivedPush) => void }[] = []
  const server = https.createServer({ key, cert }, (request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const push = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) }
      received.push(push)
      for (const waiter of waiting.filter((w) => w.n === received.length)) waiter.resolve(push)
      const reply = answer(push.path)
      if (reply !== 'hang') response.writeHead(reply.status).end(reply.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  }))
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    ca: cert,
    received,
    endpoint: (path) => `${origin}${path}`,
    request: (n) => (received.length >= n ? Promise.resolve(received[n - 1]!) : new Promise((resolve) => waiting.push({ n, resolve }))),
  }
}

export interface BrowserSubscription {
  endpoint: string
  p256dh_key: string
  auth_key: string
  // The payload of a push body this subscription's keys decrypt.
  decrypt(body: Buffer): string
}

export function browserSubscription(endpoint: string): BrowserSubscription {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  const auth = randomBytes(16)
  return { endpoint, p256dh_key: ecdh.getPublicKey().toString('base64url'), auth_key: auth.toString('base64url'), decrypt: (body) => decryptAes128gcm(body, ecdh, auth) }
}

// What Campfire's pushes carry (server/models/room/message-pusher.ts), once decrypted.
export interface PushPayload {
  title: string
  options: { body: string; icon: string; data: { path: string; badge: number } }
}

// Every push this service received for the subscription, decrypted with its keys, in order.
export function decryptedPushes(service: Pick<PushService, 'received'>, subscription: BrowserSubscription): PushPayload[] {
  const path = new URL(subscription.endpoint).pathname
  return service.received.filter((r) => r.path === path).map((r) => JSON.parse(subscription.decrypt(r.body)) as PushPayload)
}

// RFC 8188's header (salt, record size, the sender's public key), then RFC 8291's keys: the
// shared secret and auth secret give the IKM, which with the salt gives the content key and nonce.
export function decryptAes128gcm(body: Buffer, ecdh: ECDH, authSecret: Buffer): string {
  const salt = body.subarray(0, 16)
  const recordSize = body.readUInt32BE(16)
  const keyLength = body[20]!
  const senderKey = body.subarray(21, 21 + keyLength)
  const record = body.subarray(21 + keyLength)
  assert.ok(record.length <= recordSize, 'one record')
  const info = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), senderKey])
  const ikm = Buffer.from(hkdfSync('sha256', ecdh.computeSecret(senderKey), authSecret, info, 32))
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16))
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12))
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce)
  decipher.setAuthTag(record.subarray(-16))
  const padded = Buffer.concat([decipher.update(record.subarray(0, -16)), decipher.final()])
  let end = padded.length - 1
  while (end >= 0 && padded[end] === 0) end--
  assert.equal(padded[end], 2, 'the last record ends with the 0x02 delimiter')
  return padded.subarray(0, end).toString('utf8')
}

export interface VapidClaims {
  aud: string
  exp: number
  sub: string
}

// `Authorization: vapid t=<JWT>, k=<public key>`: the key must be the server's, and the JWT's
// ES256 signature must verify with it. Answers the claims.
export function vapidClaims(authorization: string | undefined, publicKey: string): VapidClaims {
  const match = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(authorization ?? '')
  assert.ok(match, `a VAPID authorization header, got ${authorization}`)
  const [, header, claims, signature, key] = match as unknown as [string, string, string, string, string]
  assert.equal(key, publicKey)
  assert.deepEqual(JSON.parse(Buffer.from(header, 'base64url').toString()), { typ: 'JWT', alg: 'ES256' })
  const raw = Buffer.from(publicKey, 'base64url')
  const jwk = { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') }
  const verified = verify('sha256', Buffer.from(`${header}.${claims}`), { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))
  assert.ok(verified, 'the JWT is signed with the VAPID private key')
  return JSON.parse(Buffer.from(claims, 'base64url').toString()) as VapidClaims
}

// A VAPID key pair as the environment gives it (URL-safe base64, no padding).
export function vapidKeys(): { publicKey: string; privateKey: string } {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  const secret = ecdh.getPrivateKey()
  return { publicKey: ecdh.getPublicKey().toString('base64url'), privateKey: Buffer.concat([Buffer.alloc(32 - secret.length), secret]).toString('base64url') }
}
