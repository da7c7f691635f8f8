// Measuring helpers for the load scripts: latency samples and percentiles, and another
// process's CPU time and memory as Linux reports them in /proc.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

// Latencies in milliseconds, kept whole (a float32 each) so percentiles are exact.
export class Samples {
  private data = new Float32Array(1024)
  length = 0

  constructor(private readonly cap = 50_000_000) {}

  add(value: number): void {
    if (this.length === this.data.length) {
      if (this.length >= this.cap) return
      const bigger = new Float32Array(Math.min(this.cap, this.data.length * 2))
      bigger.set(this.data)
      this.data = bigger
    }
    this.data[this.length++] = value
  }

  summary(): Summary {
    return summarize(this.data.subarray(0, this.length))
  }
}

export interface Summary {
  n: number
  min_ms: number | null
  p50_ms: number | null
  p90_ms: number | null
  p99_ms: number | null
  max_ms: number | null
  mean_ms: number | null
}

export function summarize(values: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(values).sort()
  const n = sorted.length
  if (n === 0) return { n, min_ms: null, p50_ms: null, p90_ms: null, p99_ms: null, max_ms: null, mean_ms: null }
  let sum = 0
  for (const value of sorted) sum += value
  // Nearest rank, as the harness's histograms report.
  const at = (q: number) => round(sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!)
  return { n, min_ms: round(sorted[0]!), p50_ms: at(0.5), p90_ms: at(0.9), p99_ms: at(0.99), max_ms: round(sorted[n - 1]!), mean_ms: round(sum / n) }
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits
  return Math.round(value * f) / f
}

let clockTicks: number | null = null
function ticksPerSecond(): number {
  if (clockTicks === null) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      clockTicks = 100
    }
  }
  return clockTicks
}

// utime and stime of a process (all its threads), in seconds; null once it is gone.
export function processCpuTimes(pid: number): { user: number; system: number } | null {
  const path = `/proc/${pid}/stat`
  if (!existsSync(path)) return null
  try {
    const stat = readFileSync(path, 'utf8')
    // The command name may hold spaces and parentheses: fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Fields 14 and 15 of the whole line are the 12th and 13th after the name (state is the 1st).
    return { user: Number(fields[11]) / ticksPerSecond(), system: Number(fields[12]) / ticksPerSecond() }
  } catch {
    return null
  }
}

export function processCpuSeconds(pid: number): number | null {
  const times = processCpuTimes(pid)
  return times && times.user + times.system
}

export interface Memory {
  rss_mb: number
  hwm_mb: number
}

// VmRSS (resident now) and VmHWM (the peak resident so far), in MB.
export function processMemory(pid: number): Memory | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
    return { rss_mb: round(kb('VmRSS') / 1024, 1), hwm_mb: round(kb('VmHWM') / 1024, 1) }
  } catch {
    return null
  }
}

// A stopwatch on another process's CPU: percent of one core between two readings.
export class CpuMeter {
  private wall = performance.now()
  private cpu: number

  constructor(private readonly read: () => number | null) {
    this.cpu = read() ?? 0
  }

  // Percent since the last lap (or since creation), then starts a new lap.
  lap(): number | null {
    const now = performance.now()
    const cpu = this.read()
    if (cpu === null) return null
    const percent = ((cpu - this.cpu) / ((now - this.wall) / 1000)) * 100
    this.wall = now
    this.cpu = cpu
    return round(percent, 1)
  }
}

export function selfCpuSeconds(): number {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1e6
}

export function selfSystemSeconds(): number {
  return process.cpuUsage().system / 1e6
}

// Busy time of each CPU core (everything but idle and iowait), in seconds, from /proc/stat.
export function coreBusySeconds(): number[] {
  try {
    const ticks = ticksPerSecond()
    return readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((line) => /^cpu\d+ /.test(line))
      .map((line) => {
        // cpuN user nice system idle iowait irq softirq steal …
        const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number) as number[]
        return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / ticks
      })
  } catch {
    return []
  }
}

// Percent busy of every core between laps: tells whether something else ran beside the benchmark.
export class CoreMeter {
  private wall = performance.now()
  private busy = coreBusySeconds()

  lap(): number[] {
    const now = performance.now()
    const busy = coreBusySeconds()
    const seconds = (now - this.wall) / 1000
    const percents = busy.map((value, i) => round(((value - (this.busy[i] ?? 0)) / seconds) * 100, 1))
    this.wall = now
    this.busy = busy
    return percents
  }
}
