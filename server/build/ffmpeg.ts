import { ensureDebianPackage } from './debian-package.ts'

// Video posters and sizes come from Debian's ffmpeg (ffmpeg and ffprobe), installed by pretest
// where it can be (see debian-package.ts), so the tests of posters run in CI.
export const FFMPEG_PATH = process.env.FFMPEG_PATH || 'ffmpeg'
export const FFPROBE_PATH = process.env.FFPROBE_PATH || 'ffprobe'

export function ensureFfmpeg(): boolean {
  const neededBy = 'the video poster tests'
  return (
    ensureDebianPackage({ name: 'ffmpeg', program: FFMPEG_PATH, packages: ['ffmpeg'], neededBy }) &&
    ensureDebianPackage({ name: 'ffprobe', program: FFPROBE_PATH, packages: ['ffmpeg'], neededBy })
  )
}

// Run as a command (pretest); the path check keeps it quiet when imported.
if (/server[\\/]build[\\/]ffmpeg\.ts$/.test(process.argv[1] ?? '')) ensureFfmpeg()
