// Percentiles and counted failures for the load profiles.
import { round } from './measure.ts'

export interface Percentiles {
  n: number
  min_ms: number | null
  p50_ms: number | null
  p95_ms: number | null
  p99_ms: number | null
  max_ms: number | null
  mean_ms: number | null
}

// Nearest rank, as the harness's histograms report.
export function percentiles(values: ArrayLike<number>): Percentiles {
  const sorted = Float64Array.from(values).sort()
  const n = sorted.length
  if (n === 0) return { n, min_ms: null, p50_ms: null, p95_ms: null, p99_ms: null, max_ms: null, mean_ms: null }
  let sum = 0
  for (const value of sorted) sum += value
  const at = (q: number) => round(sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!)
  return { n, min_ms: round(sorted[0]!), p50_ms: at(0.5), p95_ms: at(0.95), p99_ms: at(0.99), max_ms: round(sorted[n - 1]!), mean_ms: round(sum / n) }
}

// Failures counted by reason (the part before ": "), with the first few details of each.
export class Failures {
  readonly counts: Record<string, number> = {}
  readonly examples: Record<string, string[]> = {}
  total = 0

  add(failure: string): void {
    const reason = failure.split(': ')[0]!
    this.total++
    this.counts[reason] = (this.counts[reason] ?? 0) + 1
    const list = (this.examples[reason] ??= [])
    if (list.length < 3 && failure !== reason) list.push(failure.slice(0, 300))
  }
}
