import type BetterSqlite3 from 'better-sqlite3'

interface Job<C> {
  run: (context: C) => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export interface WriterStats {
  batches: number
  writes: number
  retried: number
}

// The single write path. Writes run in arrival order on one connection. Writes that arrive
// while a batch is pending share its transaction (group commit), and every promise settles
// only after COMMIT, so an acknowledged write is already in the database file.
export class Writer<C> {
  private queue: Job<C>[] = []
  private scheduled = false
  private closed = false
  readonly stats: WriterStats = { batches: 0, writes: 0, retried: 0 }
  // Made once: better-sqlite3 builds a transaction function's wrappers on every db.transaction().
  private readonly runBatch: BetterSqlite3.Transaction<(batch: Job<C>[], results: unknown[]) => void>
  private readonly runJob: BetterSqlite3.Transaction<(job: Job<C>) => unknown>

  constructor(
    private readonly db: BetterSqlite3.Database,
    private readonly context: C,
    private readonly maxBatch = 256,
  ) {
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

  // Runs one write immediately in its own transaction, ahead of the queue (boot-time only).
  writeNow<T>(run: (context: C) => T): T {
    this.drain()
    return this.db.transaction(() => run(this.context)).immediate()
  }

  get pending(): number {
    return this.queue.length
  }

  // Runs everything still queued, synchronously; used at shutdown.
  drain(): void {
    while (this.queue.length > 0) this.flush()
  }

  close(): void {
    this.drain()
    this.closed = true
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.flush()
      if (this.queue.length > 0) this.schedule()
    })
  }

  private flush(): void {
    const batch = this.queue.splice(0, this.maxBatch)
    if (batch.length === 0) return
    const results: unknown[] = []
    try {
      this.runBatch.immediate(batch, results)
    } catch {
      this.stats.retried += batch.length
      this.runOneByOne(batch)
      return
    }
    this.stats.batches++
    this.stats.writes += batch.length
    batch.forEach((job, i) => job.resolve(results[i]))
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
