import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { buildTestApp, form, inject, sameOrigin, signIn } from '../../helper.ts'
import { users, type UserName } from '../../fixtures.ts'
import { transferId, TRANSFER_LINK_EXPIRY_MS } from '../../../server/models/user/transferable.ts'
import { transferLinks } from '../../../server/routes/sessions/transfers.ts'
import { decodeQrCodeId } from '../../../server/lib/qr-code.ts'
import { RailsSigning } from '../../../server/lib/rails/signing.ts'
import { STATUSES } from '../../../server/models/user.ts'

const MINUTE = 60 * 1000

function linkFor(app: FastifyInstance, name: UserName, now = Date.now()): string {
  return transferId(app.signing, users[name], now)
}

// What the self-submitting form sends: a POST with _method=put, from the page itself.
function transfer(app: FastifyInstance, id: string, extra: { cookie?: string; remoteAddress?: string; headers?: Record<string, string> } = {}) {
  const request = form({ _method: 'put' })
  return app.inject({
    method: 'POST',
    url: `/session/transfers/${id}`,
    payload: request.payload,
    headers: { ...request.headers, ...(extra.cookie ? { cookie: extra.cookie } : {}), ...(extra.headers ?? {}) },
    ...(extra.remoteAddress ? { remoteAddress: extra.remoteAddress } : {}),
  })
}

function sessionCookie(response: { cookies: { name: string; value: string }[] }): string | undefined {
  const cookie = response.cookies.find((c) => c.name === 'session_token')
  return cookie ? `session_token=${cookie.value}` : undefined
}

// Who a session cookie belongs to, as the room page "/" leads to says.
async function signedInAs(app: FastifyInstance, cookie: string): Promise<number | null> {
  const root = await inject(app, cookie, { method: 'GET', url: '/' })
  if (root.statusCode !== 302 || !String(root.headers.location).startsWith('/rooms/')) return null
  const room = await inject(app, cookie, { method: 'GET', url: String(root.headers.location) })
  const id = /<meta name="current-user-id" content="(\d+)">/.exec(room.body)
  return id ? Number(id[1]) : null
}

function sessionsOf(app: FastifyInstance, userId: number): number {
  return app.store.read((m) => m.db.prepare('SELECT COUNT(*) FROM sessions WHERE user_id = ?').pluck().get(userId) as number)
}

// GET

test('opening a transfer link shows, to anyone, a form that submits itself as a PUT to the same link', async (t) => {
  const { app } = await buildTestApp(t)
  const id = linkFor(app, 'kevin')
  const response = await app.inject({ method: 'GET', url: `/session/transfers/${id}` })
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.equal(response.headers['cache-control'], 'no-store', 'a page with a secret in its address is never stored')
  const formHtml = /<form [^>]*data-controller="auto-submit"[^>]*>[\s\S]*?<\/form>/.exec(response.body)
  assert.ok(formHtml, 'a closed auto-submit form')
  assert.match(formHtml[0], new RegExp(`action="/session/transfers/${id}"`))
  assert.match(formHtml[0], /method="post"/)
  assert.match(formHtml[0], /<input type="hidden" name="_method" value="put">/)
  assert.match(response.body, /<title>Campfire<\/title>/)
  assert.equal(sessionsOf(app, users.kevin.id), 0, 'opening the link signs nobody in')
})

test('opening a transfer link with any id, even a hostile one, still shows the form, escaped', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: `/session/transfers/${encodeURIComponent('"><script>alert(1)</script>')}` })
  assert.equal(response.statusCode, 200)
  assert.doesNotMatch(response.body, /<script>alert/)
  assert.match(response.body, /action="\/session\/transfers\/&quot;&gt;&lt;script&gt;/)
})

// PUT / PATCH

test('the transfer signs the link’s person in and goes to the root, which takes them to a room', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await transfer(app, linkFor(app, 'kevin'))
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
  const cookie = sessionCookie(response)
  assert.ok(cookie, 'a session cookie')
  assert.equal(await signedInAs(app, cookie), users.kevin.id)
  assert.equal(sessionsOf(app, users.kevin.id), 1)
  const root = await inject(app, cookie, { method: 'GET', url: '/' })
  assert.equal(root.statusCode, 302)
  assert.match(String(root.headers.location), /^\/rooms\/\d+$/)
})

test('the transfer answers PUT and PATCH sent as such, too', async (t) => {
  const { app } = await buildTestApp(t)
  for (const method of ['PUT', 'PATCH'] as const) {
    const response = await app.inject({ method, url: `/session/transfers/${linkFor(app, 'jz')}`, headers: sameOrigin })
    assert.equal(response.statusCode, 302, method)
    assert.ok(sessionCookie(response), method)
  }
  assert.equal(sessionsOf(app, users.jz.id), 2)
})

test('the transfer goes back to where sign-in was asked for, when there was such a place', async (t) => {
  const { app } = await buildTestApp(t)
  const asked = await app.inject({ method: 'GET', url: '/rooms/2' })
  const returnTo = asked.cookies.find((c) => c.name === 'return_to_after_authenticating')
  assert.ok(returnTo)
  const response = await transfer(app, linkFor(app, 'jz'), { cookie: `${returnTo.name}=${returnTo.value}` })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/rooms/2')
})

test('a transfer link opened by someone signed in signs them in as the link’s person instead', async (t) => {
  const { app } = await buildTestApp(t)
  const jason = await signIn(app, 'jason')
  const response = await transfer(app, linkFor(app, 'kevin'), { cookie: jason })
  assert.equal(response.statusCode, 302)
  assert.equal(await signedInAs(app, sessionCookie(response)!), users.kevin.id)
  assert.equal(await signedInAs(app, jason), users.jason.id, 'the other session stays as it was')
})

test('a transfer link works until four hours after it was made, and not from then on', async (t) => {
  const { app } = await buildTestApp(t)
  const stillValid = await transfer(app, linkFor(app, 'kevin', Date.now() - TRANSFER_LINK_EXPIRY_MS + MINUTE))
  assert.equal(stillValid.statusCode, 302)
  const expired = await transfer(app, linkFor(app, 'kevin', Date.now() - TRANSFER_LINK_EXPIRY_MS - 1))
  assert.equal(expired.statusCode, 400)
  assert.equal(sessionCookie(expired), undefined)
  assert.match(expired.body, /invalid or has expired/)
})

test('a tampered, foreign, wrongly purposed or made-up transfer id is a 400 and signs nobody in', async (t) => {
  const { app } = await buildTestApp(t)
  const id = linkFor(app, 'kevin')
  const [payload, digest] = id.split('--') as [string, string]
  const asDavid = Buffer.from(Buffer.from(payload, 'base64url').toString().replace(`"data":${users.kevin.id}`, `"data":${users.david.id}`)).toString('base64url')
  const cases: [string, string][] = [
    ['another person’s id under this digest', `${asDavid}--${digest}`],
    ['a changed digest', `${payload}--${digest.slice(0, -1)}${digest.endsWith('0') ? '1' : '0'}`],
    ['no digest', payload],
    ['signed with another secret', transferId(new RailsSigning('f'.repeat(128)), users.kevin)],
    ['an avatar token', app.signing.signedId('User', users.kevin.id, 'avatar')],
    ['a signed id for another purpose', app.signing.signedId('User', users.kevin.id, 'other')],
    ['a person who does not exist', transferId(app.signing, { id: 999 })],
    ['garbage', 'not-a-transfer-id'],
  ]
  for (const [what, bad] of cases) {
    const response = await transfer(app, encodeURIComponent(bad))
    assert.equal(response.statusCode, 400, what)
    assert.equal(sessionCookie(response), undefined, what)
  }
  assert.equal(app.store.read((m) => m.db.prepare('SELECT COUNT(*) FROM sessions').pluck().get()), 0)
})

test('a transfer link of someone deactivated, banned or a bot is a 400', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = linkFor(app, 'kevin')
  const jz = linkFor(app, 'jz')
  app.store.writeNow((m) => {
    m.db.prepare('UPDATE users SET status = ? WHERE id = ?').run(STATUSES.deactivated, users.kevin.id)
    m.db.prepare('UPDATE users SET status = ? WHERE id = ?').run(STATUSES.banned, users.jz.id)
  })
  assert.equal((await transfer(app, kevin)).statusCode, 400, 'deactivated')
  assert.equal((await transfer(app, jz)).statusCode, 400, 'banned')
  assert.equal((await transfer(app, linkFor(app, 'bender'))).statusCode, 400, 'a bot')
})

test('a transfer from a banned IP address is refused with a 429', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare("INSERT INTO bans (user_id, ip_address, created_at, updated_at) VALUES (?, '203.0.113.9', '2026-03-01', '2026-03-01')").run(users.jz.id))
  const refused = await transfer(app, linkFor(app, 'kevin'), { remoteAddress: '203.0.113.9' })
  assert.equal(refused.statusCode, 429)
  assert.equal(sessionCookie(refused), undefined)
  assert.equal((await app.inject({ method: 'GET', url: `/session/transfers/${linkFor(app, 'kevin')}`, remoteAddress: '203.0.113.9' })).statusCode, 200, 'the page itself still shows')
  assert.equal((await transfer(app, linkFor(app, 'kevin'), { remoteAddress: '203.0.113.10' })).statusCode, 302, 'another address is fine')
})

test('a transfer sent from another site is rejected by forgery protection', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await transfer(app, linkFor(app, 'kevin'), { headers: { 'sec-fetch-site': 'cross-site' } })
  assert.equal(response.statusCode, 422)
  assert.equal(sessionCookie(response), undefined)
})

test('a POST without _method=put is not a transfer', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'POST', url: `/session/transfers/${linkFor(app, 'kevin')}`, ...form({}) })
  assert.equal(response.statusCode, 405)
  assert.equal(sessionCookie(response), undefined)
})

// transferLinks, for the blocks that show a link

test('transferLinks gives the absolute link on the request’s origin and the path of its QR code', async (t) => {
  const { app } = await buildTestApp(t)
  const request = { headers: { host: 'chat.example.com' }, protocol: 'https' } as unknown as FastifyRequest
  const { url, qrCodePath } = transferLinks(app, request, users.kevin)
  const match = /^https:\/\/chat\.example\.com\/session\/transfers\/([^/]+)$/.exec(url)
  assert.ok(match, url)
  assert.equal(app.signing.verifySignedId('User', match[1]!, 'transfer'), users.kevin.id)
  assert.ok(qrCodePath.startsWith('/qr_code/'))
  assert.equal(decodeQrCodeId(qrCodePath.slice('/qr_code/'.length)), url)
  const qr = await app.inject({ method: 'GET', url: qrCodePath })
  assert.equal(qr.statusCode, 200)
  assert.equal(qr.headers['content-type'], 'image/svg+xml')
})

test('the transfer block shows the link, its QR code in the lightbox, and copy and share buttons', async (t) => {
  const { app } = await buildTestApp(t)
  const url = 'http://localhost/session/transfers/abc--def'
  const html = app.renderPartial('/sessions/transfers/_transfer', { url, qrCodePath: '/qr_code/xyz=' })
  assert.match(html, /<input type="text" class="input share-link__url" value="http:\/\/localhost\/session\/transfers\/abc--def" id="session_transfer_url" readonly>/)
  assert.match(html, /<label [^>]*for="session_transfer_url">Use this link to log in automatically on another device<\/label>/)
  assert.match(html, /<a href="\/qr_code\/xyz=" class="btn"[^>]* data-lightbox[ >][\s\S]*?Show auto-login QR code<\/span><\/a>/)
  assert.doesNotMatch(html, /data-lightbox-target/, 'the link is not taken for the lightbox’s own image')
  assert.match(html, /data-controller="copy-to-clipboard"[^>]*data-copy-to-clipboard-content-value="http:\/\/localhost\/session\/transfers\/abc--def"[\s\S]*?Copy auto-login link/)
  assert.match(html, /hidden data-controller="web-share"[^>]*data-web-share-url-value="http:\/\/localhost\/session\/transfers\/abc--def"[\s\S]*?Share auto-login link/)
  const forAdmin = app.renderPartial('/sessions/transfers/_transfer', { url, qrCodePath: '/qr_code/xyz=', forSomeoneElse: true })
  assert.match(forAdmin, /Share to get them back into their account/)
})
