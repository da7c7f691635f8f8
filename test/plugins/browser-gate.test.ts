import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { browserVerdict, SUPPORTED_BROWSERS } from '../../server/plugins/browser-gate.ts'
import { rooms } from '../fixtures.ts'
import { buildTestApp, inject, signIn } from '../helper.ts'
import { BENDER_KEY, botMessagesUrl } from '../routes/messages/bot-support.ts'

const AGENTS = {
  chrome119: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36',
  chrome120: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  safari171: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
  safari172: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15',
  firefox120: 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0',
  firefox121: 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
  opera103: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/117.0.0.0 Safari/537.36 OPR/103.0.0.0',
  opera104: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 Safari/537.36 OPR/104.0.0.0',
  ie11: 'Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko',
  edge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  curl: 'curl/8.5.0',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  appleMessages: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0',
}

// A browser asking for a page: it takes HTML.
const PAGE = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'

function visit(app: FastifyInstance, url: string, userAgent: string | undefined, cookie = '', accept = PAGE) {
  const headers: Record<string, string> = { accept }
  if (userAgent !== undefined) headers['user-agent'] = userAgent
  return inject(app, cookie, { method: 'GET', url, headers })
}

test('old browsers get the gate page with 406, current ones the page they asked for', async (t) => {
  const { app } = await buildTestApp(t)
  const expected: [keyof typeof AGENTS, number][] = [
    ['chrome119', 406], ['chrome120', 200], ['safari171', 406], ['safari172', 200], ['firefox120', 406], ['firefox121', 200],
    ['opera103', 406], ['opera104', 200], ['ie11', 406], ['edge', 200], ['curl', 200], ['googlebot', 200],
  ]
  for (const [agent, status] of expected) {
    const response = await visit(app, '/session/new', AGENTS[agent])
    assert.equal(response.statusCode, status, agent)
    assert.equal(response.body.includes('Upgrade to a supported web browser'), status === 406, agent)
  }
  for (const header of ['', undefined]) assert.equal((await visit(app, '/session/new', header)).statusCode, 200, `user-agent ${JSON.stringify(header)}`)
})

test('the gate page lists the supported browsers with their icons and versions, and is never cached', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await visit(app, '/session/new', AGENTS.ie11)
  assert.equal(response.statusCode, 406)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.equal(response.headers['cache-control'], 'no-store')
  assert.match(response.body, /<title>Unsupported browser<\/title>/)
  assert.match(response.body, /<h1[^>]*>Upgrade to a supported web browser<\/h1>/)
  for (const [family, minimum] of [['safari', '17.2'], ['chrome', '120'], ['firefox', '121'], ['opera', '104']] as const) {
    assert.match(response.body, new RegExp(`<img src="/assets/images/browsers/${family}-[0-9a-f]+\\.svg"`), family)
    assert.match(response.body, new RegExp(`<strong>${family[0]!.toUpperCase()}${family.slice(1)}</strong>\\s*<span>${minimum.replace('.', '\\.')}\\+</span>`), family)
  }
  assert.doesNotMatch(response.body, /Ie<|Internet Explorer<\/strong>/)
  for (const family of ['safari', 'chrome', 'firefox', 'opera']) {
    const icon = response.body.match(new RegExp(`/assets/images/browsers/${family}-[0-9a-f]+\\.svg`))![0]
    const served = await app.inject({ method: 'GET', url: icon })
    assert.equal(served.statusCode, 200, icon)
    assert.match(String(served.headers['content-type']), /^image\/svg\+xml/)
  }
})

test('an Apple Messages link preview gets the page titled "Campfire", with 200', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await visit(app, '/session/new', AGENTS.appleMessages)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<title>Campfire<\/title>/)
  assert.match(response.body, /Upgrade to a supported web browser/)
})

test('a signed-in person on an old browser gets the gate instead of the room', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await visit(app, `/rooms/${rooms.pets.id}`, AGENTS.safari171, cookie)
  assert.equal(response.statusCode, 406)
  assert.match(response.body, /Upgrade to a supported web browser/)
  assert.equal((await visit(app, `/rooms/${rooms.pets.id}`, AGENTS.safari172, cookie)).statusCode, 200)
})

test('health, assets, the cable, blobs, the manifest, the service worker and anything not asking for HTML pass the gate', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const ie = AGENTS.ie11
  const css = (await visit(app, '/session/new', AGENTS.chrome120)).body.match(/\/assets\/application-[0-9a-f]+\.css/)![0]
  for (const url of ['/up', css, '/webmanifest.json', '/webmanifest', '/service-worker.js', '/service-worker', '/cable', '/rails/active_storage/blobs/redirect/nope/file.png']) {
    const response = await visit(app, url, ie, cookie)
    assert.notEqual(response.statusCode, 406, url)
    assert.doesNotMatch(response.body, /Upgrade to a supported web browser/, url)
  }
  const json = await visit(app, '/autocompletable/users?query=ja', ie, cookie, 'application/json')
  assert.equal(json.statusCode, 200)
  const bot = await app.inject({ method: 'POST', url: botMessagesUrl(rooms.pets.id, BENDER_KEY), payload: 'Hello from an old script', headers: { 'user-agent': ie, 'content-type': 'text/plain' } })
  assert.equal(bot.statusCode, 201)
  // A page that does not exist is a 404 for everyone.
  assert.equal((await visit(app, '/no/such/page', ie)).statusCode, 404)
})

// Made by test/fixtures/user-agents/generate.rb, with Rails' BrowserBlocker rule and the gem upstream pins.
const vectors = JSON.parse(readFileSync(new URL('../fixtures/user-agents/vectors.json', import.meta.url), 'utf8')) as {
  agents: { name: string; header: string; blocked: boolean }[]
}

test('the gate turns away exactly the headers Rails turns away, in the Ruby-made vectors', async (t) => {
  const { app } = await buildTestApp(t)
  for (const vector of vectors.agents) {
    assert.equal(browserVerdict(vector.header).blocked, vector.blocked, vector.name)
    const response = await visit(app, '/session/new', vector.header)
    const expected = !vector.blocked ? 200 : browserVerdict(vector.header).appleMessages ? 200 : 406
    assert.equal(response.statusCode, expected, vector.name)
    assert.equal(response.body.includes('Upgrade to a supported web browser'), vector.blocked, vector.name)
  }
})

test('the version table is upstream’s allow_browser versions', () => {
  assert.deepEqual(SUPPORTED_BROWSERS, { safari: '17.2', chrome: '120', firefox: '121', opera: '104', ie: false })
})
