import { readdirSync } from 'node:fs'
import { rm } from 'node:fs/promises'
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

// Deletes files; one already gone is not an error.
export async function removeFiles(paths: string[]): Promise<void> {
  await Promise.all(paths.map((path) => rm(path, { force: true })))
}

// The files of blobs a commit dropped (blobPath's layout; a key that is not one names no file).
export async function removeBlobFiles(filesRoot: string, keys: string[]): Promise<void> {
  await removeFiles(keys.flatMap((key) => blobPath(filesRoot, key) ?? []))
}
