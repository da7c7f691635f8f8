// The clients bench:slow-clients puts beside its measurements, on plain sockets:
// - IdleCrowd: keep-alive connections that each made one request (GET /up), were answered, and
//   then sit idle, as a browser's spare connections do;
// - Slowloris: clients that send a request line and then their headers one byte a second and
//   never finish them; each one closed is replaced at once, so there are always `count`. Each
//   closed connection records how long it was held and whether it was answered 408.
import net from 'node:net'
import { percentiles } from './stats.ts'

export class IdleCrowd {
  readonly sockets = new Set<net.Socket>()
  opened = 0
  failed = 0
  closedByServer = 0
  private closing = false

  constructor(private readonly host: string, private readonly port: number) {}

  // Opens `count`, at most `parallel` at a time; answers once each has been answered (or failed).
  async open(count: number, parallel = 256): Promise<void> {
    let next = 0
    const worker = async () => {
      while (next < count) {
        next++
        await this.openOne()
      }
    }
    await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker))
  }

  get held(): number {
    return this.sockets.size
  }

  close(): void {
    this.closing = true
    for (const socket of this.sockets) socket.destroy()
    this.sockets.clear()
  }

  private openOne(): Promise<void> {
    return new Promise((resolve) => {
      const socket = net.connect({ host: this.host, port: this.port })
      let answered = false
      socket.setNoDelay(true)
      socket.once('connect', () => socket.write(`GET /up HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n\r\n`, 'latin1'))
      socket.on('data', (chunk: Buffer) => {
        if (answered) return
        answered = true
        if (!chunk.toString('latin1', 0, 12).startsWith('HTTP/1.1 200')) {
          this.failed++
          socket.destroy()
          return resolve()
        }
        this.opened++
        this.sockets.add(socket)
        resolve()
      })
      socket.on('error', () => {})
      socket.on('close', () => {
        if (this.sockets.delete(socket) && !this.closing) this.closedByServer++
        if (!answered) {
          this.failed++
          resolve()
        }
      })
    })
  }
}

export interface SlowlorisReport {
  clients: number
  // Connections the server closed while the crowd ran.
  closed: number
  answered_408: number
  closed_without_answer: number
  answered_otherwise: number
  // The first line of a few of those answers.
  otherwise_examples: string[]
  held: ReturnType<typeof percentiles>
  // Closed within the headers timeout plus one check interval and a second of slack.
  closed_in_time: number
}

export class Slowloris {
  private readonly sockets = new Set<net.Socket>()
  private readonly heldMs: number[] = []
  private answered408 = 0
  private silent = 0
  private other = 0
  private readonly otherExamples: string[] = []
  private running = false
  private ticker: NodeJS.Timeout | null = null

  constructor(private readonly host: string, private readonly port: number, private readonly count: number) {}

  start(): void {
    this.running = true
    for (let i = 0; i < this.count; i++) this.connect()
    // A byte a second on every socket: a header line that never ends.
    this.ticker = setInterval(() => {
      for (const socket of this.sockets) if (socket.writable) socket.write('X')
    }, 1000)
  }

  get open(): number {
    return this.sockets.size
  }

  stop(): void {
    this.running = false
    if (this.ticker) clearInterval(this.ticker)
    for (const socket of this.sockets) socket.destroy()
    this.sockets.clear()
  }

  report(headersTimeoutMs: number): SlowlorisReport {
    const limit = headersTimeoutMs + 2000
    return {
      clients: this.count,
      closed: this.heldMs.length,
      answered_408: this.answered408,
      closed_without_answer: this.silent,
      answered_otherwise: this.other,
      otherwise_examples: this.otherExamples,
      held: percentiles(this.heldMs),
      closed_in_time: this.heldMs.filter((ms) => ms <= limit).length,
    }
  }

  private connect(): void {
    if (!this.running) return
    const socket = net.connect({ host: this.host, port: this.port })
    const started = performance.now()
    let received = ''
    socket.setNoDelay(true)
    // Written now, so it is queued ahead of any byte the ticker adds while the socket connects.
    socket.write(`GET / HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\nX-Slow: `, 'latin1')
    socket.on('data', (chunk: Buffer) => {
      if (received.length < 64) received += chunk.toString('latin1', 0, 64)
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      if (!this.sockets.delete(socket) || !this.running) return
      this.heldMs.push(performance.now() - started)
      if (received.startsWith('HTTP/1.1 408')) this.answered408++
      else if (received === '') this.silent++
      else {
        this.other++
        if (this.otherExamples.length < 5) this.otherExamples.push(received.split('\r\n')[0]!)
      }
      this.connect()
    })
    this.sockets.add(socket)
  }
}
