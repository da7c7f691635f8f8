import { readdirSync, readFileSync } from 'node:fs'
import { constants, setPriority } from 'node:os'

// Image and video work yields the CPU to requests. libvips decodes on threads of its own (named
// "libvips worker"), and Linux keeps a nice value per thread, so those threads are lowered to
// the lowest priority: on a busy core the event loop then gets nearly all of it (a weight of
// 1024 against 15) and a thumbnail is made with what is left, while on an idle machine it runs
// as fast as before. ffmpeg and ffprobe are lowered the same way as processes. Elsewhere than
// Linux (no /proc/self/task) this does nothing.
export const BACKGROUND_PRIORITY = constants.priority.PRIORITY_LOW

// Threads already looked at (a libvips thread keeps its name, and others never become one).
const seen = new Set<number>()

function threadName(tid: string): string {
  try {
    return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim()
  } catch {
    return ''
  }
}

// Lowers every libvips thread not lowered yet; cheap enough to call after each image job
// (a directory listing, and a name read only for threads not seen before).
export function lowerImageThreads(): void {
  let tids: string[]
  try {
    tids = readdirSync('/proc/self/task')
  } catch {
    return
  }
  for (const tid of tids) {
    const id = Number(tid)
    if (seen.has(id)) continue
    seen.add(id)
    if (!threadName(tid).startsWith('libvips')) continue
    try {
      setPriority(id, BACKGROUND_PRIORITY)
    } catch {
      // A thread that has just ended.
    }
  }
  if (seen.size > 10_000) seen.clear()
}

export function lowerProcess(pid: number | undefined): void {
  if (pid === undefined) return
  try {
    setPriority(pid, BACKGROUND_PRIORITY)
  } catch {
    // It has already exited.
  }
}
