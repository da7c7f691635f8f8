import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { buildTestApp, inject, sameOrigin, signIn } from '../../helper.ts'
import { rooms } from '../../fixtures.ts'
import { inviteLinks } from '../../../server/routes/account/join-codes.ts'
import { decodeQrCodeId } from '../../../server/lib/qr-code.ts'

const FIXTURE_CODE = 'Ab12-Cd34-Ef56'
const CODE_FORMAT = /^[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}$/

function joinCode(app: FastifyInstance): string {
  return app.store.read((m) => m.accounts.first()!.join_code)
}

function regenerate(app: FastifyInstance, cookie: string, headers: Record<string, string> = sameOrigin) {
  return inject(app, cookie, { method: 'POST', url: '/account/join_code', headers })
}

async function roomPage(app: FastifyInstance, cookie: string, roomId: number = rooms.pets.id): Promise<string> {
  const response = await inject(app, cookie, { method: 'GET', url: `/rooms/${roomId}`, headers: { 'accept-encoding': 'identity', host: 'campfire.test' } })
  assert.equal(response.statusCode, 200)
  return response.body
}

function inviteUrlIn(html: string): string | undefined {
  return /<input type="text" class="share-link__url" id="invite_url" value="([^"]*)" aria-labelledby="invite_label" readonly>/.exec(html)?.[1]
}

// POST /account/join_code

test('an administrator gets a new join code, in the xxxx-xxxx-xxxx form, and is sent to the account page', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await regenerate(app, await signIn(app, 'david'))
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/account/edit')
  const code = joinCode(app)
  assert.notEqual(code, FIXTURE_CODE)
  assert.match(code, CODE_FORMAT)
})

test('after a new join code, the old join link is a 404 and the new one opens the join page', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal((await app.inject({ method: 'GET', url: `/join/${FIXTURE_CODE}` })).statusCode, 200)
  await regenerate(app, await signIn(app, 'jason'))
  assert.equal((await app.inject({ method: 'GET', url: `/join/${FIXTURE_CODE}` })).statusCode, 404)
  assert.equal((await app.inject({ method: 'POST', url: `/join/${FIXTURE_CODE}`, headers: { ...sameOrigin, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'user%5Bname%5D=X' })).statusCode, 404)
  assert.equal((await app.inject({ method: 'GET', url: `/join/${joinCode(app)}` })).statusCode, 200)
})

test('each new join code is different', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const codes = new Set<string>()
  for (let i = 0; i < 5; i++) {
    await regenerate(app, cookie)
    codes.add(joinCode(app))
  }
  assert.equal(codes.size, 5)
})

test('a member may not change the join code: 403, and it stays', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await regenerate(app, await signIn(app, 'kevin'))
  assert.equal(response.statusCode, 403)
  assert.equal(joinCode(app), FIXTURE_CODE)
})

test('nobody signed out may change the join code, nor a request from another site', async (t) => {
  const { app } = await buildTestApp(t)
  const anonymous = await app.inject({ method: 'POST', url: '/account/join_code', headers: sameOrigin })
  assert.equal(anonymous.statusCode, 401)
  const crossSite = await regenerate(app, await signIn(app, 'david'), { 'sec-fetch-site': 'cross-site' })
  assert.equal(crossSite.statusCode, 422)
  assert.equal(joinCode(app), FIXTURE_CODE)
})

// The welcome in the first room

test('the first room’s welcome shows the absolute join link, its QR code and copy and share buttons', async (t) => {
  const { app } = await buildTestApp(t)
  const html = await roomPage(app, await signIn(app, 'kevin'))
  const url = inviteUrlIn(html)
  assert.equal(url, `http://campfire.test/join/${FIXTURE_CODE}`)
  const welcome = html.slice(html.indexOf('id="system_welcome"'))
  const qr = /<a href="\/qr_code\/([^"]+)" class="btn"[^>]* data-lightbox[ >][\s\S]*?Show join link QR code/.exec(welcome)
  assert.ok(qr, 'the QR code link opens in the lightbox')
  assert.equal(decodeQrCodeId(qr[1]!), url)
  assert.match(welcome, /data-copy-to-clipboard-content-value="http:\/\/campfire\.test\/join\/Ab12-Cd34-Ef56"[\s\S]*?Copy join link/)
  assert.match(welcome, /data-web-share-url-value="http:\/\/campfire\.test\/join\/Ab12-Cd34-Ef56"[\s\S]*?Share join link/)
})

test('only administrators see the button that replaces the join link, in the same cached room page', async (t) => {
  const { app } = await buildTestApp(t)
  const regenerateButton = /<form class="button_to" method="post" action="\/account\/join_code"><button type="submit" class="btn btn--regenerate"[^>]*>[\s\S]*?Regenerate join link/
  const member = await roomPage(app, await signIn(app, 'kevin'))
  const administrator = await roomPage(app, await signIn(app, 'david'))
  const memberAgain = await roomPage(app, await signIn(app, 'jz'))
  assert.doesNotMatch(member, regenerateButton)
  assert.match(administrator, regenerateButton)
  assert.doesNotMatch(memberAgain, regenerateButton, 'after an administrator’s visit, too')
})

test('a new join code shows at once on the room page, cached or not', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  await roomPage(app, kevin)
  assert.equal(inviteUrlIn(await roomPage(app, kevin)), `http://campfire.test/join/${FIXTURE_CODE}`)
  await regenerate(app, await signIn(app, 'david'))
  const html = await roomPage(app, kevin)
  assert.equal(inviteUrlIn(html), `http://campfire.test/join/${joinCode(app)}`)
  assert.ok(!html.includes(FIXTURE_CODE), 'the old code is nowhere on the page')
})

test('the welcome with its join link is only in the first room', async (t) => {
  const { app } = await buildTestApp(t)
  const html = await roomPage(app, await signIn(app, 'david'), rooms.hq.id)
  assert.equal(inviteUrlIn(html), undefined)
  assert.ok(!html.includes(FIXTURE_CODE))
})

// inviteLinks, for the account page

test('inviteLinks gives the absolute join link on the request’s origin and the path of its QR code', async (t) => {
  const { app } = await buildTestApp(t)
  const request = { headers: { host: 'chat.example.com' }, protocol: 'https' } as unknown as FastifyRequest
  const { joinUrl, qrCodePath } = inviteLinks(app, request)
  assert.equal(joinUrl, `https://chat.example.com/join/${FIXTURE_CODE}`)
  assert.equal(decodeQrCodeId(qrCodePath.replace(/^\/qr_code\//, '')), joinUrl)
})
