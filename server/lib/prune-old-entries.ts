import { existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'

const A_DAY_MS = 24 * 60 * 60 * 1000

// Removes what a folder of build caches holds that nothing has written for a day (files or
// folders): the compiled server's chunks of earlier builds, the tests' bundles of earlier sources.
// A missing folder holds nothing.
export function pruneOlderThanADay(parent: string): void {
  if (!existsSync(parent)) return
  const before = Date.now() - A_DAY_MS
  for (const name of readdirSync(parent)) {
    const path = join(parent, name)
    if (statSync(path).mtimeMs < before) rmSync(path, { recursive: true, force: true })
  }
}
