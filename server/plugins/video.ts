import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import { findVideoTools, isVideoType, VideoProcessor } from '../lib/video.ts'
import { makeVideoDerivatives, type VideoDerivatives } from '../lib/video-posters.ts'
import { VIDEO_POSTER } from '../models/blob/variations.ts'

export interface VideoAttachments {
  // Why posters (or sizes) are off, when they are, once the programs have been looked for;
  // main.ts logs it once, after the server listens.
  readonly problem: Promise<string | null>
  // A stored upload's video metadata and poster files, made before its message is written;
  // null when it is not a video. What fails is logged in one line and left out.
  prepare(upload: { path: string; contentType: string }, filename: string): Promise<VideoDerivatives | null>
  // Stops what is running (and what waits); nothing runs before the programs are found.
  close(): Promise<void>
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

// The video tools for one files folder: looked for once, in the background, when first asked
// (main.ts asks for `problem` once the server listens; starting both programs is some 15 ms of a
// cold start, and running them most of a second on a busy machine, and nothing but a video upload
// needs the answer), then each video upload's metadata and poster made with them. The server
// decorates the app with one (below); the Slack import makes its own.
export function videoAttachments(config: Config, log: { warn(details: object, message: string): void }): VideoAttachments {
  let found: Promise<{ tools: Awaited<ReturnType<typeof findVideoTools>>; processor: VideoProcessor }> | null = null
  const find = () => (found ??= videoTools(config).then((tools) => ({ tools, processor: new VideoProcessor(tools) })))
  const { filesPath } = config
  return {
    get problem() {
      return find().then(({ tools }) => problemWith(tools))
    },
    // Does not wait for the programs to be found (a stop during the first second of a boot
    // would wait out their check): nothing runs before they are.
    async close() {
      void found?.then(({ processor }) => processor.close())
    },
    async prepare(upload, filename) {
      if (!isVideoType(upload.contentType)) return null
      const { processor } = await find()
      const derivatives = await makeVideoDerivatives(processor, filesPath, { path: upload.path, filename }, VIDEO_POSTER)
      if (derivatives.problem) log.warn({ filename }, `video attachment ${derivatives.problem}`)
      return derivatives
    },
  }
}

// Starts looking for ffmpeg and ffprobe at boot. Without them videos still post and play,
// without a poster (and, without ffprobe, without a size).
export default fp(
  async function video(app, options: { config: Config }) {
    const attachments = videoAttachments(options.config, app.log)
    app.decorate('video', attachments)
    app.addHook('onClose', () => attachments.close())
  },
  { name: 'video' },
)
