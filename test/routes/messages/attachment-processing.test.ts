import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { buildTestApp, capturedLog, inject, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { all, get, one } from './support.ts'
import { multipart, type Part } from '../../support/multipart.ts'
import { animatedGif, bmp, jpeg, pngBomb, solid } from '../../support/images.ts'
import { thumbVariationFor, UNPREVIEWABLE_KEY } from '../../../server/models/blob/variations.ts'

const hq = rooms.hq.id

function upload(app: FastifyInstance, cookie: string, file: { filename: string; type: string; data: Buffer }, fields: Record<string, string> = {}) {
  const parts: Part[] = [...Object.entries(fields).map(([name, value]) => ({ name, value })), { name: 'message[attachment]', ...file }]
  return inject(app, cookie, { method: 'POST', url: `/rooms/${hq}/messages`, ...multipart(parts, { accept: 'text/vnd.turbo-stream.html, text/html' }) })
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && !e.parentPath.endsWith('tmp')).map((e) => join(e.parentPath, e.name))
}

const decoded = (html: string) => html.replace(/&amp;/g, '&')
const thumbSrc = (html: string) => decoded(/<img src="(\/rails\/active_storage\/representations\/redirect\/[^"]+)"/.exec(html)?.[1] ?? assert.fail('a representation URL as the <img src>'))
const lightboxHref = (html: string) => decoded(/<a href="([^"]+)" class="flex" data-lightbox/.exec(html)?.[1] ?? assert.fail('a lightbox link'))

type Row = { id: number; key: string; filename: string; content_type: string; metadata: string; byte_size: number }
const variantRows = (app: FastifyInstance) =>
  all<{ variation_digest: string; filename: string; content_type: string; metadata: string; blob_id: number }>(
    app,
    `SELECT v.variation_digest, v.blob_id, b.filename, b.content_type, b.metadata FROM active_storage_variant_records v
     JOIN active_storage_attachments a ON a.record_type = 'ActiveStorage::VariantRecord' AND a.name = 'image' AND a.record_id = v.id
     JOIN active_storage_blobs b ON b.id = a.blob_id`,
  )

test('a large JPEG is answered with its thumbnail: fitted into 1200×800, a JPEG, recorded as Rails records the :thumb variant', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const photo = await jpeg(4000, 3000)
  const response = await upload(app, david, { filename: 'harbour.jpg', type: 'image/jpeg', data: photo }, { 'message[client_message_id]': 'thumb-1' })
  assert.equal(response.statusCode, 200, response.body)

  const original = one<Row>(app, "SELECT * FROM active_storage_blobs WHERE filename = 'harbour.jpg'")!
  assert.deepEqual(JSON.parse(original.metadata), { identified: true, width: 4000, height: 3000, analyzed: true })
  const [variant, ...more] = variantRows(app)
  assert.equal(more.length, 0)
  assert.deepEqual(
    { digest: variant!.variation_digest, of: variant!.blob_id, filename: variant!.filename, type: variant!.content_type },
    { digest: 'IBhrLAIapu+NCId+2Kz6EqUWRKY=', of: original.id, filename: 'harbour.jpg', type: 'image/jpeg' },
  )
  assert.equal(filesUnder(config.filesPath).length, 2, 'the original and its thumbnail')

  // The page draws the thumbnail; only the lightbox link opens the original.
  assert.match(response.body, /<img src="\/rails\/active_storage\/representations\/redirect\/[^"]+\/harbour\.jpg" width="1067" height="800" class="message__attachment" loading="lazy"/)
  assert.match(response.body, /style="width: 420px; aspect-ratio: 1\.33375;"/)
  assert.equal((await get(app, david, lightboxHref(response.body))).rawPayload.length, photo.length)

  const thumb = await get(app, david, thumbSrc(response.body))
  assert.equal(thumb.statusCode, 200)
  assert.equal(thumb.headers['content-type'], 'image/jpeg')
  assert.equal(thumb.headers['cache-control'], 'max-age=3600, private')
  assert.equal(thumb.headers['x-content-type-options'], 'nosniff')
  assert.equal(thumb.headers['content-disposition'], `inline; filename="harbour.jpg"; filename*=UTF-8''harbour.jpg`)
  const size = await sharp(thumb.rawPayload).metadata()
  assert.deepEqual([size.format, size.width, size.height], ['jpeg', 1067, 800])
  assert.ok(thumb.rawPayload.length < photo.length / 4, `the thumbnail (${thumb.rawPayload.length} bytes) is a fraction of the original (${photo.length})`)
  assert.deepEqual(JSON.parse(variant!.metadata), { identified: true, width: 1067, height: 800, analyzed: true })
})

test('a portrait photo stored on its side is turned upright by its EXIF orientation, and its thumbnail keeps no metadata', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  // Stored 1600 wide and 1200 high, to be shown turned a quarter: 1200 × 1600.
  const sideways = await jpeg(1600, 1200, { orientation: 6 })
  assert.equal((await sharp(sideways).metadata()).orientation, 6)
  const response = await upload(app, david, { filename: 'portrait.jpg', type: 'image/jpeg', data: sideways })
  assert.equal(response.statusCode, 200, response.body)

  const original = one<Row>(app, "SELECT * FROM active_storage_blobs WHERE filename = 'portrait.jpg'")!
  assert.deepEqual(JSON.parse(original.metadata), { identified: true, width: 1200, height: 1600, analyzed: true }, 'the size as shown, as Rails’ analyzer reports it')
  assert.match(response.body, /width="600" height="800"/)
  const thumb = await sharp((await get(app, david, thumbSrc(response.body))).rawPayload).metadata()
  assert.deepEqual([thumb.width, thumb.height], [600, 800], 'portrait')
  assert.equal(thumb.orientation, undefined)
  assert.equal(thumb.exif, undefined, 'no EXIF kept')
  assert.equal(thumb.icc, undefined, 'no ICC profile kept')
})

test('each web image keeps its format in its thumbnail, named by its extension; a small image is not enlarged; an animated GIF stays animated', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  for (const [filename, type, data, format] of [
    ['diagram.png', 'image/png', await solid(2400, 400, 'png'), 'png'],
    ['sticker.webp', 'image/webp', await solid(300, 200, 'webp'), 'webp'],
    ['party.gif', 'image/gif', await animatedGif(1600, 800, 3), 'gif'],
  ] as const) {
    const response = await upload(app, david, { filename, type, data })
    assert.equal(response.statusCode, 200, response.body)
    const blob = one<Row>(app, 'SELECT * FROM active_storage_blobs WHERE filename = ?', filename)!
    const thumb = await get(app, david, thumbSrc(response.body))
    assert.equal(thumb.headers['content-type'], type)
    const made = await sharp(thumb.rawPayload, { pages: -1 }).metadata()
    assert.equal(made.format, format)
    const digest = variantRows(app).find((v) => v.blob_id === blob.id)?.variation_digest
    assert.equal(digest, thumbVariationFor(blob).digest)
    if (filename === 'diagram.png') assert.deepEqual([made.width, made.height], [1200, 200])
    if (filename === 'sticker.webp') assert.deepEqual([made.width, made.height], [300, 200])
    if (filename === 'party.gif') assert.deepEqual([made.width, made.pageHeight ?? made.height, made.pages], [1200, 600, 3])
  }
})

test('a decompression bomb is refused from its header and kept as a file to download, with a note', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const bomb = pngBomb()
  const response = await upload(app, david, { filename: 'huge.png', type: 'image/png', data: bomb })
  assert.equal(response.statusCode, 200, response.body)
  const blob = one<Row>(app, "SELECT * FROM active_storage_blobs WHERE filename = 'huge.png'")!
  assert.equal(blob.content_type, 'application/octet-stream')
  // "too large", not "unreadable": it was judged by its header, never decoded.
  assert.deepEqual(JSON.parse(blob.metadata), { identified: true, analyzed: true, [UNPREVIEWABLE_KEY]: 'too_large' })
  assert.equal(variantRows(app).length, 0)
  assert.equal(filesUnder(config.filesPath).length, 1)
  assert.doesNotMatch(response.body, /<img src="\/rails/)
  assert.match(response.body, /<span class="message__attachment-filename" title="huge\.png">huge\.png<\/span><span class="message__attachment-note txt-small">This image is too large to preview\.<\/span>/)
  const download = decoded(/<a href="([^"]+)" class="btn message__action-btn hide-in-ios-pwa"/.exec(response.body)![1]!)
  const served = await get(app, david, download)
  assert.equal(served.headers['content-type'], 'application/octet-stream')
  assert.deepEqual(served.rawPayload, bomb)
})

test('a truncated JPEG and a corrupt PNG become files with a note, never a 500', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const photo = await jpeg(1600, 1200)
  const truncated = photo.subarray(0, Math.floor(photo.length / 2))
  const png = await solid(64, 64, 'png')
  const corrupt = Buffer.concat([png.subarray(0, 40), Buffer.alloc(200, 0xab)])
  for (const [filename, type, data] of [['cut.jpg', 'image/jpeg', truncated], ['broken.png', 'image/png', corrupt]] as const) {
    const response = await upload(app, david, { filename, type, data })
    assert.equal(response.statusCode, 200, response.body)
    const blob = one<Row>(app, 'SELECT * FROM active_storage_blobs WHERE filename = ?', filename)!
    assert.equal(blob.content_type, 'application/octet-stream', filename)
    assert.equal(JSON.parse(blob.metadata)[UNPREVIEWABLE_KEY], 'unreadable', filename)
    assert.match(response.body, /<span class="message__attachment-note txt-small">This image can’t be previewed\.<\/span>/)
    assert.match(response.body, /data-controller="web-share" data-action="web-share#share" data-web-share-files-value="\/rails\/active_storage\/blobs\/redirect\/[^"]+\?disposition=attachment"/)
  }
  assert.equal(variantRows(app).length, 0)
  assert.equal(filesUnder(config.filesPath).length, 2, 'the two originals, no thumbnail')
})

test('SVG, HTML and BMP are never decoded as images: each is an octet-stream download, drawn as a file', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>')
  for (const [filename, type, data] of [
    ['logo.svg', 'image/svg+xml', svg],
    ['page.html', 'text/html', Buffer.from('<html><script>alert(1)</script></html>')],
    ['old.bmp', 'image/bmp', bmp()],
    ['disguised.png', 'image/png', svg],
  ] as const) {
    const response = await upload(app, david, { filename, type, data })
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(one<Row>(app, 'SELECT * FROM active_storage_blobs WHERE filename = ?', filename)!.content_type, 'application/octet-stream', filename)
    assert.doesNotMatch(response.body, /<img src="\/rails|<video/, filename)
    assert.match(response.body, new RegExp(`<div class="message__attachment-link flex-inline align-center gap-half"><span class="icon icon--file message__attachment-icon" aria-hidden="true"></span><span class="message__attachment-filename" title="${filename.replace('.', '\\.')}">`), filename)
    assert.match(response.body, new RegExp(`<span class="for-screen-reader">Download ${filename.replace('.', '\\.')}</span>`))
    assert.match(response.body, new RegExp(`<span class="for-screen-reader">Share ${filename.replace('.', '\\.')}</span>`))
    assert.doesNotMatch(response.body, /message__attachment-note/, 'not an image we refused: just a file')
  }
  assert.equal(variantRows(app).length, 0)
})

test('when the thumbnail’s record cannot be written, the message still goes out, with one log line and no orphaned rows or files', async (t) => {
  const log = capturedLog()
  const { app, config } = await buildTestApp(t, { logger: { level: 'warn', stream: log.stream } })
  const david = await signIn(app, 'david')
  // The variant's blob and its record are written, then its 'image' attachment fails.
  app.store.writeNow((m) =>
    m.db.exec(`CREATE TRIGGER fail_variant_image BEFORE INSERT ON active_storage_attachments WHEN NEW.record_type = 'ActiveStorage::VariantRecord'
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`),
  )
  const response = await upload(app, david, { filename: 'sunset.jpg', type: 'image/jpeg', data: await jpeg(2000, 1000) }, { 'message[client_message_id]': 'no-thumb' })
  assert.equal(response.statusCode, 200, response.body)
  assert.ok(one(app, "SELECT id FROM messages WHERE client_message_id = 'no-thumb'"))
  assert.deepEqual(all<{ filename: string }>(app, 'SELECT filename FROM active_storage_blobs').map((b) => b.filename), ['sunset.jpg'])
  assert.equal(all(app, 'SELECT id FROM active_storage_variant_records').length, 0)
  assert.equal(filesUnder(config.filesPath).length, 1, 'only the original; the thumbnail’s file was removed again')
  assert.deepEqual(log.errors.map((line) => line.msg), ['attachment thumbnail not recorded'])

  // The page still points at the thumbnail; the route tries again, and falls back to the original.
  const served = await get(app, david, thumbSrc(response.body))
  assert.equal(served.statusCode, 200)
  assert.equal(served.headers['content-type'], 'image/jpeg')
  assert.deepEqual([(await sharp(served.rawPayload).metadata()).width], [2000], 'the original')
  assert.equal(all(app, 'SELECT id FROM active_storage_blobs').length, 1)
  assert.equal(all(app, 'SELECT id FROM active_storage_variant_records').length, 0)
  assert.equal(filesUnder(config.filesPath).length, 1)

  // Once writes work again, the next request makes and records it.
  app.store.writeNow((m) => m.db.exec('DROP TRIGGER fail_variant_image'))
  const later = await get(app, david, thumbSrc(response.body))
  assert.deepEqual([(await sharp(later.rawPayload).metadata()).width], [1200])
  assert.equal(variantRows(app).length, 1)
  assert.equal(filesUnder(config.filesPath).length, 2)
})

test('when the message itself cannot be written, neither the upload nor its thumbnail is left on disk', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  app.store.writeNow((m) => m.db.exec("CREATE TRIGGER fail_message BEFORE INSERT ON messages BEGIN SELECT RAISE(ABORT, 'no'); END"))
  const response = await upload(app, david, { filename: 'lost.jpg', type: 'image/jpeg', data: await jpeg(1600, 1200) })
  assert.equal(response.statusCode, 500)
  assert.equal(all(app, 'SELECT id FROM active_storage_blobs').length, 0)
  assert.deepEqual(filesUnder(config.filesPath), [])
})

test('a bot’s image gets its thumbnail before its message is announced', async (t) => {
  const { app } = await buildTestApp(t)
  const bot = users.bender
  const token = one<{ bot_token: string }>(app, 'SELECT bot_token FROM users WHERE id = ?', bot.id)!.bot_token
  const { payload, headers } = multipart([{ name: 'attachment', filename: 'chart.png', type: 'image/png', data: await solid(2400, 1600, 'png') }])
  const room = one<{ room_id: number }>(app, 'SELECT room_id FROM memberships WHERE user_id = ? LIMIT 1', bot.id)!.room_id
  const response = await app.inject({ method: 'POST', url: `/rooms/${room}/${bot.id}-${token}/messages`, payload, headers })
  assert.equal(response.statusCode, 201, response.body)
  const [variant] = variantRows(app)
  assert.equal(variant?.filename, 'chart.png')
  assert.deepEqual(JSON.parse(variant!.metadata), { identified: true, width: 1200, height: 800, analyzed: true })
})

test('TIFF and AVIF photos are recognised from their bytes and get a PNG thumbnail within 1200×800', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  for (const format of ['tiff', 'avif'] as const) {
    const data = await sharp({ create: { width: 2400, height: 1800, channels: 3, background: '#2266aa' } }).toFormat(format).toBuffer()
    const response = await upload(app, david, { filename: `scan.${format}`, type: 'application/octet-stream', data })
    assert.equal(response.statusCode, 200, response.body)
    const original = one<Row>(app, `SELECT * FROM active_storage_blobs WHERE filename = 'scan.${format}'`)!
    assert.equal(original.content_type, `image/${format}`)
    assert.deepEqual(JSON.parse(original.metadata), { identified: true, analyzed: true, width: 2400, height: 1800 })
    const thumb = await get(app, david, thumbSrc(response.body))
    assert.equal(thumb.statusCode, 200)
    assert.equal(thumb.headers['content-type'], 'image/png')
    const { width, height, format: made } = await sharp(thumb.rawPayload).metadata()
    assert.deepEqual([made, width, height], ['png', 1067, 800])
    const served = await get(app, david, lightboxHref(response.body))
    assert.equal(served.headers['content-type'], `image/${format}`, 'the lightbox opens the original, shown inline')
    assert.equal(served.rawPayload.length, data.length)
  }
})

test('a HEIC that libvips cannot decode is posted as a plain file that says it cannot be previewed', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const box = Buffer.alloc(24)
  box.writeUInt32BE(24, 0)
  box.write('ftypheic', 4, 'latin1')
  box.write('mif1heic', 16, 'latin1')
  const response = await upload(app, david, { filename: 'IMG_0001.HEIC', type: 'image/heic', data: Buffer.concat([box, Buffer.alloc(4096, 7)]) })
  assert.equal(response.statusCode, 200, response.body)
  const stored = one<Row>(app, "SELECT * FROM active_storage_blobs WHERE filename = 'IMG_0001.HEIC'")!
  assert.equal(stored.content_type, 'application/octet-stream')
  assert.equal(JSON.parse(stored.metadata)[UNPREVIEWABLE_KEY], 'unreadable')
  assert.match(response.body, /<span class="message__attachment-note txt-small">This image can’t be previewed\.<\/span>/)
})
