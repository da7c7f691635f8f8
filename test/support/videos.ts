import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureFfmpeg, FFMPEG_PATH, FFPROBE_PATH } from '../../server/build/ffmpeg.ts'
import { findVideoTools, VideoProcessor, type VideoProcessorOptions } from '../../server/lib/video.ts'

// Where pretest can install ffmpeg (root on Debian) it does so, and a failure is an error; the
// tests that need it skip only where it cannot be installed, as the browser tests do for Chromium.
export function ffmpegAvailable(): boolean {
  return ensureFfmpeg()
}

export const SKIP_WITHOUT_FFMPEG = { skip: !ffmpegAvailable() && 'ffmpeg is not installed' }

// A temporary folder for test videos, removed after the test.
export function videoDir(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-video-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

// Makes a video with ffmpeg itself: `inputs` are ffmpeg's arguments before the output file
// (e.g. ['-f', 'lavfi', '-i', 'testsrc=size=640x360:rate=10', '-t', '1']).
export function makeVideo(dir: string, name: string, inputs: string[]): string {
  const path = join(dir, name)
  execFileSync(FFMPEG_PATH, ['-nostdin', '-v', 'error', '-y', ...inputs, path], { stdio: ['ignore', 'ignore', 'inherit'] })
  return path
}

export function testsrc(dir: string, name = 'clip.mp4', size = '640x360'): string {
  return makeVideo(dir, name, ['-f', 'lavfi', '-i', `testsrc=size=${size}:rate=10`, '-t', '1', '-pix_fmt', 'yuv420p'])
}

export function readVideo(path: string): Buffer {
  return readFileSync(path)
}

export async function videoProcessor(t: { after: (fn: () => Promise<void>) => void }, options: VideoProcessorOptions = {}): Promise<VideoProcessor> {
  const processor = new VideoProcessor(await findVideoTools({ ffmpeg: FFMPEG_PATH, ffprobe: FFPROBE_PATH }), options)
  t.after(() => processor.close())
  return processor
}
