import type BetterSqlite3 from 'better-sqlite3'
import { account, enter, tally } from './cpu-ledger.ts'

// The CPU ledger's account (cpu-ledger.ts): transactions, commits and what the writes' own
// code does not claim (a presence update claims its own).
const WRITER = account('writer transactions')

interface Job<C> {
  run: (context: C) => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export interface WriterStats {
  batches: number
  writes: number
  retried: number
  // Times BEGIN IMMEDIATE found the write lock held by another connection (another process)
  // and the batch waited for it, and how long those waits took in all.
  lockWaits: number
  lockWaitMs: number
}

export interface WriterOptions {
  maxBatch?: number
  // How long a batch waits for another process's write lock before its writes fail.
  lockWaitMs?: number
}

const FIRST_RETRY_MS = 1
const LONGEST_RETRY_MS = 20

function isBusy(error: unknown): boolean {
  return typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY')
}

// The single write path. Writes run in arrival order on one connection. Writes that arrive
// while a batch is pending share its transaction (group commit), and every promise settles
// only after COMMIT, so an acknowledged write is already in the database file.
//
// SQLite lets one connection write at a time. When another holds the lock (a worker process
// beside this one, Rails, a sqlite3 shell), BEGIN IMMEDIATE fails at once (the connection's
// busy_timeout is 0) and the batch is tried again 1, 2, 4… ms later: the event loop serves
// requests meanwhile instead of sleeping in SQLite's busy handler. Nothing of the batch has run
// when BEGIN fails, so trying it again is safe, and it stays ahead of later writes.
export class Writer<C> {
  private queue: Job<C>[] = []
  private scheduled = false
  private closed = false
  private draining = false
  private waiting: { since: number; delay: number; timer: NodeJS.Timeout } | null = null
  private checkpointWanted: (() => boolean) | null = null
  private transactionTimes: { observe(seconds: number): void } | null = null
  private truncateOnce = false
  private readonly maxBatch: number
  private readonly lockWaitMs: number
  readonly stats: WriterStats = { batches: 0, writes: 0, retried: 0, lockWaits: 0, lockWaitMs: 0 }
  // Made once: better-sqlite3 builds a transaction function's wrappers on every db.transaction().
  private readonly runBatch: BetterSqlite3.Transaction<(batch: Job<C>[], results: unknown[]) => void>
  private readonly runJob: BetterSqlite3.Transaction<(job: Job<C>) => unknown>

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly context: C,
    options: WriterOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 256
    this.lockWaitMs = options.lockWaitMs ?? 5000
    db.pragma('busy_timeout = 0')
    this.runBatch = db.transaction((batch: Job<C>[], results: unknown[]) => {
      for (const job of batch) results.push(job.run(context))
    })
    this.runJob = db.transaction((job: Job<C>) => job.run(context))
  }

  write<T>(run: (context: C) => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the writer is closed'))
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject })
      this.schedule()
    })
  }

  // Runs one write immediately in its own transaction, ahead of the queue (boot-time only),
  // waiting for the lock in SQLite's busy handler.
  writeNow<T>(run: (context: C) => T): T {
    this.drain()
    return this.blocking(() => this.db.transaction(() => run(this.context)).immediate())
  }

  // After each committed batch, while `wanted()` says so, the WAL is checkpointed and truncated on
  // this connection, between transactions, where this process holds no read open. On a full disk
  // (plugins/disk-space.ts) the space freed would otherwise go to a WAL that can never restart
  // while writers keep coming, as a checkpoint from another thread finds it busy.
  checkpointAfterBatches(wanted: () => boolean): void {
    this.checkpointWanted = wanted
  }

  // Each committed batch's transaction time, in seconds, is observed into `times` (metrics).
  measureTransactions(times: { observe(seconds: number): void } | null): void {
    this.transactionTimes = times
  }

  // Once, after the next committed batch: the same checkpoint and truncation, so the WAL keeps no
  // frames from before that batch (an erasure's words).
  truncateWalAfterNextBatch(): void {
    this.truncateOnce = true
  }

  get pending(): number {
    return this.queue.length
  }

  // Runs everything still queued, synchronously (waiting for the lock in SQLite's busy
  // handler); used at shutdown.
  drain(): void {
    this.draining = true
    try {
      this.blocking(() => {
        this.stopWaiting()
        while (this.queue.length > 0) this.flush()
      })
    } finally {
      this.draining = false
    }
  }

  private blocking<T>(run: () => T): T {
    this.db.pragma(`busy_timeout = ${this.lockWaitMs}`)
    try {
      return run()
    } finally {
      this.db.pragma('busy_timeout = 0')
    }
  }

  close(): void {
    this.drain()
    this.closed = true
  }

  private schedule(): void {
    if (this.scheduled || this.waiting) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      const was = enter(WRITER)
      this.flush()
      enter(was)
      if (this.queue.length > 0) this.schedule()
    })
  }

  private flush(): void {
    const batch = this.queue.splice(0, this.maxBatch)
    if (batch.length === 0) return
    tally(WRITER)
    const results: unknown[] = []
    const times = this.transactionTimes
    const started = times === null ? 0 : performance.now()
    try {
      this.runBatch.immediate(batch, results)
    } catch (error) {
      if (isBusy(error)) return this.waitForLock(batch, error)
      this.stopWaiting()
      this.stats.retried += batch.length
      this.blocking(() => this.runOneByOne(batch))
      return
    }
    times?.observe((performance.now() - started) / 1000)
    this.stopWaiting()
    this.stats.batches++
    this.stats.writes += batch.length
    batch.forEach((job, i) => job.resolve(results[i]))
    if (this.truncateOnce || this.checkpointWanted?.()) {
      this.truncateOnce = false
      this.truncateWal()
    }
  }

  private truncateWal(): void {
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)')
    } catch {
      // Still no room to grow the database file: the next batch tries again.
    }
  }

  // Puts the batch back in front and tries again shortly, or, once it has waited lockWaitMs,
  // fails its writes with the busy error.
  private waitForLock(batch: Job<C>[], error: unknown): void {
    const now = performance.now()
    const since = this.waiting?.since ?? now
    // Draining, the batch has already waited in SQLite's busy handler.
    if (this.draining || now - since >= this.lockWaitMs) {
      this.stopWaiting()
      for (const job of batch) job.reject(error)
      if (this.queue.length > 0) this.schedule()
      return
    }
    this.queue.unshift(...batch)
    if (this.waiting === null) this.stats.lockWaits++
    const delay = this.waiting === null ? FIRST_RETRY_MS : Math.min(this.waiting.delay * 2, LONGEST_RETRY_MS)
    const timer = setTimeout(() => {
      this.flush()
      if (this.waiting === null && this.queue.length > 0) this.schedule()
    }, delay)
    this.waiting = { since, delay, timer }
  }

  private stopWaiting(): void {
    if (!this.waiting) return
    clearTimeout(this.waiting.timer)
    this.stats.lockWaitMs += performance.now() - this.waiting.since
    this.waiting = null
  }

  // After a failed batch each write gets its own transaction, so only the failing ones fail.
  private runOneByOne(batch: Job<C>[]): void {
    for (const job of batch) {
      try {
        const result = this.runJob.immediate(job)
        this.stats.batches++
        this.stats.writes++
        job.resolve(result)
      } catch (error) {
        job.reject(error)
      }
    }
  }
}
