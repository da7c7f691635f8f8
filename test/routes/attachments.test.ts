import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, inject, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { all, get, one } from './messages/support.ts'
import { contentDisposition } from '../../server/routes/blobs.ts'
import { imageDimensions } from '../../server/lib/uploads.ts'
import { multipart as multipartForm, type Part } from '../support/multipart.ts'
import { grayPng as png } from '../support/images.ts'
import { readVideo, SKIP_WITHOUT_FFMPEG, testsrc, videoDir } from '../support/videos.ts'

const hq = rooms.hq.id
const designers = rooms.designers.id // david, jason, jz; not kevin

const multipart = (parts: Part[]) => multipartForm(parts, { accept: 'text/vnd.turbo-stream.html, text/html' })


function upload(app: FastifyInstance, cookie: string, roomId: number, file: { filename: string; type: string; data: Buffer }, fields: Record<string, string> = {}) {
  const parts: Part[] = [
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
    { name: 'message[attachment]', ...file },
  ]
  const { payload, headers } = multipart(parts)
  return inject(app, cookie, { method: 'POST', url: `/rooms/${roomId}/messages`, payload, headers })
}

type BlobRow = { id: number; key: string; filename: string; content_type: string; metadata: string; service_name: string; byte_size: number; checksum: string }

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}

// The original's URL: an image's lightbox link (its <img> is the thumbnail), a video's src.
function blobUrl(html: string): string {
  const match = /(?:src|href)="(\/rails\/active_storage\/blobs\/redirect\/[^"?]+)"/.exec(html)
  assert.ok(match, 'a blob URL in the fragment')
  return match[1]!.replace(/&amp;/g, '&')
}

test('uploading an image stores the blob, attaches it and renders it inline', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const image = png(1600, 400)
  const response = await upload(app, david, hq, { filename: 'wide.png', type: 'image/png', data: image }, { 'message[client_message_id]': 'upload-1' })
  assert.equal(response.statusCode, 200, response.body)
  assert.match(response.headers['content-type'] as string, /turbo-stream/)

  const message = one<{ id: number; creator_id: number }>(app, "SELECT id, creator_id FROM messages WHERE client_message_id = 'upload-1'")!
  assert.equal(message.creator_id, users.david.id)
  const blob = one<BlobRow>(app, "SELECT * FROM active_storage_blobs WHERE id = (SELECT blob_id FROM active_storage_attachments WHERE record_type = 'Message')")!
  assert.match(blob.key, /^[a-z0-9]{28}$/)
  assert.equal(blob.filename, 'wide.png')
  assert.equal(blob.content_type, 'image/png')
  assert.equal(blob.service_name, 'local')
  assert.equal(blob.byte_size, image.length)
  assert.equal(blob.checksum, createHash('md5').update(image).digest('base64'))
  assert.deepEqual(JSON.parse(blob.metadata), { identified: true, width: 1600, height: 400, analyzed: true })
  const attachment = one<{ name: string; record_type: string; record_id: number; blob_id: number }>(app, "SELECT name, record_type, record_id, blob_id FROM active_storage_attachments WHERE record_type = 'Message'")!
  assert.deepEqual(attachment, { name: 'attachment', record_type: 'Message', record_id: message.id, blob_id: blob.id })

  const path = join(config.filesPath, blob.key.slice(0, 2), blob.key.slice(2, 4), blob.key)
  assert.deepEqual(readFileSync(path), image)
  assert.deepEqual(filesUnder(join(config.filesPath, 'tmp')), [], 'no temp files left')

  // Fitted into 1200×800 (1200×300), its thumbnail drawn at half that width (at most 420px),
  // lazy, in a lightbox link to the original.
  assert.match(response.body, /<a href="\/rails\/active_storage\/blobs\/redirect\/[^"]+\/wide\.png" class="flex" data-lightbox data-lightbox-filename="wide\.png"><img src="\/rails\/active_storage\/representations\/redirect\/[^"]+\/wide\.png" width="1200" height="300" class="message__attachment" loading="lazy" alt="wide\.png"><\/a>/)
  assert.match(response.body, /style="width: 420px; aspect-ratio: 4;"/)
  // The actions menu offers Download (not a dead link).
  assert.match(response.body, /title="Download" aria-label="Download" href="\/rails\/active_storage\/blobs\/redirect\/[^"]+\/wide\.png\?disposition=attachment" download>/)

  // The same fragment for another viewer.
  const jason = await signIn(app, 'jason')
  const forJason = await get(app, jason, `/rooms/${hq}/messages/${message.id}`)
  const forDavid = await get(app, david, `/rooms/${hq}/messages/${message.id}`)
  assert.equal(blobUrl(forJason.body), blobUrl(forDavid.body))
  const thumbUrl = (html: string) => /<img src="(\/rails\/active_storage\/representations\/[^"]+)"/.exec(html)?.[1]
  assert.ok(thumbUrl(forDavid.body))
  assert.equal(thumbUrl(forJason.body), thumbUrl(forDavid.body))

  const served = await get(app, jason, blobUrl(response.body))
  assert.equal(served.statusCode, 200)
  assert.deepEqual(served.rawPayload, image)
  assert.equal(served.headers['content-type'], 'image/png')
  assert.equal(served.headers['content-disposition'], `inline; filename="wide.png"; filename*=UTF-8''wide.png`)
  assert.equal(served.headers['x-content-type-options'], 'nosniff')
  assert.equal(served.headers['cache-control'], 'max-age=3600, private')

  const download = await get(app, jason, blobUrl(response.body) + '?disposition=attachment')
  assert.match(download.headers['content-disposition'] as string, /^attachment; /)
})

test('a blob is served only to members of its room, and only by its signed id', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const kevin = await signIn(app, 'kevin')
  const response = await upload(app, david, designers, { filename: 'secret.txt', type: 'text/plain', data: Buffer.from('plans') })
  assert.equal(response.statusCode, 200, response.body)
  const url = /href="(\/rails\/active_storage\/blobs\/redirect\/[^"?]+)\?disposition=attachment"/.exec(response.body)![1]!
  assert.equal((await get(app, david, url)).body, 'plans')
  assert.equal((await get(app, kevin, url)).statusCode, 404)
  const blobId = one<{ id: number }>(app, 'SELECT id FROM active_storage_blobs')!.id
  assert.equal((await get(app, david, `/rails/active_storage/blobs/redirect/${blobId}/secret.txt`)).statusCode, 404)
  const [signed] = url.split('/').slice(-2)
  const forged = signed!.slice(0, -2) + (signed!.endsWith('AA') ? 'BB' : 'AA')
  assert.equal((await get(app, david, `/rails/active_storage/blobs/redirect/${forged}/secret.txt`)).statusCode, 404)
  // A signed id for another purpose (an avatar's) does not open a blob.
  const avatarToken = app.signing.signedId('User', blobId, 'avatar')
  assert.equal((await get(app, david, `/rails/active_storage/blobs/redirect/${avatarToken}/secret.txt`)).statusCode, 404)
})

test('a file over the limit gets 413 and leaves no rows or files', async (t) => {
  const { app, config } = await buildTestApp(t, { env: { CAMPFIRE_MAX_UPLOAD_MB: '0.001' } })
  const david = await signIn(app, 'david')
  const before = all(app, 'SELECT id FROM messages').length
  const response = await upload(app, david, hq, { filename: 'big.bin', type: 'application/octet-stream', data: Buffer.alloc(4096, 1) })
  assert.equal(response.statusCode, 413)
  assert.equal(all(app, 'SELECT id FROM messages').length, before)
  assert.equal(all(app, 'SELECT id FROM active_storage_blobs').length, 0)
  assert.equal(all(app, 'SELECT id FROM active_storage_attachments').length, 0)
  assert.deepEqual(filesUnder(config.filesPath), [])
  // Just under the limit is fine.
  const ok = await upload(app, david, hq, { filename: 'small.bin', type: 'application/octet-stream', data: Buffer.alloc(1000, 1) })
  assert.equal(ok.statusCode, 200, ok.body)
})

test('an empty file gets 422 and leaves nothing behind', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const response = await upload(app, david, hq, { filename: 'empty.txt', type: 'text/plain', data: Buffer.alloc(0) })
  assert.equal(response.statusCode, 422)
  assert.equal(all(app, 'SELECT id FROM active_storage_blobs').length, 0)
  assert.deepEqual(filesUnder(config.filesPath), [])
})

test('HTML claiming to be a PNG is stored and served as an octet-stream download', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const html = Buffer.from('<html><script>alert(1)</script></html>')
  const response = await upload(app, david, hq, { filename: 'evil.png', type: 'image/png', data: html })
  assert.equal(response.statusCode, 200, response.body)
  assert.equal(one<BlobRow>(app, 'SELECT * FROM active_storage_blobs')!.content_type, 'application/octet-stream')
  assert.doesNotMatch(response.body, /class="message__attachment"/)
  assert.match(response.body, /class="message__attachment-filename" title="evil\.png">evil\.png</)
  const url = /href="(\/rails\/active_storage\/blobs\/redirect\/[^"]+)" class="btn/.exec(response.body)![1]!.replace(/&amp;/g, '&')
  const served = await get(app, david, url.replace('?disposition=attachment', ''))
  assert.equal(served.statusCode, 200)
  assert.equal(served.headers['content-type'], 'application/octet-stream')
  assert.match(served.headers['content-disposition'] as string, /^attachment; /)
  assert.equal(served.headers['x-content-type-options'], 'nosniff')

  // Same for text/html and SVG sent as such.
  await upload(app, david, hq, { filename: 'page.html', type: 'text/html', data: html })
  await upload(app, david, hq, { filename: 'pic.svg', type: 'image/svg+xml', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>') })
  const types = all<{ content_type: string }>(app, 'SELECT content_type FROM active_storage_blobs ORDER BY id').map((r) => r.content_type)
  assert.deepEqual(types, ['application/octet-stream', 'application/octet-stream', 'application/octet-stream'])
})

test('search finds an attachment message by its filename; a caption is kept', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const response = await upload(app, david, hq, { filename: 'quarterly-report.pdf', type: 'application/pdf', data: Buffer.from('%PDF-1.4 fake') })
  assert.equal(response.statusCode, 200, response.body)
  const id = one<{ id: number }>(app, 'SELECT id FROM messages ORDER BY id DESC LIMIT 1')!.id
  assert.equal(one<{ body: string }>(app, 'SELECT body FROM message_search_index WHERE rowid = ?', id)!.body, 'quarterly-report.pdf')
  const search = await get(app, david, '/searches?q=quarterly')
  assert.equal(search.statusCode, 200)
  assert.match(search.body, /quarterly-report\.pdf/)
})

test('a multipart post without a file still needs a body; a bad client id is refused and cleaned up', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const { payload, headers } = multipart([{ name: 'message[body]', value: 'hello from multipart' }])
  const plain = await inject(app, david, { method: 'POST', url: `/rooms/${hq}/messages`, payload, headers })
  assert.equal(plain.statusCode, 200, plain.body)
  assert.match(plain.body, /hello from multipart/)
  const empty = multipart([{ name: 'message[client_message_id]', value: 'x' }])
  assert.equal((await inject(app, david, { method: 'POST', url: `/rooms/${hq}/messages`, ...empty })).statusCode, 422)
  const bad = await upload(app, david, hq, { filename: 'a.txt', type: 'text/plain', data: Buffer.from('a') }, { 'message[client_message_id]': 'bad id!' })
  assert.equal(bad.statusCode, 422)
  assert.deepEqual(filesUnder(config.filesPath), [])
})

test('other content types are unchanged, and other routes still refuse multipart', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const { payload, headers } = multipart([{ name: 'message[body]', value: 'x' }])
  const response = await inject(app, david, { method: 'POST', url: '/searches', payload, headers })
  assert.equal(response.statusCode, 415)
})

test('non-image files render as a download link; filenames are made safe', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const response = await upload(app, david, hq, { filename: 'notes:q1?.txt', type: 'text/plain', data: Buffer.from('notes') })
  assert.equal(response.statusCode, 200, response.body)
  assert.equal(one<{ filename: string }>(app, 'SELECT filename FROM active_storage_blobs')!.filename, 'notes-q1-.txt')
  assert.match(response.body, /<a href="\/rails\/active_storage\/blobs\/redirect\/[^"]+\?disposition=attachment" class="btn message__action-btn hide-in-ios-pwa" style="--width: auto;" download="notes-q1-\.txt">/)
  assert.equal(contentDisposition('attachment', 'résumé "1".pdf'), `attachment; filename="r?sum? \\"1\\".pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%221%22.pdf`)
})

test('image dimensions are read from GIF, WebP and JPEG headers', async (t) => {
  const { storage } = await buildTestApp(t, { fixtures: false })
  const { writeFileSync } = await import('node:fs')
  const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([0x20, 0x03, 0x58, 0x02]), Buffer.alloc(20)])
  writeFileSync(join(storage, 'a.gif'), gif)
  assert.deepEqual(await imageDimensions(join(storage, 'a.gif'), 'image/gif'), { width: 800, height: 600 })
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x02, 0x58, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0])
  writeFileSync(join(storage, 'a.jpg'), jpeg)
  assert.deepEqual(await imageDimensions(join(storage, 'a.jpg'), 'image/jpeg'), { width: 600, height: 300 })
  const webp = Buffer.alloc(30)
  webp.write('RIFF', 0, 'latin1')
  webp.write('WEBPVP8X', 8, 'latin1')
  webp.writeUIntLE(639, 24, 3)
  webp.writeUIntLE(479, 27, 3)
  writeFileSync(join(storage, 'a.webp'), webp)
  assert.deepEqual(await imageDimensions(join(storage, 'a.webp'), 'image/webp'), { width: 640, height: 480 })
})

test('deleting an attachment message deletes its blob and file', async (t) => {
  const { app, config } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const response = await upload(app, david, hq, { filename: 'gone.png', type: 'image/png', data: png(10, 10) })
  assert.equal(response.statusCode, 200, response.body)
  const url = blobUrl(response.body)
  const id = one<{ id: number }>(app, 'SELECT id FROM messages ORDER BY id DESC LIMIT 1')!.id
  assert.equal(filesUnder(config.filesPath).length, 2, 'the image and its thumbnail')
  const deleted = await inject(app, david, { method: 'DELETE', url: `/rooms/${hq}/messages/${id}`, headers: { 'sec-fetch-site': 'same-origin', accept: 'text/vnd.turbo-stream.html' } })
  assert.equal(deleted.statusCode, 200, deleted.body)
  assert.equal(all(app, 'SELECT id FROM active_storage_blobs').length, 0)
  assert.equal(all(app, 'SELECT id FROM active_storage_attachments').length, 0)
  assert.deepEqual(filesUnder(config.filesPath), [])
  assert.equal((await get(app, david, url)).statusCode, 404)
})

test('signed-out requests for a blob do not get the file', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const response = await upload(app, david, hq, { filename: 'a.png', type: 'image/png', data: png(2, 2) })
  const served = await app.inject({ method: 'GET', url: blobUrl(response.body) })
  assert.notEqual(served.statusCode, 200)
  assert.notEqual(served.headers['content-type'], 'image/png')
})

test('blobs answer byte ranges, as video elements ask for them', SKIP_WITHOUT_FFMPEG, async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const data = readVideo(testsrc(videoDir(t)))
  const size = data.length
  const response = await upload(app, david, hq, { filename: 'clip.mp4', type: 'video/mp4', data })
  assert.match(response.body, /<video src="\/rails\/active_storage\/blobs\/redirect\/[^"]+\/clip\.mp4" poster="[^"]+" controls preload="none"/)
  const url = blobUrl(response.body)
  const whole = await get(app, david, url)
  assert.equal(whole.headers['accept-ranges'], 'bytes')
  assert.equal(whole.headers['content-type'], 'video/mp4')
  assert.equal(whole.rawPayload.length, size)
  const part = await get(app, david, url, { range: 'bytes=2-5' })
  assert.equal(part.statusCode, 206)
  assert.deepEqual(part.rawPayload, data.subarray(2, 6))
  assert.equal(part.headers['content-range'], `bytes 2-5/${size}`)
  assert.deepEqual((await get(app, david, url, { range: 'bytes=-3' })).rawPayload, data.subarray(size - 3))
  assert.deepEqual((await get(app, david, url, { range: `bytes=${size - 3}-` })).rawPayload, data.subarray(size - 3))
  assert.equal((await get(app, david, url, { range: `bytes=${size + 10}-` })).statusCode, 416)
})

test('an upload to a room the poster is not in gets 404 and stores nothing', async (t) => {
  const { app, config } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  const response = await upload(app, kevin, designers, { filename: 'a.png', type: 'image/png', data: png(4, 4) })
  assert.equal(response.statusCode, 404)
  assert.equal(all(app, 'SELECT id FROM active_storage_blobs').length, 0)
  assert.deepEqual(filesUnder(config.filesPath), [])
})
