import { ensureDebianPackage } from './debian-package.ts'

// The browser tests drive Debian's Chromium, installed by pretest where it can be (see
// debian-package.ts).
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export function ensureChromium(): boolean {
  return ensureDebianPackage({
    name: 'chromium',
    program: CHROMIUM_PATH,
    packages: ['chromium', 'fonts-dejavu-core', 'fonts-noto-color-emoji'],
    neededBy: 'the browser tests',
  })
}

// Run as a command (npm run build:assets / pretest); the path check keeps it quiet when bundled.
if (/server[\\/]build[\\/]chromium\.ts$/.test(process.argv[1] ?? '')) ensureChromium()
