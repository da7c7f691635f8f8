import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { MASKABLE_SAFE_RADIUS, MASKABLE_SIZE } from '../../server/lib/maskable-icon.ts'
import { PWA_SCREENSHOTS } from '../../server/lib/pwa-screenshots.ts'
import { buildTestApp, inject, signIn } from '../helper.ts'
import { decodeStrictly } from '../support/encodings.ts'
import { multipart } from '../support/multipart.ts'

interface Manifest {
  id: string
  name: string
  short_name: string
  icons: { src: string; type: string; sizes: string; purpose?: string }[]
  start_url: string
  scope: string
  display: string
  theme_color: string
  background_color: string
  shortcuts: { name: string; url: string; icons: { src: string; sizes: string; type: string }[] }[]
  screenshots: { src: string; type: string; sizes: string; form_factor: string; label: string }[]
}

async function manifest(app: FastifyInstance, url = '/webmanifest.json'): Promise<Manifest> {
  const response = await app.inject({ url })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'application/manifest+json; charset=utf-8')
  assert.equal(response.headers['cache-control'], 'no-cache')
  return response.json() as Manifest
}

async function uploadLogo(app: FastifyInstance, data: Buffer): Promise<void> {
  const body = multipart([{ name: '_method', value: 'patch' }, { name: 'account[logo]', filename: 'logo.png', type: 'image/png', data }])
  const response = await inject(app, await signIn(app, 'david'), { method: 'POST', url: '/account', ...body })
  assert.equal(response.statusCode, 302, response.body)
}

// Every pixel of a PNG, as RGB, and a way to read one.
async function pixels(png: Buffer) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const at = (x: number, y: number) => {
    const i = (y * info.width + x) * info.channels
    return [data[i]!, data[i + 1]!, data[i + 2]!]
  }
  return { width: info.width, height: info.height, at }
}

const near = (a: number[], b: number[]) => a.every((value, i) => Math.abs(value - b[i]!) <= 8)

// The largest distance from the centre of any pixel that is not the background colour.
async function reach(png: Buffer, background: number[]): Promise<number> {
  const image = await pixels(png)
  let farthest = 0
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (!near(image.at(x, y), background)) farthest = Math.max(farthest, Math.hypot(x + 0.5 - image.width / 2, y + 0.5 - image.height / 2))
    }
  }
  return farthest
}

test('the web manifest names the account and opens the whole site as a standalone white app', async (t) => {
  const { app } = await buildTestApp(t)
  const json = await manifest(app)
  assert.equal(json.name, '37signals')
  assert.equal(json.short_name, '37signals')
  assert.equal(json.id, '/')
  assert.equal(json.start_url, '/')
  assert.equal(json.scope, '/')
  assert.equal(json.display, 'standalone')
  assert.equal(json.theme_color, '#ffffff')
  assert.equal(json.background_color, '#ffffff')
  assert.deepEqual(await manifest(app, '/webmanifest'), json)
})

test('before the first run the manifest is named Campfire and shows our own icons', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const json = await manifest(app)
  assert.equal(json.name, 'Campfire')
  assert.deepEqual(json.icons.map((icon) => icon.src), ['/account/logo?size=small', '/account/logo', '/account/logo?size=maskable'])
})

test('without a logo the icons are our campfire at 192 and 512, and a full-bleed maskable one with the fire inside the safe zone', async (t) => {
  const { app } = await buildTestApp(t)
  const json = await manifest(app)
  assert.deepEqual(json.icons.map(({ src, ...rest }) => [src.replace(/v=\d+/, 'v=…'), rest]), [
    ['/account/logo?size=small&v=…', { type: 'image/png', sizes: '192x192' }],
    ['/account/logo?v=…', { type: 'image/png', sizes: '512x512' }],
    ['/account/logo?size=maskable&v=…', { type: 'image/png', sizes: '512x512', purpose: 'maskable' }],
  ])
  for (const icon of json.icons) {
    const response = await app.inject({ url: icon.src })
    assert.equal(response.statusCode, 200, icon.src)
    const metadata = await sharp(response.rawPayload).metadata()
    assert.equal(`${metadata.width}x${metadata.height}`, icon.sizes, icon.src)
    assert.equal(metadata.format, 'png')
  }
  const maskable = (await app.inject({ url: json.icons[2]!.src })).rawPayload
  assert.equal((await app.inject({ url: json.icons[2]!.src })).headers['content-disposition'], `inline; filename="app-icon-maskable.png"; filename*=UTF-8''app-icon-maskable.png`)
  const image = await pixels(maskable)
  const background = image.at(0, 0)
  for (const [x, y] of [[0, 0], [511, 0], [0, 511], [511, 511]] as const) assert.deepEqual(image.at(x, y), background, `corner ${x},${y}`)
  assert.ok((await reach(maskable, background)) < MASKABLE_SAFE_RADIUS, 'the fire stays inside the safe zone')
})

test('with a logo the icons are the logo, and the maskable one is the logo inside the safe zone on white', async (t) => {
  const { app } = await buildTestApp(t)
  // A full-bleed red square: any of it outside the safe zone would show as red there.
  await uploadLogo(app, await sharp({ create: { width: 800, height: 800, channels: 3, background: '#d02010' } }).png().toBuffer())
  const json = await manifest(app)
  assert.match(json.icons[2]!.src, /^\/account\/logo\?size=maskable&v=\d{20}$/)
  const small = await sharp((await app.inject({ url: json.icons[0]!.src })).rawPayload).metadata()
  assert.deepEqual([small.width, small.height], [192, 192])
  const response = await app.inject({ url: json.icons[2]!.src })
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'image/png')
  const metadata = await sharp(response.rawPayload).metadata()
  assert.deepEqual([metadata.format, metadata.width, metadata.height], ['png', MASKABLE_SIZE, MASKABLE_SIZE])
  const image = await pixels(response.rawPayload)
  for (const [x, y] of [[0, 0], [511, 0], [0, 511], [511, 511]] as const) assert.deepEqual(image.at(x, y), [255, 255, 255], `corner ${x},${y}`)
  assert.ok(near(image.at(256, 256), [0xd0, 0x20, 0x10]), 'the logo is in the middle')
  const farthest = await reach(response.rawPayload, [255, 255, 255])
  assert.ok(farthest < MASKABLE_SAFE_RADIUS, `the logo reaches ${farthest} px from the centre`)
  assert.ok(farthest > MASKABLE_SAFE_RADIUS - 4, 'and fills the safe zone')
  assert.deepEqual((await app.inject({ url: json.icons[2]!.src })).rawPayload, response.rawPayload, 'made once and kept')
})

test('a transparent, wide logo is flattened onto white and centred in its maskable icon', async (t) => {
  const { app } = await buildTestApp(t)
  await uploadLogo(app, await sharp({ create: { width: 600, height: 200, channels: 4, background: { r: 0, g: 0, b: 200, alpha: 0.5 } } }).png().toBuffer())
  const response = await app.inject({ url: (await manifest(app)).icons[2]!.src })
  const image = await pixels(response.rawPayload)
  assert.equal((await sharp(response.rawPayload).metadata()).hasAlpha, false)
  assert.ok(near(image.at(256, 256), [127, 127, 227]), `half-transparent blue on white, not ${image.at(256, 256)}`)
  assert.deepEqual(image.at(256, 60), [255, 255, 255], 'above the wide logo is white')
})

test('the shortcuts open a new room and the profile, each with an icon that is served', async (t) => {
  const { app } = await buildTestApp(t)
  const json = await manifest(app)
  assert.deepEqual(json.shortcuts.map((s) => [s.name, s.url]), [['New chat room', '/rooms/opens/new'], ['My profile', '/users/me/profile']])
  for (const shortcut of json.shortcuts) {
    assert.equal(shortcut.icons.length, 1)
    assert.equal(shortcut.icons[0]!.sizes, 'any')
    const icon = await app.inject({ url: shortcut.icons[0]!.src })
    assert.equal(icon.statusCode, 200, shortcut.name)
    assert.equal(icon.headers['content-type'], 'image/svg+xml')
  }
})

test('the manifest lists three screenshots that are served at the sizes it declares, narrow and wide', async (t) => {
  const { app } = await buildTestApp(t)
  const { screenshots } = await manifest(app)
  assert.equal(screenshots.length, 3)
  assert.deepEqual(screenshots.map((s) => s.form_factor), ['narrow', 'narrow', 'wide'])
  for (const [index, shot] of screenshots.entries()) {
    assert.match(shot.src, new RegExp(`^/assets/images/screenshots/${PWA_SCREENSHOTS[index]!.file.replace('.png', '')}-[0-9a-f]{12}\\.png$`))
    assert.equal(shot.type, 'image/png')
    assert.notEqual(shot.label.trim(), '')
    const response = await app.inject({ url: shot.src })
    assert.equal(response.statusCode, 200, shot.src)
    const metadata = await sharp(response.rawPayload).metadata()
    assert.equal(metadata.format, 'png')
    assert.equal(`${metadata.width}x${metadata.height}`, shot.sizes, shot.src)
  }
})

test('the service worker is at /service-worker and /service-worker.js, the same script, always rechecked, for the whole site', async (t) => {
  const { app } = await buildTestApp(t)
  const bodies: Buffer[] = []
  for (const url of ['/service-worker', '/service-worker.js']) {
    const response = await app.inject({ url })
    assert.equal(response.statusCode, 200, url)
    assert.equal(response.headers['cache-control'], 'no-cache', url)
    assert.equal(response.headers['service-worker-allowed'], '/', url)
    assert.match(String(response.headers['content-type']), /^text\/javascript/, url)
    assert.match(response.body, /notificationclick/)
    assert.match(response.body, /addEventListener\("push"/)
    assert.doesNotMatch(response.body, /addEventListener\("fetch"/, 'no fetch handler, no offline cache')
    bodies.push(response.rawPayload)
    const compressed = await app.inject({ url, headers: { 'accept-encoding': 'br' } })
    assert.equal(compressed.headers['content-encoding'], 'br')
    assert.deepEqual(decodeStrictly(compressed), response.rawPayload)
    assert.equal((await app.inject({ url, headers: { 'if-none-match': String(response.headers.etag) } })).statusCode, 304)
  }
  assert.deepEqual(bodies[0], bodies[1])
})

test('the manifest and the worker need no session, and nothing else answers under their names', async (t) => {
  const { app } = await buildTestApp(t)
  for (const url of ['/webmanifest', '/webmanifest.json', '/service-worker', '/service-worker.js']) assert.equal((await app.inject({ url })).statusCode, 200, url)
  for (const url of ['/service-worker.jsx', '/webmanifest.xml']) assert.equal((await app.inject({ url })).statusCode, 404, url)
})
