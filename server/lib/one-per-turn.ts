// A gate that lets one waiter through per turn of the event loop (each on its own setImmediate),
// so a burst of queued work never runs back to back: whatever else is waiting (a request's
// I/O, a timer) gets its turn between any two.
export class OnePerTurn {
  private readonly waiting: (() => void)[] = []
  private scheduled = false

  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve)
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(this.release)
      }
    })
  }

  private readonly release = (): void => {
    this.waiting.shift()?.()
    if (this.waiting.length > 0) setImmediate(this.release)
    else this.scheduled = false
  }
}
