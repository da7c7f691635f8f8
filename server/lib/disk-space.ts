import { statfsSync } from 'node:fs'

// How much room the storage folder's filesystem has left, sampled once a second with one
// statfs (never per request), and what is refused because of it. Below the reserve
// (CAMPFIRE_MIN_FREE_MB) new uploads are refused; below a quarter of it, every write is, so
// what is left stays for the WAL and its checkpoint. A write that failed for lack of space
// anyway (the disk filled between two samples, or a file-size limit) counts as a sample of
// nothing free until the next statfs says otherwise.
export type DiskLevel = 'ok' | 'low' | 'full'

export interface DiskSpaceOptions {
  minFreeBytes: number
  sampleMs?: number
}

const OUT_OF_SPACE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_IOERR_SHORT_WRITE'])

// Whether an error is the storage refusing a write for lack of room: ENOSPC and friends from
// Node's fs, SQLITE_FULL (or a write error: SQLite reports a file-size limit's EFBIG so) from SQLite.
export function isOutOfSpace(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && OUT_OF_SPACE_CODES.has(code)
}

const SHORT_AFTER_FULL_MS = 30_000

export class DiskSpace {
  private free = Number.POSITIVE_INFINITY
  private current: DiskLevel = 'ok'
  private lastFullAt = Number.NEGATIVE_INFINITY
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly path: string,
    private readonly options: DiskSpaceOptions,
  ) {
    this.sample()
    this.timer = setInterval(() => this.sample(), options.sampleMs ?? 1000)
    this.timer.unref()
  }

  get level(): DiskLevel {
    return this.current
  }

  get freeBytes(): number {
    return this.free
  }

  refusesUploads(incomingBytes = 0): boolean {
    return this.current !== 'ok' || this.free - incomingBytes < this.options.minFreeBytes
  }

  refusesWrites(): boolean {
    return this.current === 'full'
  }

  // A write failed for lack of space: refuse writes until the next sample.
  sawOutOfSpace(): void {
    this.current = 'full'
    this.lastFullAt = performance.now()
  }

  // Space is short, or a write failed for lack of it in the last SHORT_AFTER_FULL_MS: the WAL
  // must not keep what little there is (the writer truncates it after each batch meanwhile).
  get short(): boolean {
    return this.current !== 'ok' || performance.now() - this.lastFullAt < SHORT_AFTER_FULL_MS
  }

  sample(): void {
    try {
      const stats = statfsSync(this.path)
      this.free = stats.bavail * stats.bsize
    } catch {
      // The folder is gone or unreadable: nothing to say about its space.
      this.free = Number.POSITIVE_INFINITY
    }
    const min = this.options.minFreeBytes
    this.current = this.free < min / 4 ? 'full' : this.free < min ? 'low' : 'ok'
  }

  close(): void {
    clearInterval(this.timer)
  }
}

// One warning a minute while space is short, with how many writes were refused since the last.
export class Throttled {
  private last = Number.NEGATIVE_INFINITY
  private suppressed = 0

  constructor(private readonly intervalMs = 60_000) {}

  // Whether to log now, and how many were held back since the last line.
  next(now = performance.now()): number | null {
    if (now - this.last < this.intervalMs) {
      this.suppressed++
      return null
    }
    this.last = now
    const held = this.suppressed
    this.suppressed = 0
    return held
  }
}

const warnings = new Throttled()

// Logs a write the storage refused for lack of space: one warning a minute in this process,
// with how many were refused since, whatever refused them (a request, a socket's presence).
export function warnOutOfSpace(log: { warn(details: object, message: string): void }, details: object): void {
  const held = warnings.next()
  if (held !== null) log.warn({ ...details, refusedSinceLastWarning: held }, 'out of disk space: refusing writes')
}

// Logs an error at error level, or, when it is the disk being full, as warnOutOfSpace does.
export function logWriteFailure(log: { error(details: object, message: string): void; warn(details: object, message: string): void }, err: unknown, details: object, message: string): void {
  if (isOutOfSpace(err)) warnOutOfSpace(log, { ...details, cause: (err as { code: string }).code })
  else log.error({ err, ...details }, message)
}
