import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'

// Every file below a folder (none when it does not exist), depth first.
export function listFiles(dir: string): string[] {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
  return entries.flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)]))
}

// Active Storage's disk service keeps a blob at <root>/<k[0..1]>/<k[2..3]>/<key>.
export function blobPath(filesRoot: string, key: string): string | null {
  if (!/^[A-Za-z0-9]{4,}$/.test(key)) return null
  return join(filesRoot, key.slice(0, 2), key.slice(2, 4), key)
}

// The disk service's root of a file laid out by blobPath (a variant is written beside its original).
export function filesRootOf(path: string): string {
  return dirname(dirname(dirname(path)))
}
