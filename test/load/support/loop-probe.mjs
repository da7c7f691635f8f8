// Preloaded into the server under test by bench:users and bench:routes (NODE_OPTIONS=--import
// <this file>; see loop-delay.ts): measures the main thread's event-loop delay, with no change to
// the product. The server runs compiled dist/main.js under plain node, so this is plain JavaScript.
//
// It does nothing unless CAMPFIRE_LOOP_PROBE_FD names an inherited file descriptor (the bench
// passes a pipe as fd 3), and only on the main thread; it then removes that variable, so
// processes and workers the server starts stay unprobed. Its cluster workers (WEB_CONCURRENCY)
// it measures too when CAMPFIRE_LOOP_PROBE_WORKERS=1, asking them over the cluster's IPC channel
// (their own 1 ms timers then cost them CPU: see docs/benchmarks.md). On that
// descriptor, each line "lap N" is answered with one line of JSON ({"lap": N, …}) covering the
// time since the previous lap (or the start):
//   - perf_hooks.monitorEventLoopDelay at 1 ms resolution: p50, p99, max and mean of the delay,
//     the time between its 1 ms timer's ticks beyond the 1 ms asked for;
//   - a 1 ms interval timer's lateness: how many ticks came more than 10 ms late (stalls), their
//     total and the longest, in ms.
// With probed workers, the figures are theirs (the worst worker's delays, their stalls added up),
// with each worker's own under "workers" and the supervising process's under "primary"; with
// unprobed ones, the primary's, and how many workers went unprobed.
import cluster from 'node:cluster'
import net from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import v8 from 'node:v8'
import { isMainThread } from 'node:worker_threads'

const RESOLUTION_MS = 1
const STALL_MS = 10
const WORKER_ANSWER_MS = 1000
const fd = Number(process.env.CAMPFIRE_LOOP_PROBE_FD)
const WORKER_MARK = 'CAMPFIRE_LOOP_PROBE_WORKER'

if (isMainThread && cluster.isWorker && process.env[WORKER_MARK] === '1') {
  delete process.env[WORKER_MARK]
  answerPrimary(meter())
} else if (isMainThread && Number.isInteger(fd) && fd > 2) {
  delete process.env.CAMPFIRE_LOOP_PROBE_FD
  if (process.env.CAMPFIRE_LOOP_PROBE_WORKERS === '1') process.env[WORKER_MARK] = '1'
  delete process.env.CAMPFIRE_LOOP_PROBE_WORKERS
  answerBench(fd, meter(), process.env[WORKER_MARK] === '1')
}

// This thread's loop: lap() gives the figures since the previous lap and starts the next.
function meter() {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  histogram.enable()
  let lapStarted = performance.now()
  let stalls = 0
  let stalledMs = 0
  let longestMs = 0
  let ticks = 0
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    const late = now - last - RESOLUTION_MS
    last = now
    ticks++
    if (late > STALL_MS) {
      stalls++
      stalledMs += late
      if (late > longestMs) longestMs = late
    }
  }, RESOLUTION_MS)
  timer.unref()

  const excess = (ns) => Math.round(Math.max(0, ns / 1e6 - RESOLUTION_MS) * 1000) / 1000
  return () => {
    const now = performance.now()
    const figures = {
      secs: Math.round((now - lapStarted) / 10) / 100,
      samples: histogram.count,
      p50_ms: excess(histogram.percentile(50)),
      p99_ms: excess(histogram.percentile(99)),
      max_ms: excess(histogram.max),
      mean_ms: excess(histogram.mean),
      ticks,
      stalls_over_10ms: stalls,
      stalled_ms: Math.round(stalledMs),
      longest_stall_ms: Math.round(longestMs * 10) / 10,
    }
    histogram.reset()
    lapStarted = now
    stalls = 0
    stalledMs = 0
    longestMs = 0
    ticks = 0
    return figures
  }
}

function answerPrimary(lap) {
  process.on('message', (message) => {
    if (message?.campfireLoopProbe === 'lap') process.send?.({ campfireLoopProbe: 'figures', id: message.id, figures: lap() })
  })
}

function answerBench(descriptor, lap, probesWorkers) {
  const answers = new Map()
  cluster.on('message', (worker, message) => {
    if (message?.campfireLoopProbe === 'figures') answers.get(message.id)?.(worker.id, message.figures)
  })
  // The workers' laps, or none (one process): each worker that answers in time.
  const workersLap = (id) => {
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker?.isConnected())
    if (workers.length === 0 || !probesWorkers) return Promise.resolve([])
    return new Promise((resolve) => {
      const got = new Map()
      const done = () => {
        clearTimeout(timer)
        answers.delete(id)
        resolve([...got.entries()].sort(([a], [b]) => a - b).map(([, figures]) => figures))
      }
      const timer = setTimeout(done, WORKER_ANSWER_MS)
      answers.set(id, (workerId, figures) => {
        got.set(workerId, figures)
        if (got.size === workers.length) done()
      })
      for (const worker of workers) worker.send({ campfireLoopProbe: 'lap', id })
    })
  }

  const channel = new net.Socket({ fd: descriptor, readable: true, writable: true })
  channel.unref()
  channel.on('error', () => {})
  let pending = ''
  channel.on('data', (chunk) => {
    pending += chunk.toString('latin1')
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const command = pending.slice(0, end).trim()
      pending = pending.slice(end + 1)
      const [word, id] = command.split(' ')
      if (word !== 'lap') continue
      const own = lap()
      // The server's CPU ledger (server/lib/cpu-ledger.ts), when CAMPFIRE_CPU_LEDGER=1 turned it on.
      const ledger = globalThis[Symbol.for('campfire.cpu-ledger')]?.lap() ?? null
      const memory = memoryNow()
      // With --expose-gc (bench:users --memory-after-gc) the same figures again after a full
      // collection: what is live, apart from garbage not yet collected.
      if (typeof globalThis.gc === 'function') {
        globalThis.gc()
        memory.after_full_gc = memoryNow()
      }
      const unprobed = probesWorkers ? 0 : Object.keys(cluster.workers ?? {}).length
      void workersLap(Number(id)).then((workers) => {
        const figures = workers.length > 0 ? { ...worst(workers, own.secs), primary: own, workers } : unprobed > 0 ? { ...own, unprobed_workers: unprobed } : own
        channel.write(JSON.stringify({ lap: Number(id), ...figures, memory, ...(ledger ? { cpu_ledger: ledger } : {}) }) + '\n')
      })
    }
  })
}

// Where this process's memory is at the lap, in MB: RSS and V8's own figures, each heap space's
// used size, and what the server's caches and sockets say of themselves (the server puts a
// function at Symbol.for('campfire.memory'); plugins/memory-report.ts).
function memoryNow() {
  const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10
  const usage = process.memoryUsage()
  const spaces = {}
  for (const space of v8.getHeapSpaceStatistics()) spaces[space.space_name] = mb(space.space_used_size)
  const own = globalThis[Symbol.for('campfire.memory')]?.() ?? null
  return { rss_mb: mb(usage.rss), heap_total_mb: mb(usage.heapTotal), heap_used_mb: mb(usage.heapUsed), external_mb: mb(usage.external), array_buffers_mb: mb(usage.arrayBuffers), heap_spaces_used_mb: spaces, server: own }
}

function worst(laps, secs) {
  const most = (key) => Math.max(...laps.map((figures) => figures[key]))
  const sum = (key) => laps.reduce((total, figures) => total + figures[key], 0)
  return {
    secs,
    samples: sum('samples'),
    p50_ms: most('p50_ms'),
    p99_ms: most('p99_ms'),
    max_ms: most('max_ms'),
    mean_ms: most('mean_ms'),
    ticks: sum('ticks'),
    stalls_over_10ms: sum('stalls_over_10ms'),
    stalled_ms: sum('stalled_ms'),
    longest_stall_ms: most('longest_stall_ms'),
  }
}
