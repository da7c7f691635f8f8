import { opendir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { blobPath } from './files.ts'

export interface StrayFile {
  path: string
  key: string
  size: number
  mtimeMs: number
}

// A file is on disk before the row that names it commits (an upload is written, then renamed into
// place, then its blob row is inserted; a variant likewise), and an upload still arriving sits in
// tmp/. A file younger than this may still be waiting for its row, so it is never taken for a
// stray: far longer than any upload may take (HTTP_REQUEST_TIMEOUT is a minute by default).
export const STRAY_GRACE_MS = 60 * 60 * 1000

// The names our storage layout produces: a blob key (SecureRandom.base36(28), as Active Storage
// makes them) at <k0k1>/<k2k3>/<key>, and an upload arriving at tmp/<key>.upload. Anything
// else in the folder (an operator's README, a backup) is never ours to delete.
const KEY = /^[a-z0-9]{28}$/
const UPLOAD = /^([a-z0-9]{28})\.upload$/

// The key a path in the files folder was written under, and whether it is an upload still in
// tmp/; null for a path our layout never writes.
export function storedFileOf(filesRoot: string, path: string): { key: string; inTmp: boolean } | null {
  const name = path.slice(path.lastIndexOf('/') + 1)
  if (KEY.test(name) && blobPath(filesRoot, name) === path) return { key: name, inTmp: false }
  const upload = UPLOAD.exec(name)
  if (upload && join(filesRoot, 'tmp', name) === path) return { key: upload[1]!, inTmp: true }
  return null
}

// Walks the disk service's <k0k1>/<k2k3>/<key> folders a directory handle at a time (never the
// whole listing in memory) and yields the files our layout wrote that have been left alone for
// longer than STRAY_GRACE_MS: those whose key no blob row names, and uploads left in tmp/ by a crash.
export async function* strayFiles(filesRoot: string, keyExists: (key: string) => boolean, now = Date.now()): AsyncGenerator<StrayFile> {
  for await (const path of walk(filesRoot, 0)) {
    const stray = await strayNow(filesRoot, path, keyExists, now)
    if (stray) yield stray
  }
}

// Deletes the strays a scan found, each only after a second look: still a name our layout wrote,
// still unnamed by any blob row now (a row committed since the scan began keeps its file), still
// untouched for STRAY_GRACE_MS. Returns those it deleted.
export async function removeStrayFiles(filesRoot: string, strays: readonly StrayFile[], keyExists: (key: string) => boolean): Promise<StrayFile[]> {
  const removed: StrayFile[] = []
  for (const found of strays) {
    const stray = await strayNow(filesRoot, found.path, keyExists, Date.now())
    if (!stray || stray.mtimeMs !== found.mtimeMs) continue
    await rm(stray.path, { force: true })
    removed.push(stray)
  }
  return removed
}

async function strayNow(filesRoot: string, path: string, keyExists: (key: string) => boolean, now: number): Promise<StrayFile | null> {
  const stored = storedFileOf(filesRoot, path)
  if (!stored || (!stored.inTmp && keyExists(stored.key))) return null
  const stats = await stat(path).catch(() => null)
  if (!stats?.isFile() || now - stats.mtimeMs < STRAY_GRACE_MS) return null
  // Looked up again after the stat: a row that committed while the file was being looked at.
  if (!stored.inTmp && keyExists(stored.key)) return null
  return { path, key: stored.key, size: stats.size, mtimeMs: stats.mtimeMs }
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
