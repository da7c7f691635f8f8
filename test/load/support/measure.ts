// Measuring helpers for the load scripts: latency samples and percentiles, and another
// process's CPU time and memory as Linux reports them in /proc.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'

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

interface ProcStat {
  ppid: number
  user: number
  system: number
  // Of its children that have exited and been waited for.
  childrenUser: number
  childrenSystem: number
}

function readStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name may hold spaces and parentheses: fields are counted after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // After the name: state, ppid, …, utime (12th), stime, cutime, cstime.
    const ticks = ticksPerSecond()
    return { ppid: Number(fields[1]), user: Number(fields[11]) / ticks, system: Number(fields[12]) / ticks, childrenUser: Number(fields[13]) / ticks, childrenSystem: Number(fields[14]) / ticks }
  } catch {
    return null
  }
}

// The process and every process below it (a server's worker processes, its ffmpeg runs).
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const stat = readStat(Number(name))
    if (!stat) continue
    const list = children.get(stat.ppid)
    if (list) list.push(Number(name))
    else children.set(stat.ppid, [Number(name)])
  }
  const tree = [pid]
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]!) ?? []))
  return tree
}

// utime and stime of a process with everything below it (all their threads, and the children
// that have already exited: a worker that died and was restarted still counts), in seconds;
// null once the process is gone.
export function processCpuTimes(pid: number): { user: number; system: number } | null {
  if (!existsSync(`/proc/${pid}/stat`)) return null
  const root = readStat(pid)
  if (!root) return null
  let user = root.childrenUser
  let system = root.childrenSystem
  for (const member of processTree(pid)) {
    const stat = member === pid ? root : readStat(member)
    if (!stat) continue
    user += stat.user
    system += stat.system
  }
  return { user, system }
}

export function processCpuSeconds(pid: number): number | null {
  const times = processCpuTimes(pid)
  return times && times.user + times.system
}

// The sum over several processes (a server and the redis-server beside it).
export function processesCpuSeconds(pids: readonly number[]): number | null {
  let sum = 0
  for (const pid of pids) {
    const seconds = processCpuSeconds(pid)
    if (seconds === null) return null
    sum += seconds
  }
  return sum
}

export interface Memory {
  rss_mb: number
  hwm_mb: number
}

// VmRSS (resident now) and VmHWM (the peak resident so far), in MB, summed over the process
// and everything below it (the peaks of different processes need not coincide, so the sum of
// peaks is an upper bound).
export function processMemory(pid: number): Memory | null {
  if (!existsSync(`/proc/${pid}/status`)) return null
  let rss = 0
  let hwm = 0
  for (const member of processTree(pid)) {
    try {
      const status = readFileSync(`/proc/${member}/status`, 'utf8')
      const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0)
      rss += kb('VmRSS')
      hwm += kb('VmHWM')
    } catch {
      if (member === pid) return null
    }
  }
  return { rss_mb: round(rss / 1024, 1), hwm_mb: round(hwm / 1024, 1) }
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
