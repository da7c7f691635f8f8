import { execFile, type ExecFileException } from 'node:child_process'
import { lowerProcess } from './background-priority.ts'
import { BoundedQueue } from './bounded-queue.ts'

// Video sizes and first frames, with Debian's ffprobe and ffmpeg run as child processes: never
// through a shell, the upload named as a file: URL, only the demuxers our video types use
// (MP4/QuickTime and Matroska/WebM; no playlists or concat lists that name other files or
// URLs), each run killed after a timeout, its output capped, and at most a couple at once.
// What a hostile file can do is fail, which the callers take as "no poster".

export class VideoError extends Error {}

// The video types a message shows in a player (and gets a poster for).
const VIDEO_TYPES = /^video\/(mp4|webm|quicktime)$/

export function isVideoType(contentType: string | null | undefined): boolean {
  return VIDEO_TYPES.test(contentType ?? '')
}

export interface VideoToolPaths {
  ffmpeg: string
  ffprobe: string
}

// The programs that answered `-version`; null where one is missing or broken, with why.
export interface VideoTools {
  ffmpeg: string | null
  ffprobe: string | null
  problems: string[]
}

// ActiveStorage::Analyzer::VideoAnalyzer's metadata: the displayed size (turned when the video
// is rotated a quarter turn, its height from the display aspect ratio), the duration in
// seconds, the rotation, and whether there are audio and video streams.
export interface VideoMetadata {
  width?: number
  height?: number
  duration?: number
  angle?: number
  display_aspect_ratio?: [number, number]
  audio: boolean
  video: boolean
}

export interface VideoProcessorOptions {
  concurrency?: number
  maxPending?: number
  timeoutMs?: number
}

const DEMUXERS = 'mov,matroska'
const INPUT_OPTIONS = ['-protocol_whitelist', 'file', '-format_whitelist', DEMUXERS]
const PROBE_OUTPUT_BYTES = 1024 * 1024
const FRAME_OUTPUT_BYTES = 32 * 1024 * 1024
// Rails' video_preview_arguments: the second of the frames selected from the first one, the
// keyframes and the scene changes (looped, so a video with one such frame gives that one).
// Only the first seconds are read, so a long video with no scene change is not decoded to its end.
const RELEVANT_FRAME = 'select=eq(n\\,0)+eq(key\\,1)+gt(scene\\,0.015),loop=loop=-1:size=2,trim=start_frame=1'
const FRAME_SEARCH_SECONDS = '5'

export function fileUrl(path: string): string {
  return `file:${path}`
}

function firstLine(stderr: Buffer | string): string {
  const line = String(stderr).split('\n').map((l) => l.trim()).find(Boolean) ?? ''
  return line.length > 200 ? `${line.slice(0, 200)}…` : line
}

interface RunOptions {
  timeoutMs: number
  maxBytes: number
  signal?: AbortSignal
}

// One run of a program, its standard output answered; any failure is a VideoError that says
// what happened in a line.
export function runTool(program: string, args: string[], options: RunOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      program,
      args,
      { encoding: 'buffer', timeout: options.timeoutMs, killSignal: 'SIGKILL', maxBuffer: options.maxBytes, signal: options.signal, windowsHide: true },
      (error: ExecFileException | null, stdout: Buffer, stderr: Buffer) => {
        if (!error) return resolve(stdout)
        const name = program.split('/').pop()
        if (error.code === 'ENOENT') return reject(new VideoError(`${name} was not found`))
        if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return reject(new VideoError(`${name} wrote more than ${options.maxBytes} bytes`))
        if (error.name === 'AbortError') return reject(new VideoError(`${name} was stopped`))
        if (error.killed) return reject(new VideoError(`${name} took longer than ${options.timeoutMs / 1000} s`))
        if (typeof error.code === 'string') return reject(new VideoError(`${name} could not be run (${error.code})`))
        const detail = firstLine(stderr)
        reject(new VideoError(`${name} failed (${error.signal ?? `exit ${error.code}`})${detail ? `: ${detail}` : ''}`))
      },
    )
    // Requests go first: the program runs at the lowest priority (lib/background-priority.ts).
    lowerProcess(child.pid)
  })
}

// Whether each program runs; the Previewer's `ffmpeg -version` check, done once at boot.
export async function findVideoTools(paths: VideoToolPaths): Promise<VideoTools> {
  const check = (program: string) =>
    runTool(program, ['-version'], { timeoutMs: 5000, maxBytes: 64 * 1024 }).then(
      () => ({ path: program, problem: null }),
      (error: VideoError) => ({ path: null, problem: `${error.message} (${program})` }),
    )
  const [ffmpeg, ffprobe] = await Promise.all([check(paths.ffmpeg), check(paths.ffprobe)])
  return { ffmpeg: ffmpeg.path, ffprobe: ffprobe.path, problems: [ffmpeg.problem, ffprobe.problem].filter((p): p is string => p !== null) }
}

type Json = Record<string, unknown>

function number(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value)
  return undefined
}

function integer(value: unknown): number | undefined {
  const n = number(value)
  return n !== undefined && Number.isInteger(n) ? n : undefined
}

// ffprobe's JSON (-show_streams -show_format) as VideoAnalyzer reads it.
export function videoMetadata(probe: Json): VideoMetadata {
  const streams = Array.isArray(probe.streams) ? (probe.streams as Json[]).filter((s) => s && typeof s === 'object') : []
  const video = streams.find((s) => s.codec_type === 'video')
  const audio = streams.find((s) => s.codec_type === 'audio')
  const container = (probe.format && typeof probe.format === 'object' ? probe.format : {}) as Json
  const metadata: VideoMetadata = { audio: audio !== undefined, video: video !== undefined }
  const duration = number(video?.duration) ?? number(container.duration)
  if (!video) return duration === undefined ? metadata : { duration, ...metadata }

  const tags = (video.tags && typeof video.tags === 'object' ? video.tags : {}) as Json
  const sideData = Array.isArray(video.side_data_list) ? (video.side_data_list as Json[]) : []
  const matrix = sideData.find((d) => d?.side_data_type === 'Display Matrix') ?? sideData[0]
  const angle = integer(tags.rotate) ?? integer(matrix?.rotation)
  const ratio = typeof video.display_aspect_ratio === 'string' ? video.display_aspect_ratio.split(':', 2).map(integer) : []
  const aspect = ratio.length === 2 && ratio[0] && ratio[1] ? ([ratio[0], ratio[1]] as [number, number]) : undefined
  const encodedWidth = number(video.width)
  const encodedHeight = number(video.height)
  const computedHeight = encodedWidth !== undefined && aspect ? (encodedWidth * aspect[1]) / aspect[0] : undefined
  const rotated = angle !== undefined && Math.abs(angle) % 180 === 90

  const width = rotated ? (computedHeight ?? encodedHeight) : encodedWidth
  const height = rotated ? encodedWidth : (computedHeight ?? encodedHeight)
  if (width !== undefined && width > 0) metadata.width = width
  if (height !== undefined && height > 0) metadata.height = height
  if (duration !== undefined) metadata.duration = duration
  if (angle !== undefined) metadata.angle = angle
  if (aspect) metadata.display_aspect_ratio = aspect
  return metadata
}

// Probing and frame grabbing through one small queue per app: at most `concurrency` runs at
// once and `maxPending` waiting; past that a video simply gets no poster.
export class VideoProcessor {
  private readonly queue: BoundedQueue
  private readonly timeoutMs: number

  constructor(
    readonly tools: VideoTools,
    options: VideoProcessorOptions = {},
  ) {
    this.queue = new BoundedQueue({ concurrency: options.concurrency ?? 2, maxPending: options.maxPending ?? 16 })
    this.timeoutMs = options.timeoutMs ?? 15_000
  }

  get canProbe(): boolean {
    return this.tools.ffprobe !== null
  }

  get canDrawFrames(): boolean {
    return this.tools.ffmpeg !== null
  }

  // The video's metadata, as VideoAnalyzer stores it.
  async probe(path: string): Promise<VideoMetadata> {
    const ffprobe = this.tools.ffprobe
    if (!ffprobe) throw new VideoError('ffprobe is not installed')
    const args = ['-v', 'error', ...INPUT_OPTIONS, '-print_format', 'json', '-show_streams', '-show_format', '--', fileUrl(path)]
    const output = await this.run((signal) => runTool(ffprobe, args, { timeoutMs: this.timeoutMs, maxBytes: PROBE_OUTPUT_BYTES, signal }))
    let parsed: unknown
    try {
      parsed = JSON.parse(output.toString('utf8'))
    } catch {
      throw new VideoError('ffprobe answered something that is not JSON')
    }
    if (!parsed || typeof parsed !== 'object') throw new VideoError('ffprobe answered something that is not JSON')
    return videoMetadata(parsed as Json)
  }

  // The first relevant frame (VideoPreviewer's), upright, as JPEG bytes.
  async relevantFrame(path: string): Promise<Buffer> {
    const ffmpeg = this.tools.ffmpeg
    if (!ffmpeg) throw new VideoError('ffmpeg is not installed')
    const args = ['-nostdin', '-hide_banner', '-v', 'error', ...INPUT_OPTIONS, '-t', FRAME_SEARCH_SECONDS, '-i', fileUrl(path), '-vf', RELEVANT_FRAME, '-frames:v', '1', '-f', 'image2', '-c:v', 'mjpeg', '-']
    const jpeg = await this.run((signal) => runTool(ffmpeg, args, { timeoutMs: this.timeoutMs, maxBytes: FRAME_OUTPUT_BYTES, signal }))
    if (jpeg.length < 3 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new VideoError('ffmpeg drew no frame')
    return jpeg
  }

  // Stops what runs and refuses what comes; for the app's close.
  close(): Promise<void> {
    return this.queue.close()
  }

  private run<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      const accepted = this.queue.push((signal) => work(signal).then(resolve, reject))
      if (!accepted) reject(new VideoError('too many videos are being processed'))
    })
  }
}
