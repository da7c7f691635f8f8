// Background work with two bounds: at most `concurrency` tasks run at once, and at most
// `maxPending` wait their turn; a task offered to a full queue is refused (push answers false)
// rather than held, so a flood of work can never grow memory. Nothing here is awaited by the
// caller of push. Each task gets an AbortSignal that close() fires.
export interface BoundedQueueOptions {
  concurrency: number
  maxPending: number
  // A task's failure, after it settled; tasks are expected to handle their own errors.
  onError?: (error: unknown) => void
}

export type QueuedTask = (signal: AbortSignal) => Promise<void>

export class BoundedQueue {
  private readonly waiting: QueuedTask[] = []
  private readonly settledWaiters: (() => void)[] = []
  private readonly controller = new AbortController()
  private active = 0
  private closed = false

  constructor(private readonly options: BoundedQueueOptions) {
    if (!(options.concurrency >= 1) || !(options.maxPending >= 0)) throw new RangeError('a queue needs concurrency >= 1 and maxPending >= 0')
  }

  get running(): number {
    return this.active
  }

  get pending(): number {
    return this.waiting.length
  }

  get isClosed(): boolean {
    return this.closed
  }

  // Starts the task now if a slot is free, queues it otherwise; false when it is refused (the
  // queue is full or closed).
  push(task: QueuedTask): boolean {
    if (this.closed) return false
    if (this.active < this.options.concurrency) {
      this.start(task)
      return true
    }
    if (this.waiting.length >= this.options.maxPending) return false
    this.waiting.push(task)
    return true
  }

  // Resolves once nothing runs and nothing waits.
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve()
    return new Promise((resolve) => this.settledWaiters.push(resolve))
  }

  // Refuses new work, drops what waits, aborts what runs, and resolves when it has stopped.
  close(): Promise<void> {
    this.closed = true
    this.waiting.length = 0
    this.controller.abort(new Error('queue closed'))
    return this.idle()
  }

  private start(task: QueuedTask): void {
    this.active++
    let running: Promise<void>
    try {
      running = task(this.controller.signal)
    } catch (error) {
      running = Promise.reject(error)
    }
    running.catch((error: unknown) => this.options.onError?.(error)).finally(() => this.finish())
  }

  private finish(): void {
    this.active--
    const next = this.closed ? undefined : this.waiting.shift()
    if (next) this.start(next)
    else if (this.active === 0 && this.waiting.length === 0) for (const resolve of this.settledWaiters.splice(0)) resolve()
  }
}
