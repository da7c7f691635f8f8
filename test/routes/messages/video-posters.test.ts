import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { buildTestApp, capturedLog, inject, signIn, SECRET_KEY_BASE, tempStorage } from '../../helper.ts'
import { rooms } from '../../fixtures.ts'
import { multipart } from '../../support/multipart.ts'
import { CookieJar, formPost, request, startServer, stopServer } from '../../support/server-process.ts'
import { makeVideo, readVideo, SKIP_WITHOUT_FFMPEG, testsrc, videoDir } from '../../support/videos.ts'
import { blobPath } from '../../../server/lib/files.ts'
import { get } from './support.ts'
import { eventually } from '../../cluster/cluster-helper.ts'
import { botMessagesUrl, botRequest } from './bot-support.ts'

const designers = rooms.designers.id // david, jason, jz; not kevin

function postVideo(app: FastifyInstance, cookie: string, roomId: number, file: { filename: string; data: Buffer; type?: string }) {
  const { payload, headers } = multipart([{ name: 'message[attachment]', filename: file.filename, type: file.type ?? 'video/mp4', data: file.data }], { accept: 'text/vnd.turbo-stream.html, text/html' })
  return inject(app, cookie, { method: 'POST', url: `/rooms/${roomId}/messages`, payload, headers })
}

// The room page's <video> tags, as attribute maps.
function videos(html: string): Record<string, string>[] {
  return [...html.matchAll(/<video\b([^>]*)>/g)].map((match) => Object.fromEntries([...match[1]!.matchAll(/([\w-]+)(?:="([^"]*)")?/g)].map((a) => [a[1]!, (a[2] ?? '').replace(/&amp;/g, '&')])))
}

// GET as the browser does, following the representation route's redirect to the file.
async function fetchFollowing(app: FastifyInstance, cookie: string, url: string) {
  let response = await get(app, cookie, url)
  for (let hops = 0; hops < 3 && response.statusCode >= 300 && response.statusCode < 400; hops++) response = await get(app, cookie, String(response.headers.location))
  return response
}

function videoBlob(app: FastifyInstance) {
  return app.store.read((m) =>
    m.db.prepare<[], { id: number; metadata: string }>("SELECT id, metadata FROM active_storage_blobs WHERE content_type LIKE 'video/%' ORDER BY id DESC LIMIT 1").get(),
  )!
}

describe('a video posted to a room', SKIP_WITHOUT_FFMPEG, () => {
  test('is analysed and shown with a WebP poster within 1200×800 made from its first frame, which members can fetch and others cannot', async (t) => {
    const { app, storage } = await buildTestApp(t)
    const david = await signIn(app, 'david')
    const data = readVideo(makeVideo(videoDir(t), 'sunset.mp4', ['-f', 'lavfi', '-i', 'color=c=0x0000ff:size=1920x1080:rate=10', '-t', '1', '-pix_fmt', 'yuv420p']))
    assert.equal((await postVideo(app, david, designers, { filename: 'sunset.mp4', data })).statusCode, 200)

    const metadata = JSON.parse(videoBlob(app).metadata) as Record<string, unknown>
    assert.deepEqual([metadata.width, metadata.height, metadata.duration, metadata.video, metadata.audio], [1920, 1080, 1, true, false])

    const page = await get(app, david, `/rooms/${designers}`)
    const [video] = videos(page.body)
    assert.ok(video?.poster, `the video has a poster: ${JSON.stringify(video)}`)
    assert.match(video.poster, /^\/rails\/active_storage\/representations\/redirect\/[^/]+\/[^/]+\/sunset\.mp4$/)

    const poster = await fetchFollowing(app, david, video.poster)
    assert.equal(poster.statusCode, 200)
    assert.equal(poster.headers['content-type'], 'image/webp')
    const image = sharp(poster.rawPayload)
    const { format, width, height } = await image.metadata()
    assert.deepEqual([format, width, height], ['webp', 1200, 675])
    const { data: pixel } = await image.resize(1, 1).raw().toBuffer({ resolveWithObject: true })
    assert.ok(pixel[2]! > 200 && pixel[0]! < 60 && pixel[1]! < 60, `the poster is the frame's blue, not ${[...pixel]}`)

    const kevin = await signIn(app, 'kevin')
    assert.equal((await get(app, kevin, video.poster)).statusCode, 404)

    const files = app.store.read((m) =>
      m.db.prepare<[], { key: string; filename: string; content_type: string }>("SELECT key, filename, content_type FROM active_storage_blobs WHERE content_type LIKE 'image/%' ORDER BY id").all(),
    )
    assert.deepEqual(files.map((f) => [f.filename, f.content_type]), [['sunset.jpg', 'image/jpeg'], ['sunset.webp', 'image/webp']])
    for (const file of files) assert.ok(existsSync(blobPath(`${storage}/files`, file.key)!), `${file.filename} is on disk`)
  })

  test('that is random bytes named .mp4 posts as a plain file that says it cannot be played, with one log line', async (t) => {
    const log = capturedLog()
    const { app } = await buildTestApp(t, { logger: { level: 'warn', stream: log.stream } })
    const david = await signIn(app, 'david')
    const response = await postVideo(app, david, designers, { filename: 'broken.mp4', data: randomBytes(256 * 1024) })
    assert.equal(response.statusCode, 200)
    const page = (await get(app, david, `/rooms/${designers}`)).body
    assert.deepEqual(videos(page), [], 'no video player for what is not a video')
    assert.match(page, /<span class="message__attachment-filename" title="broken\.mp4">broken\.mp4<\/span><span class="message__attachment-note txt-small">This video can’t be played here\.<\/span>/)
    const stored = app.store.read((m) => m.db.prepare("SELECT content_type, metadata FROM active_storage_blobs WHERE filename = 'broken.mp4'").get()) as { content_type: string; metadata: string }
    assert.equal(stored.content_type, 'application/octet-stream')
    assert.equal(JSON.parse(stored.metadata).campfire_unpreviewable, 'unplayable')
    assert.equal(log.lines.filter((line) => /^video attachment/.test(line.msg ?? '')).length, 1)
    assert.deepEqual(log.errors, [])
    const counts = app.store.read((m) => m.db.prepare("SELECT COUNT(*) FROM active_storage_blobs WHERE content_type LIKE 'image/%'").pluck().get())
    assert.equal(counts, 0)
  })

  test('by a bot gets its poster too', async (t) => {
    const { app } = await buildTestApp(t)
    const upload = multipart([{ name: 'attachment', filename: 'demo.mp4', type: 'video/mp4', data: readVideo(testsrc(videoDir(t))) }], {})
    const response = await botRequest(app, 'POST', botMessagesUrl(rooms.pets.id), upload.payload, { 'content-type': upload.headers['content-type']! })
    assert.equal(response.statusCode, 201)
    const names = app.store.read((m) =>
      m.db.prepare<[], string>("SELECT b.filename FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id WHERE a.record_type <> 'Message' ORDER BY b.id").pluck().all(),
    )
    assert.deepEqual(names, ['demo.jpg', 'demo.webp'])
  })

  test('is purged with its preview image and poster when its message is deleted', async (t) => {
    const { app, storage } = await buildTestApp(t)
    const david = await signIn(app, 'david')
    assert.equal((await postVideo(app, david, designers, { filename: 'clip.mp4', data: readVideo(testsrc(videoDir(t))) })).statusCode, 200)
    const keys = app.store.read((m) => m.db.prepare<[], string>('SELECT key FROM active_storage_blobs').pluck().all())
    assert.equal(keys.length, 3)
    const message = app.store.read((m) => m.db.prepare<[number], number>('SELECT id FROM messages WHERE room_id = ? ORDER BY id DESC LIMIT 1').pluck().get(designers))!
    const deleted = await inject(app, david, { method: 'DELETE', url: `/rooms/${designers}/messages/${message}`, headers: { 'sec-fetch-site': 'same-origin', accept: 'text/vnd.turbo-stream.html' } })
    assert.ok(deleted.statusCode < 400, `deleted: ${deleted.statusCode}`)
    const left = app.store.read((m) => ['active_storage_blobs', 'active_storage_attachments', 'active_storage_variant_records'].map((table) => m.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get()))
    assert.deepEqual(left, [0, 0, 0])
    for (const key of keys) assert.equal(existsSync(blobPath(`${storage}/files`, key)!), false, `${key} is deleted`)
  })
})

describe('without ffmpeg', () => {
  test('a video posts and plays without a poster, and ffprobe still gives its size', SKIP_WITHOUT_FFMPEG, async (t) => {
    const { app } = await buildTestApp(t, { env: { FFMPEG_PATH: '/nonexistent/ffmpeg' } })
    assert.match((await app.video.problem) ?? '', /^Video posters are off: ffmpeg was not found \(\/nonexistent\/ffmpeg\)/)
    const david = await signIn(app, 'david')
    assert.equal((await postVideo(app, david, designers, { filename: 'clip.mp4', data: readVideo(testsrc(videoDir(t))) })).statusCode, 200)
    const [video] = videos((await get(app, david, `/rooms/${designers}`)).body)
    assert.ok(video?.src, 'the message shows a video player')
    assert.equal(video.poster, undefined)
    const metadata = JSON.parse(videoBlob(app).metadata) as Record<string, unknown>
    assert.deepEqual([metadata.width, metadata.height], [640, 360])
  })

  test('the server says so in one line at boot, and a video still posts', { timeout: 120_000 }, async (t) => {
    const storage = tempStorage(t)
    const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true', FFMPEG_PATH: '/nonexistent/ffmpeg', FFPROBE_PATH: '/nonexistent/ffprobe' })
    t.after(() => stopServer(server))
    const jar = new CookieJar()
    const firstRun = await request(server.baseUrl, jar, '/first_run', formPost({ 'user[name]': 'Ada', 'user[email_address]': 'ada@example.com', 'user[password]': 'secret123456' }))
    assert.equal(firstRun.status, 302)
    const room = (await request(server.baseUrl, jar, '/')).headers.get('location')!
    const { payload, headers } = multipart([{ name: 'message[attachment]', filename: 'clip.mp4', type: 'video/mp4', data: randomBytes(4096) }], { accept: 'text/vnd.turbo-stream.html, text/html' })
    const posted = await request(server.baseUrl, jar, `${room}/messages`, { method: 'POST', body: payload, headers })
    assert.equal(posted.status, 200)
    const page = await (await request(server.baseUrl, jar, room)).text()
    const [video] = videos(page)
    assert.ok(video?.src, 'the message shows a video player')
    assert.equal(video.poster, undefined)
    // The line comes a second after the server listens (main.ts), whatever was posted before.
    const posterLines = () => server.output().split('\n').filter((line) => line.includes('Video posters are off'))
    await eventually(() => posterLines().length > 0, 'the boot line about ffmpeg')
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const lines = posterLines()
    assert.equal(lines.length, 1, server.output())
    assert.match(lines[0]!, /ffmpeg was not found \(\/nonexistent\/ffmpeg\); ffprobe was not found \(\/nonexistent\/ffprobe\)/)
  })
})
