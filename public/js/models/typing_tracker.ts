export const REFRESH_MS = 1000
export const TIMEOUT_MS = 5000

// Remembers who is typing, forgetting anyone not heard from for five seconds.
export class TypingTracker {
  private readonly typists = new Map<number, { name: string; timer: ReturnType<typeof setTimeout> }>()

  constructor(private readonly changed: (names: string[]) => void) {}

  start(id: number, name: string): void {
    clearTimeout(this.typists.get(id)?.timer)
    this.typists.set(id, { name, timer: setTimeout(() => this.stop(id), TIMEOUT_MS) })
    this.changed(this.names())
  }

  stop(id: number): void {
    const typist = this.typists.get(id)
    if (!typist) return
    clearTimeout(typist.timer)
    this.typists.delete(id)
    this.changed(this.names())
  }

  names(): string[] {
    return [...this.typists.values()].map((t) => t.name)
  }
}
