import { existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

// mkdir -p without Node's recursive mkdir, which never returns under a folder such as /proc
// where a missing folder cannot be made (Node 20 retries the ENOENT forever, using a core).
export function makeFolder(path: string): void {
  const missing: string[] = []
  let at = resolve(path)
  while (!existsSync(at)) {
    missing.unshift(at)
    const parent = dirname(at)
    if (parent === at) break
    at = parent
  }
  if (existsSync(at) && !statSync(at).isDirectory()) throw new Error(`${at} is a file, not a folder`)
  for (const folder of missing) mkdirSync(folder)
}
