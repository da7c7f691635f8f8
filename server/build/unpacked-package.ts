import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { projectPath } from '../lib/paths.ts'
import { findProgram } from './debian-package.ts'

// Some tests run a program of Debian's whose package would also start a service when installed
// (nginx, Caddy: a web server on port 80). pretest takes only the program: the .deb is fetched with
// `apt-get download` and unpacked with `dpkg-deb -x` into tmp/<package>/ (no root, no service,
// nothing outside the checkout). An environment variable, or the program on PATH, wins.
export interface UnpackedPackage {
  // The Debian package, and the folder under tmp/ it is unpacked into.
  package: string
  // The program's path inside the package: usr/sbin/nginx.
  program: string
  // The variable that names another binary: NGINX_PATH.
  variable: string
  // Who needs it, for the messages: "the reverse-proxy test".
  neededBy: string
}

// The program the tests run, or null when there is none yet.
export function unpackedProgram(wanted: UnpackedPackage): string | null {
  const named = process.env[wanted.variable]
  if (named) return findProgram(named)
  const unpacked = projectPath('tmp', wanted.package, 'root', wanted.program)
  return findProgram(wanted.program.split('/').pop()!) ?? (existsSync(unpacked) ? unpacked : null)
}

// True when there is a program to run (unpacking Debian's first where it can be); false, with a
// line saying what to do, where it cannot be had. Where apt-get is there, failing is an error.
export function ensureUnpacked(wanted: UnpackedPackage): boolean {
  if (unpackedProgram(wanted)) return true
  if (!findProgram('apt-get') || !findProgram('dpkg-deb')) {
    console.warn(`${wanted.package}: missing; install it (apt-get install -y ${wanted.package}) or set ${wanted.variable} to run ${wanted.neededBy}`)
    return false
  }
  console.log(`${wanted.package}: unpacking Debian's ${wanted.package} into tmp/${wanted.package} (${wanted.neededBy} needs it)`)
  const folder = projectPath('tmp', wanted.package)
  const scratch = `${folder}.${process.pid}`
  rmSync(scratch, { recursive: true, force: true })
  mkdirSync(scratch, { recursive: true })
  try {
    execFileSync('apt-get', ['download', wanted.package], { cwd: scratch, stdio: ['ignore', 'inherit', 'inherit'] })
    const deb = readdirSync(scratch).find((name) => name.startsWith(`${wanted.package}_`) && name.endsWith('.deb'))
    if (!deb) throw new Error(`${wanted.package}: apt-get download left no ${wanted.package}_*.deb`)
    execFileSync('dpkg-deb', ['-x', join(scratch, deb), join(scratch, 'root')], { stdio: 'inherit' })
    rmSync(folder, { recursive: true, force: true })
    renameSync(scratch, folder)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  if (!unpackedProgram(wanted)) throw new Error(`${wanted.package}: unpacked Debian's package but ${wanted.program} is not in it`)
  return true
}
