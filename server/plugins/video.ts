import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { findVideoTools, isVideoType, VideoProcessor } from '../lib/video.ts'
import { makeVideoDerivatives, type VideoDerivatives } from '../lib/video-posters.ts'
import { VIDEO_POSTER } from '../models/blob/variations.ts'

export interface VideoAttachments {
  // Why posters (or sizes) are off, when they are; main.ts logs it once at boot.
  readonly problem: string | null
  readonly processor: VideoProcessor
  // A stored upload's video metadata and poster files, made before its message is written;
  // null when it is not a video. What fails is logged in one line and left out.
  prepare(upload: { path: string; contentType: string }, filename: string): Promise<VideoDerivatives | null>
}

declare module 'fastify' {
  interface FastifyInstance {
    video: VideoAttachments
  }
}

// Each pair of programs is checked once per process (as Rails' Previewer memoises its check):
// a test run builds hundreds of apps.
const checked = new Map<string, ReturnType<typeof findVideoTools>>()
function videoTools(config: Config): ReturnType<typeof findVideoTools> {
  const paths = { ffmpeg: config.ffmpegPath, ffprobe: config.ffprobePath }
  const key = JSON.stringify(paths)
  if (!checked.has(key)) checked.set(key, findVideoTools(paths))
  return checked.get(key)!
}

function problemWith(tools: Awaited<ReturnType<typeof findVideoTools>>): string | null {
  const off = !tools.ffmpeg ? 'Video posters are off' : !tools.ffprobe ? 'Video sizes are not read' : null
  return off && `${off}: ${tools.problems.join('; ')}; install Debian's ffmpeg package, or set FFMPEG_PATH and FFPROBE_PATH`
}

// The video tools for one files folder: found once, then each video upload's metadata and
// poster made with them. The server decorates the app with one (below); the Slack import makes
// its own.
export async function videoAttachments(config: Config, log: { warn(details: object, message: string): void }): Promise<VideoAttachments> {
  const tools = await videoTools(config)
  const processor = new VideoProcessor(tools)
  const { filesPath } = config
  return {
    problem: problemWith(tools),
    processor,
    async prepare(upload, filename) {
      if (!isVideoType(upload.contentType)) return null
      const derivatives = await makeVideoDerivatives(processor, filesPath, { path: upload.path, filename }, VIDEO_POSTER)
      if (derivatives.problem) log.warn({ filename }, `video attachment ${derivatives.problem}`)
      return derivatives
    },
  }
}

// Looks for ffmpeg and ffprobe at boot. Without them videos still post and play, without a
// poster (and, without ffprobe, without a size).
export default fp(
  async function video(app, options: { config: Config }) {
    const attachments = await videoAttachments(options.config, app.log)
    app.decorate('video', attachments)
    app.addHook('onClose', () => attachments.processor.close())
  },
  { name: 'video' },
)
