// One connection's commands, run strictly in arrival order with at most one in flight.
//
// Rails hands a connection's commands to a thread pool, so an unsubscribe followed by a
// subscribe of the same identifier can run the other way round: the subscribe is refused
// as a duplicate and the page stays unsubscribed until the client retries. Here a command
// that awaits (a presence write) holds back everything behind it, and a command that
// finishes synchronously lets the next one run in the same tick, so a burst of cheap
// commands never piles up. The queue is bounded; a full queue means the client is flooding.

export type Outcome = void | Promise<void>

// The server's cable limits object itself, so a queue holds no copy of them.
export interface CommandQueueLimits {
  queuedCommands: number
  queuedBytes: number
}

// What runs the commands: the connection itself, so a queue adds no closures per socket.
export interface CommandHandler<T> {
  execute(item: T): Outcome
  commandFailed(error: unknown, item: T | null): void
}

interface Entry<T> {
  item: T
  bytes: number
}

export class CommandQueue<T> {
  private entries: (Entry<T> | undefined)[] = []
  private head = 0
  private queuedBytes = 0
  private inFlight = false
  private final: (() => Outcome) | null = null
  private finished: Promise<void> | null = null
  private resolveFinished: (() => void) | null = null

  constructor(
    private readonly handler: CommandHandler<T>,
    private readonly limits: CommandQueueLimits,
  ) {}

  // Commands waiting behind the one in flight.
  get length(): number {
    return this.entries.length - this.head
  }

  get bytes(): number {
    return this.queuedBytes
  }

  get busy(): boolean {
    return this.inFlight
  }

  get closed(): boolean {
    return this.finished !== null
  }

  // False when the queue is closed, or full (unless forced: the server's own commands).
  push(item: T, bytes = 0, force = false): boolean {
    if (this.closed) return false
    const full = this.length >= this.limits.queuedCommands || this.queuedBytes + bytes > this.limits.queuedBytes
    if (full && !force) return false
    this.entries.push({ item, bytes })
    this.queuedBytes += bytes
    this.pump()
    return true
  }

  // Drops whatever has not started, lets the command in flight finish, then runs `final`
  // (the connection's cleanup) as the very last step.
  close(final: () => Outcome): Promise<void> {
    if (this.finished) return this.finished
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve))
    this.entries = []
    this.head = 0
    this.queuedBytes = 0
    this.final = final
    if (!this.inFlight) this.runFinal()
    return this.finished
  }

  private pump(): void {
    while (!this.inFlight && this.head < this.entries.length) {
      const entry = this.take()
      const pending = this.invoke(() => this.handler.execute(entry.item), entry.item)
      if (!pending) continue
      this.inFlight = true
      void pending.then(() => {
        this.inFlight = false
        if (this.closed) this.runFinal()
        else this.pump()
      })
    }
  }

  private take(): Entry<T> {
    const entry = this.entries[this.head]!
    this.entries[this.head++] = undefined
    this.queuedBytes -= entry.bytes
    if (this.head === this.entries.length) {
      this.entries = []
      this.head = 0
    } else if (this.head >= 1024 && this.head * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.head)
      this.head = 0
    }
    return entry
  }

  // Runs one step; returns a promise only when it went asynchronous. Never rejects.
  private invoke(step: () => Outcome, item: T | null): Promise<void> | null {
    try {
      const outcome = step()
      if (!outcome) return null
      return outcome.catch((error: unknown) => this.handler.commandFailed(error, item))
    } catch (error) {
      this.handler.commandFailed(error, item)
      return null
    }
  }

  private runFinal(): void {
    const final = this.final
    if (!final) return
    this.final = null
    const pending = this.invoke(final, null)
    const resolve = this.resolveFinished!
    if (pending) void pending.then(resolve)
    else resolve()
  }
}
