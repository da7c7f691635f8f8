import type { Worker } from 'node:cluster'

interface Closable {
  close(): void
}
interface ClusterMessage {
  cmd?: string
  act?: string
  seq?: number
  ack?: number
}
type Send = (message: unknown, handle?: unknown, ...rest: unknown[]) => boolean

// In its round-robin mode the primary accepts each connection and hands it to a worker over
// IPC, keeping its own copy of the socket until the worker acknowledges it. A worker killed
// before it acknowledged never does: Node keeps that copy open for good (the client waits
// forever for an answer) and never fires the worker's `disconnect`. This keeps the connections
// handed to one worker and not yet acknowledged, so they can be closed when it dies.
export class Handoffs {
  private readonly pending = new Map<number, Closable>()

  constructor(worker: Worker) {
    const child = worker.process as unknown as { send: Send; on(event: 'internalMessage', listener: (message: ClusterMessage) => void): void }
    const send = child.send
    child.send = (message: unknown, handle?: unknown, ...rest: unknown[]) => {
      const sent = message as ClusterMessage
      if (handle && sent?.cmd === 'NODE_CLUSTER' && sent.act === 'newconn' && typeof sent.seq === 'number') this.pending.set(sent.seq, handle as Closable)
      return send.call(child, message, handle, ...rest)
    }
    child.on('internalMessage', (message) => {
      if (message?.cmd === 'NODE_CLUSTER' && typeof message.ack === 'number') this.pending.delete(message.ack)
    })
  }

  // Closes every connection the dead worker never acknowledged: its client sees the connection
  // end at once (the request was not answered, so nothing it sent was acknowledged) instead of
  // waiting for its own timeout. Returns how many there were.
  closeUnacknowledged(): number {
    const count = this.pending.size
    for (const handle of this.pending.values()) {
      try {
        handle.close()
      } catch {
        // Already closed.
      }
    }
    this.pending.clear()
    return count
  }
}
