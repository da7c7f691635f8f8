import { execFileSync } from 'node:child_process'
import { accessSync, constants, existsSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'

// Tests drive some of Debian's programs (Chromium, ffmpeg). On a clean Debian/Ubuntu machine
// (CI runs as root) a missing one is installed with apt; elsewhere this only says what to do.
export interface DebianPackage {
  // What it is called in messages: "chromium", "ffmpeg".
  name: string
  // The program that shows it is installed: an absolute path, or a name looked up on PATH.
  program: string
  // What apt installs for it.
  packages: readonly string[]
  // Who needs it, for the messages: "the browser tests".
  neededBy: string
  // For a package that brings no program (a Python module): the file that shows it is installed.
  file?: string
}

// The program's path: itself when absolute, else the first executable of that name on PATH.
export function findProgram(program: string, path = process.env.PATH ?? ''): string | null {
  const candidates = isAbsolute(program) || program.includes('/') ? [program] : path.split(delimiter).filter(Boolean).map((dir) => join(dir, program))
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {}
  }
  return null
}

// True when the program is there (installing it first where that is possible); false where it
// is missing and cannot be installed here. Where it can be installed, failing to is an error,
// not a reason for the tests that need it to skip.
export function ensureDebianPackage(wanted: DebianPackage): boolean {
  const installed = () => (wanted.file === undefined ? findProgram(wanted.program) !== null : findProgram(wanted.program) !== null && existsSync(wanted.file))
  if (installed()) return true
  const root = typeof process.getuid === 'function' && process.getuid() === 0
  if (!root || !existsSync('/usr/bin/apt-get')) {
    console.warn(`${wanted.name}: ${wanted.program} is missing; install it (apt-get install -y ${wanted.packages.join(' ')}) to run ${wanted.neededBy}`)
    return false
  }
  console.log(`${wanted.name}: installing with apt-get (${wanted.neededBy} need it)`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env })
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...wanted.packages], { stdio: 'inherit', env })
  if (!installed()) throw new Error(`${wanted.name}: apt-get installed ${wanted.packages.join(' ')} but ${wanted.file ?? wanted.program} is still missing`)
  return true
}
