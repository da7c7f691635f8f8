import { statfsSync } from 'node:fs'

// How much room the storage folder's filesystem has left, sampled once a second with one
// statfs (never per request), and what is refused because of it. The reserve
// (CAMPFIRE_MIN_FREE_MB) is a floor for uploads: what is free counts the bytes being written
// now (uploads in flight, by their Content-Length, and chunked ones as they stream), and the
// upload that would take it below the reserve is refused. Within the reserve, other writes go
// on until its last quarter, which is kept for text posts and sign-ins. A write that failed for
// lack of space anyway (the disk filled between two samples, or a file-size limit) refuses
// every write but signing in until the next statfs says otherwise.
export type DiskLevel = 'ok' | 'low' | 'full'

export interface DiskSpaceOptions {
  minFreeBytes: number
  sampleMs?: number
}

// An upload's share of the space while it streams: wrote() counts each chunk before it is
// written, and throws ReserveReached for the chunk that would cross the reserve.
export interface UploadClaim {
  wrote(bytes: number): void
  release(): void
}

// An upload refused part-way through: its next bytes would take the disk below the reserve.
export class ReserveReached extends Error {
  readonly code = 'CAMPFIRE_DISK_RESERVE'

  constructor() {
    super('the upload would take the disk below CAMPFIRE_MIN_FREE_MB')
  }
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
  // Bytes uploads in flight have declared and not yet sent, and bytes counted since the last
  // statfs (which will see them once written).
  private expected = 0
  private writtenSinceSample = 0
  private failed = false
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
    const min = this.options.minFreeBytes
    const available = this.availableBytes
    return this.failed || available < min / 4 ? 'full' : available < min ? 'low' : 'ok'
  }

  // What the last statfs saw free.
  get freeBytes(): number {
    return this.free
  }

  // What is free once the bytes being written now are counted.
  get availableBytes(): number {
    return this.free - this.writtenSinceSample - this.expected
  }

  refusesUploads(incomingBytes = 0): boolean {
    return this.failed || this.availableBytes - incomingBytes < this.options.minFreeBytes
  }

  // Writes other than uploads, text posts and sign-ins.
  refusesWrites(): boolean {
    return this.failed || this.availableBytes < this.options.minFreeBytes / 4
  }

  // Text posts may use the reserve's last quarter, until a write has failed for lack of space.
  refusesTextPosts(): boolean {
    return this.failed
  }

  // Admits an upload that declares `declaredBytes` (0 when its length is unknown: chunked), or
  // null when those would take the disk below the reserve.
  claim(declaredBytes: number): UploadClaim | null {
    if (this.refusesUploads(declaredBytes)) return null
    let remaining = declaredBytes
    this.expected += remaining
    return {
      wrote: (bytes) => {
        const declared = Math.min(bytes, remaining)
        remaining -= declared
        this.expected -= declared
        this.writtenSinceSample += bytes
        if (bytes > declared && (this.failed || this.availableBytes < this.options.minFreeBytes)) throw new ReserveReached()
      },
      release: () => {
        this.expected -= remaining
        remaining = 0
      },
    }
  }

  // A write failed for lack of space: refuse writes until the next sample.
  sawOutOfSpace(): void {
    this.failed = true
    this.lastFullAt = performance.now()
  }

  // Space is short, or a write failed for lack of it in the last SHORT_AFTER_FULL_MS: the WAL
  // must not keep what little there is (the writer truncates it after each batch meanwhile).
  get short(): boolean {
    return this.level !== 'ok' || performance.now() - this.lastFullAt < SHORT_AFTER_FULL_MS
  }

  sample(): void {
    try {
      const stats = statfsSync(this.path)
      this.free = stats.bavail * stats.bsize
    } catch {
      // The folder is gone or unreadable: nothing to say about its space.
      this.free = Number.POSITIVE_INFINITY
    }
    this.writtenSinceSample = 0
    this.failed = false
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
