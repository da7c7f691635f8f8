import { opendir, stat } from 'node:fs/promises'
import { join } from 'node:path'

export interface StrayFile {
  path: string
  key: string
  size: number
}

// Walks the disk service's <k0k1>/<k2k3>/<key> folders a directory handle at a time (never the
// whole listing in memory) and yields the files whose key no blob row names, and uploads
// left in tmp/ by a crash (older than an hour: a newer one may still be arriving).
export async function* strayFiles(filesRoot: string, keyExists: (key: string) => boolean, now = Date.now()): AsyncGenerator<StrayFile> {
  for await (const path of walk(filesRoot, 0)) {
    const name = path.slice(path.lastIndexOf('/') + 1)
    const inTmp = path.startsWith(join(filesRoot, 'tmp') + '/')
    if (!inTmp && keyExists(name)) continue
    const stats = await stat(path).catch(() => null)
    if (!stats || (inTmp && now - stats.mtimeMs < 60 * 60 * 1000)) continue
    yield { path, key: name, size: stats.size }
  }
}

async function* walk(dir: string, depth: number): AsyncGenerator<string> {
  let handle
  try {
    handle = await opendir(dir)
  } catch {
    return
  }
  for await (const entry of handle) {
    const path = join(dir, entry.name)
    if (entry.isDirectory() && depth < 2) yield* walk(path, depth + 1)
    else if (entry.isFile()) yield path
  }
}
