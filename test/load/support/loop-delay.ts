// The server's event-loop delay, as the probe preloaded into it reports (loop-probe.mjs): the
// bench starts the server with the probe's NODE_OPTIONS and a pipe as its fd 3 (PROBE_ENV,
// PROBE_FD), then asks for a lap at the start and the end of every measured phase.
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Readable, Writable } from 'node:stream'

export const PROBE_FD = 3
export const PROBE_FILE = fileURLToPath(new URL('./loop-probe.mjs', import.meta.url))

export interface LoopDelay {
  secs: number
  samples: number
  p50_ms: number
  p99_ms: number
  max_ms: number
  mean_ms: number
  ticks: number
  stalls_over_10ms: number
  stalled_ms: number
  longest_stall_ms: number
  // With worker processes (WEB_CONCURRENCY): the figures above are theirs (the worst worker's
  // delays, their stalls added up), each worker's are here, and the supervising process's.
  workers?: LoopDelay[]
  primary?: LoopDelay
  // Workers there were but not probed (no CAMPFIRE_LOOP_PROBE_WORKERS): the figures are the primary's.
  unprobed_workers?: number
  // The server's CPU by part over the lap (server/lib/cpu-ledger.ts, CAMPFIRE_CPU_LEDGER=1):
  // ms of CPU and events per account; `gc` is the collector's pauses, inside the other parts.
  cpu_ledger?: Record<string, { ms: number; count: number }>
  // The server's memory at the lap's end (loop-probe.mjs, memoryNow): RSS and V8's figures in MB,
  // each heap space's used MB, and what the server says of its caches and sockets.
  memory?: ServerMemory
}

export interface ServerMemory {
  rss_mb: number
  heap_total_mb: number
  heap_used_mb: number
  external_mb: number
  array_buffers_mb: number
  heap_spaces_used_mb: Record<string, number>
  server: Record<string, unknown> | null
  // The same after a full collection (bench:users --memory-after-gc): what is live.
  after_full_gc?: Omit<ServerMemory, 'after_full_gc'>
}

// What the server's environment gains: the probe preloaded (after any NODE_OPTIONS already set)
// and told where its pipe is, and whether to probe its cluster workers too.
export function probeEnv(existing = process.env.NODE_OPTIONS, workers = false): Record<string, string> {
  return {
    NODE_OPTIONS: `${existing ? existing + ' ' : ''}--import ${pathToFileURL(PROBE_FILE).href}`,
    CAMPFIRE_LOOP_PROBE_FD: String(PROBE_FD),
    ...(workers ? { CAMPFIRE_LOOP_PROBE_WORKERS: '1' } : {}),
  }
}

export class LoopProbe {
  private buffered = ''
  private sequence = 0
  private readonly waiting = new Map<number, (delay: LoopDelay | null) => void>()

  constructor(private readonly channel: Readable & Writable) {
    channel.setEncoding('latin1')
    channel.on('data', (text: string) => {
      this.buffered += text
      for (let end = this.buffered.indexOf('\n'); end >= 0; end = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, end)
        this.buffered = this.buffered.slice(end + 1)
        let reply: LoopDelay & { lap?: number }
        try {
          reply = JSON.parse(line)
        } catch {
          continue
        }
        const { lap, ...delay } = reply
        this.waiting.get(lap ?? -1)?.(delay)
      }
    })
    channel.on('error', () => this.flush())
    channel.on('close', () => this.flush())
  }

  // The figures since the previous lap, or null when the probe does not answer within timeoutMs
  // (a server without it, or one that stalls that long; a late answer is dropped).
  lap(timeoutMs = 5000): Promise<LoopDelay | null> {
    const id = ++this.sequence
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(null), timeoutMs)
      const done = (delay: LoopDelay | null) => {
        clearTimeout(timer)
        this.waiting.delete(id)
        resolve(delay)
      }
      this.waiting.set(id, done)
      this.channel.write(`lap ${id}\n`)
    })
  }

  private flush(): void {
    for (const done of [...this.waiting.values()]) done(null)
  }
}

// One line for the console: "p50 0.02 / p99 3.1 / max 48 ms, 3 stalls > 10 ms (61 ms)", and
// with workers "…; the worst of 2 workers, stalls of all" (or "…; the idle primary's, its 2
// workers unprobed").
export function describeLoopDelay(delay: LoopDelay | null | undefined): string {
  if (!delay) return 'n/a'
  const workers = delay.workers ? `; the worst of ${delay.workers.length} workers, stalls of all` : delay.unprobed_workers ? `; the idle primary's, its ${delay.unprobed_workers} workers unprobed` : ''
  return `p50 ${delay.p50_ms} / p99 ${delay.p99_ms} / max ${delay.max_ms} ms, ${delay.stalls_over_10ms} stall${delay.stalls_over_10ms === 1 ? '' : 's'} > 10 ms (${delay.stalled_ms} ms)${workers}`
}
