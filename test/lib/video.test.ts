import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import sharp from 'sharp'
import { findVideoTools, runTool, VideoError, videoMetadata } from '../../server/lib/video.ts'
import { makeVideo, SKIP_WITHOUT_FFMPEG, testsrc, videoDir, videoProcessor } from '../support/videos.ts'

describe('reading a video with ffprobe', SKIP_WITHOUT_FFMPEG, () => {
  test('gives its width, height, duration and aspect ratio as Rails’ VideoAnalyzer stores them', async (t) => {
    const video = await videoProcessor(t)
    const metadata = await video.probe(testsrc(videoDir(t)))
    assert.deepEqual(metadata, { width: 640, height: 360, duration: 1, display_aspect_ratio: [16, 9], audio: false, video: true })
  })

  test('says when a video has a sound track', async (t) => {
    const dir = videoDir(t)
    const path = makeVideo(dir, 'talk.webm', ['-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=10', '-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '1', '-c:v', 'libvpx', '-c:a', 'libopus'])
    const metadata = await (await videoProcessor(t)).probe(path)
    assert.equal(metadata.audio, true)
    assert.deepEqual([metadata.width, metadata.height], [320, 240])
  })

  test('turns the size of a video whose display matrix rotates it a quarter turn', async (t) => {
    const dir = videoDir(t)
    const upright = testsrc(dir)
    const turned = makeVideo(dir, 'portrait.mp4', ['-i', upright, '-c', 'copy', '-metadata:s:v:0', 'rotate=90'])
    const metadata = await (await videoProcessor(t)).probe(turned)
    assert.deepEqual([metadata.width, metadata.height, Math.abs(metadata.angle ?? 0)], [360, 640, 90])
  })

  test('refuses random bytes named .mp4', async (t) => {
    const path = join(videoDir(t), 'broken.mp4')
    writeFileSync(path, randomBytes(64 * 1024))
    await assert.rejects((await videoProcessor(t)).probe(path), VideoError)
  })

  test('refuses a playlist dressed as a video instead of following what it names', async (t) => {
    const path = join(videoDir(t), 'playlist.mp4')
    writeFileSync(path, '#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n')
    const video = await videoProcessor(t)
    await assert.rejects(video.probe(path), /ffprobe failed/)
    await assert.rejects(video.relevantFrame(path), /ffmpeg failed/)
  })
})

describe('drawing a video’s first relevant frame with ffmpeg', SKIP_WITHOUT_FFMPEG, () => {
  const centre = async (jpeg: Buffer) => {
    const { data } = await sharp(jpeg).resize(1, 1, { position: 'centre', fit: 'cover' }).raw().toBuffer({ resolveWithObject: true })
    return [...data]
  }

  test('draws the first frame of a still video as a JPEG of the video’s size', async (t) => {
    const path = makeVideo(videoDir(t), 'green.mp4', ['-f', 'lavfi', '-i', 'color=c=0x00ff00:size=320x180:rate=10', '-t', '1', '-pix_fmt', 'yuv420p'])
    const jpeg = await (await videoProcessor(t)).relevantFrame(path)
    const metadata = await sharp(jpeg).metadata()
    assert.deepEqual([metadata.format, metadata.width, metadata.height], ['jpeg', 320, 180])
    const [r, g, b] = await centre(jpeg)
    assert.ok(g! > 200 && r! < 60 && b! < 60, `the frame is green, not ${[r, g, b]}`)
  })

  test('passes over a black opening to the first frame after the cut, as Rails’ scene selection does', async (t) => {
    const path = makeVideo(videoDir(t), 'intro.mp4', [
      '-f', 'lavfi', '-i', 'color=c=black:size=320x180:rate=10:duration=0.5',
      '-f', 'lavfi', '-i', 'color=c=red:size=320x180:rate=10:duration=0.5',
      '-filter_complex', '[0:v][1:v]concat=n=2:v=1', '-pix_fmt', 'yuv420p',
    ])
    const [r, g, b] = await centre(await (await videoProcessor(t)).relevantFrame(path))
    assert.ok(r! > 200 && g! < 60 && b! < 60, `the frame is red, not ${[r, g, b]}`)
  })

  test('draws a rotated video upright', async (t) => {
    const dir = videoDir(t)
    const turned = makeVideo(dir, 'portrait.mp4', ['-i', testsrc(dir), '-c', 'copy', '-metadata:s:v:0', 'rotate=90'])
    const metadata = await sharp(await (await videoProcessor(t)).relevantFrame(turned)).metadata()
    assert.deepEqual([metadata.width, metadata.height], [360, 640])
  })

  test('fails with a VideoError for random bytes', async (t) => {
    const path = join(videoDir(t), 'broken.mp4')
    writeFileSync(path, randomBytes(64 * 1024))
    await assert.rejects((await videoProcessor(t)).relevantFrame(path), VideoError)
  })
})

describe('running the tools', () => {
  test('kills a run that outlasts its timeout', async () => {
    await assert.rejects(runTool('sleep', ['30'], { timeoutMs: 100, maxBytes: 1024 }), /sleep took longer than 0.1 s/)
  })

  test('kills a run that writes more than its limit', async () => {
    await assert.rejects(runTool('head', ['-c', '1000000', '/dev/zero'], { timeoutMs: 10_000, maxBytes: 1000 }), /head wrote more than 1000 bytes/)
  })

  test('never goes through a shell', async () => {
    const output = await runTool('echo', ['$HOME; ls'], { timeoutMs: 10_000, maxBytes: 1024 })
    assert.equal(output.toString(), '$HOME; ls\n')
  })

  test('answers what is missing when a program is not installed', async () => {
    const tools = await findVideoTools({ ffmpeg: '/nonexistent/ffmpeg', ffprobe: '/nonexistent/ffprobe' })
    assert.deepEqual(tools, { ffmpeg: null, ffprobe: null, problems: ['ffmpeg was not found (/nonexistent/ffmpeg)', 'ffprobe was not found (/nonexistent/ffprobe)'] })
  })

  test('refuses work past its queue instead of holding it', SKIP_WITHOUT_FFMPEG, async (t) => {
    const dir = videoDir(t)
    const path = testsrc(dir)
    const video = await videoProcessor(t, { concurrency: 1, maxPending: 0 })
    const first = video.probe(path)
    await assert.rejects(video.probe(path), /too many videos are being processed/)
    assert.equal((await first).width, 640)
  })
})

describe('ffprobe’s answer as VideoAnalyzer reads it', () => {
  test('takes the height from the display aspect ratio, as Rails computes it', () => {
    const metadata = videoMetadata({ streams: [{ codec_type: 'video', width: 720, height: 480, display_aspect_ratio: '16:9', duration: '2.5' }] })
    assert.deepEqual(metadata, { width: 720, height: 405, duration: 2.5, display_aspect_ratio: [16, 9], audio: false, video: true })
  })

  test('turns the size for a rotate tag of -90 and falls back to the container’s duration', () => {
    const metadata = videoMetadata({ streams: [{ codec_type: 'video', width: 1920, height: 1080, tags: { rotate: '-90' } }], format: { duration: '3.0' } })
    assert.deepEqual(metadata, { width: 1080, height: 1920, duration: 3, angle: -90, audio: false, video: true })
  })

  test('keeps only the container’s duration and the stream flags when there is no video stream', () => {
    assert.deepEqual(videoMetadata({ streams: [{ codec_type: 'audio' }], format: { duration: '1' } }), { duration: 1, audio: true, video: false })
    assert.deepEqual(videoMetadata({ streams: 'nonsense' } as never), { audio: false, video: false })
  })

  test('ignores an aspect ratio of 0:1 and values that are not numbers', () => {
    const metadata = videoMetadata({ streams: [{ codec_type: 'video', width: 'wide', height: 240, display_aspect_ratio: '0:1' }] })
    assert.deepEqual(metadata, { height: 240, audio: false, video: true })
  })
})
