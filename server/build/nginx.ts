import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { projectPath } from '../lib/paths.ts'
import { findProgram } from './debian-package.ts'

// The reverse-proxy test runs docs/proxies/nginx.conf in Debian's nginx. Installing the package
// would also start nginx as a service on port 80, so pretest takes only its program: the .deb is
// fetched with `apt-get download` and unpacked with `dpkg-deb -x` into tmp/nginx/ (no root, no
// service, nothing outside the checkout). NGINX_PATH, or an nginx on PATH, is used instead when set.
const UNPACKED = projectPath('tmp', 'nginx', 'root', 'usr', 'sbin', 'nginx')

// The nginx the test runs, or null when there is none yet.
export function nginxProgram(): string | null {
  if (process.env.NGINX_PATH) return findProgram(process.env.NGINX_PATH)
  return findProgram('nginx') ?? (existsSync(UNPACKED) ? UNPACKED : null)
}

// True when there is an nginx to run (unpacking Debian's first where it can be); false, with a
// line saying what to do, where it cannot be had. Where apt-get is there, failing is an error.
export function ensureNginx(): boolean {
  if (nginxProgram()) return true
  if (!findProgram('apt-get') || !findProgram('dpkg-deb')) {
    console.warn('nginx: missing; install it (apt-get install -y nginx) or set NGINX_PATH to run the reverse-proxy test')
    return false
  }
  console.log('nginx: unpacking Debian\u2019s nginx into tmp/nginx (the reverse-proxy test needs it)')
  const folder = projectPath('tmp', 'nginx')
  const scratch = `${folder}.${process.pid}`
  rmSync(scratch, { recursive: true, force: true })
  mkdirSync(scratch, { recursive: true })
  try {
    execFileSync('apt-get', ['download', 'nginx'], { cwd: scratch, stdio: ['ignore', 'inherit', 'inherit'] })
    const deb = readdirSync(scratch).find((name) => /^nginx_.*\.deb$/.test(name))
    if (!deb) throw new Error('nginx: apt-get download left no nginx_*.deb')
    execFileSync('dpkg-deb', ['-x', join(scratch, deb), join(scratch, 'root')], { stdio: 'inherit' })
    rmSync(folder, { recursive: true, force: true })
    renameSync(scratch, folder)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
  if (!nginxProgram()) throw new Error(`nginx: unpacked Debian's package but ${UNPACKED} is missing`)
  return true
}

// Run as a command (pretest); the path check keeps it quiet when imported.
if (/server[\\/]build[\\/]nginx\.ts$/.test(process.argv[1] ?? '')) ensureNginx()
