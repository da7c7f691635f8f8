import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { listFiles } from '../../server/lib/files.ts'
import { makeVideoDerivatives } from '../../server/lib/video-posters.ts'
import { VIDEO_POSTER } from '../../server/models/blob/variations.ts'
import { makeVideo, SKIP_WITHOUT_FFMPEG, testsrc, videoDir, videoProcessor } from '../support/videos.ts'

describe('a video’s preview image and poster', SKIP_WITHOUT_FFMPEG, () => {
  test('are the upright first frame as JPEG and as a WebP within 1200×800, named after the video as Rails names them', async (t) => {
    const dir = videoDir(t)
    const files = join(dir, 'files')
    const turned = makeVideo(dir, 'holiday.mp4', ['-i', testsrc(dir, 'source.mp4', '1280x720'), '-c', 'copy', '-metadata:s:v:0', 'rotate=90'])
    const made = await makeVideoDerivatives(await videoProcessor(t), files, { path: turned, filename: 'Holiday.MOV.mp4' }, VIDEO_POSTER)
    assert.equal(made.problem, null)
    assert.deepEqual([made.metadata?.width, made.metadata?.height], [720, 1280])
    const { image, poster } = made.preview!
    assert.deepEqual([image.filename, image.contentType, image.metadata], ['Holiday.MOV.jpg', 'image/jpeg', { identified: true, width: 720, height: 1280, analyzed: true }])
    assert.deepEqual([poster.filename, poster.contentType, poster.metadata], ['Holiday.MOV.webp', 'image/webp', { identified: true, width: 450, height: 800, analyzed: true }])
    const written = await sharp(readFileSync(poster.path)).metadata()
    assert.deepEqual([written.format, written.width, written.height], ['webp', 450, 800])
    assert.deepEqual(listFiles(files).sort(), [image.path, poster.path].sort())
  })

  test('are not made for random bytes, and nothing is left behind', async (t) => {
    const dir = videoDir(t)
    const path = join(dir, 'broken.mp4')
    writeFileSync(path, randomBytes(32 * 1024))
    const made = await makeVideoDerivatives(await videoProcessor(t), join(dir, 'files'), { path, filename: 'broken.mp4' }, VIDEO_POSTER)
    assert.deepEqual([made.metadata, made.preview], [null, null])
    assert.match(made.problem ?? '', /^not analysed: ffprobe failed/)
    assert.deepEqual(listFiles(join(dir, 'files')), [])
  })

  test('are not made for a file with sound and no picture, which is still analysed', async (t) => {
    const dir = videoDir(t)
    const path = makeVideo(dir, 'voice.mp4', ['-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '1', '-c:a', 'aac'])
    const made = await makeVideoDerivatives(await videoProcessor(t), join(dir, 'files'), { path, filename: 'voice.mp4' }, VIDEO_POSTER)
    const { duration, ...flags } = made.metadata ?? {}
    assert.ok(typeof duration === 'number' && Math.abs(duration - 1) < 0.1, `about a second long, not ${duration}`)
    assert.deepEqual([flags, made.preview, made.problem], [{ audio: true, video: false }, null, 'no poster: the file has no video stream'])
  })
})
