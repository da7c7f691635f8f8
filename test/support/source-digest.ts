import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../../server/lib/paths.ts'

// A short digest of every file under the given project paths (folders walked whole), names and
// contents: what tmp/ caches built from the sources are keyed on, so an edit means a new copy.
export function sourceDigest(paths: string[], extra = ''): string {
  const hash = createHash('sha256').update(extra).update('\0')
  for (const path of paths) {
    const full = join(ROOT, path)
    const files = statSync(full).isDirectory()
      ? readdirSync(full, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => join(entry.parentPath, entry.name))
          .sort()
      : [full]
    for (const file of files) hash.update(file).update('\0').update(readFileSync(file)).update('\0')
  }
  return hash.digest('hex').slice(0, 16)
}
