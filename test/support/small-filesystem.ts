import { execFileSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// A storage folder that can be filled and freed for real, whichever way this machine allows:
// a 20 MB tmpfs when mounting is permitted (root, as in CI), else a file-size limit
// (RLIMIT_FSIZE, set on the server process with prlimit) on an ordinary folder.
// CAMPFIRE_TEST_DISK=limit picks the limit even where mounting works, to try that path.
export interface SmallFilesystem {
  readonly kind: 'tmpfs' | 'file-size limit'
  readonly dir: string
  // Uses up the space (tmpfs: a filler file up to ENOSPC; limit: 4 KB per file for pid).
  fill(pid: number): void
  free(pid: number): void
  remove(): void
}

export function smallFilesystem(): SmallFilesystem {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-disk-'))
  const remove = () => rmSync(dir, { recursive: true, force: true })
  try {
    if (process.env.CAMPFIRE_TEST_DISK === 'limit') throw new Error('the file-size limit was asked for')
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=20m', 'tmpfs', dir], { stdio: 'ignore' })
    return tmpfs(dir, remove)
  } catch {
    return fileSizeLimit(dir, remove)
  }
}

// Ballast taken before the server starts and given back by free() with the fillers: under six
// posters on a fast machine the WAL alone can use up the 20 MB before fill() runs, and freeing
// only the fillers would then give back nothing (the WAL's checkpoint needs room to grow the
// database file). As an operator freeing space would, free() returns a good part of the disk.
const BALLAST_BYTES = 10 * 1024 * 1024

function tmpfs(dir: string, remove: () => void): SmallFilesystem {
  let fillers = 0
  const ballast = join(dir, 'ballast')
  const fd = openSync(ballast, 'w')
  try {
    writeSync(fd, Buffer.alloc(BALLAST_BYTES, 7))
  } finally {
    closeSync(fd)
  }
  return {
    kind: 'tmpfs',
    dir,
    fill() {
      const fd = openSync(join(dir, `filler-${fillers++}`), 'w')
      const chunk = Buffer.alloc(64 * 1024, 7)
      try {
        for (;;) writeSync(fd, chunk)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
        // What is left is under a chunk: take it a page at a time.
        try {
          for (;;) writeSync(fd, chunk, 0, 4096)
        } catch {
          // Full.
        }
      } finally {
        closeSync(fd)
      }
    },
    free() {
      for (let i = 0; i < fillers; i++) rmSync(join(dir, `filler-${i}`), { force: true })
      rmSync(ballast, { force: true })
    },
    remove() {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' })
      remove()
    },
  }
}

function fileSizeLimit(dir: string, remove: () => void): SmallFilesystem {
  return {
    kind: 'file-size limit',
    dir,
    fill(pid) {
      execFileSync('prlimit', ['--pid', String(pid), '--fsize=4096:unlimited'])
    },
    free(pid) {
      execFileSync('prlimit', ['--pid', String(pid), '--fsize=unlimited:unlimited'])
    },
    remove,
  }
}

// A tmpfs of `megabytes` at a new folder, or null where mounting is not permitted (not root):
// a real filesystem whose free space statfs reports, for the tests of the reserve.
export function tmpfsOf(megabytes: number): { dir: string; remove(): void } | null {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-tmpfs-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir], { stdio: 'ignore' })
  } catch {
    rmSync(dir, { recursive: true, force: true })
    return null
  }
  return {
    dir,
    remove() {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' })
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
