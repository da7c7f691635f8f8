import type { PresenceTouch } from '../cable/channels/presence-writes.ts'

// Presence counts a membership's open tabs in `memberships.connections`, and every worker
// adds and removes its own with the same one-line updates, so tabs on different workers simply
// add up. A worker that is killed never takes its tabs away again; its primary does, from what
// the worker last said it held. A worker holds, per membership, the `present`s it wrote less
// the `disconnected`s (never below none), and reports the new number of each membership whose
// number changed, once its write is committed, in one message per turn with at most one in
// flight: what changes while one is on its way waits in the map and goes next, so the channel
// carries at most one message per membership touched, and a busy worker sends fewer, larger
// ones. A count written but not yet reported when the worker dies stays one too high until the
// membership lapses (60 s without a refresh), as a count on a crashed single process would.

export interface HeldConnectionsMessage {
  campfire: 'held-connections'
  // [roomId, userId, connections held, …]
  held: number[]
}

export function isHeldConnectionsMessage(message: unknown): message is HeldConnectionsMessage {
  return typeof message === 'object' && message !== null && (message as { campfire?: unknown }).campfire === 'held-connections' && Array.isArray((message as { held?: unknown }).held)
}

type Send = (message: HeldConnectionsMessage, done: (error: Error | null) => void) => void

// The worker's side: what it holds, and what it has yet to report.
export class HeldConnections {
  private readonly held = new Map<string, number>()
  private readonly unreported = new Map<string, [number, number]>()
  private sending = false
  private scheduled = false
  private idle: (() => void)[] = []

  constructor(private readonly send: Send) {}

  committed(touches: readonly PresenceTouch[], found: readonly boolean[]): void {
    for (let i = 0; i < touches.length; i++) {
      const { verb, roomId, userId } = touches[i]!
      if (!found[i] || verb === 'refresh') continue
      const key = `${roomId}:${userId}`
      const count = (this.held.get(key) ?? 0) + (verb === 'present' ? 1 : -1)
      if (count > 0) this.held.set(key, count)
      else this.held.delete(key)
      this.unreported.set(key, [roomId, userId])
    }
    this.schedule()
  }

  // Resolves once everything held so far has been reported (before a clean exit).
  flushed(): Promise<void> {
    if (!this.sending && !this.scheduled && this.unreported.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.idle.push(resolve))
  }

  private schedule(): void {
    if (this.sending || this.scheduled || this.unreported.size === 0) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      this.report()
    })
  }

  private report(): void {
    if (this.unreported.size === 0) return this.settle()
    const held: number[] = []
    for (const [key, [roomId, userId]] of this.unreported) held.push(roomId, userId, this.held.get(key) ?? 0)
    this.unreported.clear()
    this.sending = true
    this.send({ campfire: 'held-connections', held }, () => {
      this.sending = false
      this.report()
    })
  }

  private settle(): void {
    for (const resolve of this.idle.splice(0)) resolve()
  }
}

export interface Release {
  roomId: number
  userId: number
  count: number
}

// The primary's side: what each worker last said it held.
export class HeldConnectionsLedger {
  private readonly held = new Map<string, Release>()

  record(message: HeldConnectionsMessage): void {
    const values = message.held
    for (let i = 0; i + 2 < values.length; i += 3) {
      const [roomId, userId, count] = [values[i]!, values[i + 1]!, values[i + 2]!]
      if (!Number.isInteger(roomId) || !Number.isInteger(userId) || !Number.isInteger(count)) continue
      const key = `${roomId}:${userId}`
      if (count > 0) this.held.set(key, { roomId, userId, count })
      else this.held.delete(key)
    }
  }

  // Everything still held, emptying the ledger (its worker has died).
  takeAll(): Release[] {
    const releases = [...this.held.values()]
    this.held.clear()
    return releases
  }
}
