import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'

// The browser tests drive Debian's Chromium. On a clean Debian/Ubuntu machine (CI runs as
// root) this installs it with apt when it is missing; elsewhere it only says what to do.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export function ensureChromium(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  if (!root || !existsSync('/usr/bin/apt-get')) {
    console.warn(`chromium: ${CHROMIUM_PATH} is missing; install it (apt-get install -y chromium) to run the browser tests`)
    return false
  }
  console.log('chromium: installing with apt-get (browser tests need it)')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  // Where it can be installed, failing to is an error, not a reason to skip the browser tests.
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env })
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium', 'fonts-dejavu-core', 'fonts-noto-color-emoji'], { stdio: 'inherit', env })
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`chromium: apt-get installed chromium but ${CHROMIUM_PATH} is still missing`)
  return true
}

// Run as a command (npm run build:assets / pretest); the path check keeps it quiet when bundled.
if (/server[\\/]build[\\/]chromium\.ts$/.test(process.argv[1] ?? '')) ensureChromium()
