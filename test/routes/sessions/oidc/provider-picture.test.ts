import { after, before, test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { blobPath } from '../../../../server/lib/files.ts'
import { isPublicAddress } from '../../../../server/lib/private-network-guard.ts'
import { SESSION_COOKIE } from '../../../../server/plugins/auth.ts'
import { users } from '../../../fixtures.ts'
import { capturedLog, type CapturedLog } from '../../../helper.ts'
import { jpeg } from '../../../support/images.ts'
import { startTestProvider, type TestProvider } from '../../../support/oidc-provider.ts'
import { CALLBACK, sessionCookie, signInAs, ssoApp } from './support.ts'

// The `picture` claim of someone joining through the provider becomes their avatar: fetched
// through the SSRF guard after the sign-in has answered, processed as an uploaded avatar. The
// picture is served by a real HTTP server on loopback, which the guard refuses unless the test
// widens it (as the unfurl tests do); whatever goes wrong, the person still gets in.
let provider: TestProvider
before(async () => {
  provider = await startTestProvider({ after: () => {} })
  provider.allowRedirects([CALLBACK])
})
after(() => provider.close())

const allowLoopback = { isAllowed: (address: string) => address === '127.0.0.1' || isPublicAddress(address) }

async function pictureServer(t: TestContext) {
  const photo = await jpeg(300, 200)
  const hits: string[] = []
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '')
    if (req.url === '/ada.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo)
    else if (req.url === '/broken.png') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]))
    else if (req.url === '/stalled.jpg') return // never answers
    else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits }
}

async function eventually(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

function personId(app: FastifyInstance, email: string): number {
  return app.store.read((m) => m.db.prepare('SELECT id FROM users WHERE email_address = ?').pluck().get(email)) as number
}

function avatarOf(app: FastifyInstance, userId: number) {
  return app.store.read((m) => {
    const original = m.avatars.originalFor(userId)
    return original && { original, square: m.avatars.squareOf(original) }
  })
}

function notUsed(log: CapturedLog) {
  return log.lines.filter((line) => line.msg === 'single sign-on picture not used')
}

function filesIn(root: string): string[] {
  if (!existsSync(root)) return []
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}

test("a newcomer's picture becomes their avatar: the original and its square, served at their avatar URL", async (t) => {
  const pictures = await pictureServer(t)
  const { app, config } = await ssoApp(t, provider, { picturePolicy: allowLoopback })
  provider.people.set('ada-sub', { email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace', picture: `${pictures.base}/ada.jpg` })
  const { response } = await signInAs(app, provider, 'ada-sub')
  assert.equal(response.statusCode, 302, response.body.slice(0, 300))
  const ada = personId(app, 'ada@example.com')
  await eventually(() => avatarOf(app, ada)?.square !== undefined, "Ada's avatar")
  const { original, square } = avatarOf(app, ada)!
  assert.equal(original.content_type, 'image/jpeg')
  assert.deepEqual(pictures.hits, ['/ada.jpg'])
  assert.ok(existsSync(blobPath(config.filesPath, original.key)!), 'the original is on disk')
  const squareFile = blobPath(config.filesPath, square!.key)!
  const { width, height, format } = await sharp(squareFile).metadata()
  assert.deepEqual({ width, height, format }, { width: 300, height: 200, format: 'webp' }, 'the WebP an uploaded 300×200 photo gets')

  const cookie = `${SESSION_COOKIE}=${sessionCookie(response)}`
  const profile = await app.inject({ method: 'GET', url: '/users/me/profile', headers: { cookie } })
  const avatarUrl = profile.body.match(/src="(\/users\/[^"]+\/avatar[^"]*)"/)?.[1]?.replaceAll('&amp;', '&')
  assert.ok(avatarUrl, 'the profile shows an avatar image')
  const served = await app.inject({ method: 'GET', url: avatarUrl, headers: { cookie } })
  assert.equal(served.statusCode, 200)
  assert.equal(served.headers['content-type'], 'image/webp')
})

test('a picture at a private address is refused by the guard; the newcomer still joins, with initials and one log line', async (t) => {
  const pictures = await pictureServer(t)
  const log = capturedLog()
  const { app } = await ssoApp(t, provider, { logger: { level: 'info', stream: log.stream } })
  provider.people.set('grace-sub', { email: 'grace@example.com', email_verified: true, name: 'Grace Hopper', picture: `${pictures.base}/ada.jpg` })
  const { response } = await signInAs(app, provider, 'grace-sub')
  assert.equal(response.statusCode, 302, response.body.slice(0, 300))
  assert.ok(sessionCookie(response), 'signed in')
  const grace = personId(app, 'grace@example.com')
  await eventually(() => notUsed(log).length > 0, 'the log line')
  assert.equal(notUsed(log).length, 1)
  assert.match(String(notUsed(log)[0]!.reason), /non-public 127\.0\.0\.1/)
  assert.equal(notUsed(log)[0]!.picture, pictures.base, 'only the origin is logged')
  assert.deepEqual(pictures.hits, [], 'the loopback server was never reached')
  assert.equal(avatarOf(app, grace), undefined)
  assert.deepEqual(log.errors, [])
})

test('a picture that is not an image sharp can read leaves no avatar and no file behind', async (t) => {
  const pictures = await pictureServer(t)
  const log = capturedLog()
  const { app, config } = await ssoApp(t, provider, { picturePolicy: allowLoopback, logger: { level: 'info', stream: log.stream } })
  const filesBefore = filesIn(config.filesPath)
  provider.people.set('linus-sub', { email: 'linus@example.com', email_verified: true, picture: `${pictures.base}/broken.png` })
  const { response } = await signInAs(app, provider, 'linus-sub')
  assert.equal(response.statusCode, 302)
  await eventually(() => notUsed(log).length > 0, 'the log line')
  assert.match(String(notUsed(log)[0]!.reason), /not a picture we can use/)
  assert.equal(avatarOf(app, personId(app, 'linus@example.com')), undefined)
  assert.deepEqual(filesIn(config.filesPath), filesBefore, 'the fetched file was removed')
})

test('a picture server that never answers does not hold up the sign-in', async (t) => {
  const pictures = await pictureServer(t)
  const { app } = await ssoApp(t, provider, { picturePolicy: allowLoopback })
  provider.people.set('barbara-sub', { email: 'barbara@example.com', email_verified: true, picture: `${pictures.base}/stalled.jpg` })
  const started = Date.now()
  const { response, callback } = await signInAs(app, provider, 'barbara-sub')
  assert.equal(response.statusCode, 302)
  assert.ok(callback)
  assert.ok(Date.now() - started < 4000, `signed in after ${Date.now() - started} ms, well inside the picture's 5 s`)
  await eventually(() => pictures.hits.includes('/stalled.jpg'), 'the picture request')
  assert.equal(avatarOf(app, personId(app, 'barbara@example.com')), undefined)
})

test('someone already here gets the picture when they first link, only without an avatar, and never again after removing it', async (t) => {
  const pictures = await pictureServer(t)
  const { app } = await ssoApp(t, provider, { picturePolicy: allowLoopback })
  provider.people.set('kevin-sub', { email: 'kevin@37signals.com', email_verified: true, picture: `${pictures.base}/ada.jpg` })
  const first = await signInAs(app, provider, 'kevin-sub')
  assert.equal(first.response.statusCode, 302)
  await eventually(() => avatarOf(app, users.kevin.id) !== undefined, "Kevin's avatar")

  const cookie = `${SESSION_COOKIE}=${sessionCookie(first.response)}`
  const removed = await app.inject({ method: 'DELETE', url: '/users/me/avatar', headers: { cookie, 'sec-fetch-site': 'same-origin' } })
  assert.ok(removed.statusCode < 400, `removed: ${removed.statusCode}`)
  assert.equal(avatarOf(app, users.kevin.id), undefined)
  const again = await signInAs(app, provider, 'kevin-sub')
  assert.equal(again.response.statusCode, 302)
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(avatarOf(app, users.kevin.id), undefined, 'a later sign-in leaves the removed avatar removed')
  assert.equal(pictures.hits.length, 1, 'fetched once, at the link')
})
