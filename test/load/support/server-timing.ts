// Cache use as the server reports it in `Server-Timing` (performance.md §1): for every metric, a
// desc of "hit" or "miss" counts one, and "hits=N misses=M" adds N and M. Other metrics (a bare
// `total;dur=1.2`) are only counted as seen. A run whose responses never carry the header
// reports "n/a".
export interface MetricCount {
  hits: number
  misses: number
}

const PARSED = new Map<string, [string, MetricCount][]>()
const PARSED_MAX = 4096

export class ServerTiming {
  readonly metrics = new Map<string, MetricCount>()
  responses = 0
  withHeader = 0

  add(header: string | string[] | undefined): void {
    this.responses++
    if (header === undefined) return
    this.withHeader++
    const text = Array.isArray(header) ? header.join(', ') : header
    // A load generator sees the same few hundred headers (they differ in their dur= only) over
    // and over: each distinct one is parsed once.
    let parsed = PARSED.get(text)
    if (parsed === undefined) {
      if (PARSED.size >= PARSED_MAX) PARSED.clear()
      PARSED.set(text, (parsed = parseServerTiming(text)))
    }
    for (const [name, count] of parsed) {
      const total = this.metrics.get(name) ?? { hits: 0, misses: 0 }
      total.hits += count.hits
      total.misses += count.misses
      this.metrics.set(name, total)
    }
  }

  // Hit rate per metric, in percent, or "n/a" when nothing reported hits or misses.
  summary(): Record<string, string | { hits: number; misses: number; hit_rate_percent: number | null }> {
    if (this.withHeader === 0) return { server_timing: 'n/a' }
    const out: Record<string, { hits: number; misses: number; hit_rate_percent: number | null }> = {}
    for (const [name, { hits, misses }] of this.metrics) {
      out[name] = { hits, misses, hit_rate_percent: hits + misses === 0 ? null : Math.round((hits / (hits + misses)) * 1000) / 10 }
    }
    return out
  }
}

// Metrics are comma-separated; each is a name then `;param=value` pairs (values may be quoted).
export function parseServerTiming(header: string): [string, MetricCount][] {
  const out: [string, MetricCount][] = []
  for (const metric of splitOutsideQuotes(header, ',')) {
    const [rawName, ...params] = splitOutsideQuotes(metric, ';')
    const name = rawName?.trim()
    if (!name) continue
    const count = { hits: 0, misses: 0 }
    for (const param of params) {
      const eq = param.indexOf('=')
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'desc') continue
      let value = param.slice(eq + 1).trim()
      if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).replace(/\\(.)/g, '$1')
      const desc = value.trim().toLowerCase()
      if (desc === 'hit') count.hits++
      else if (desc === 'miss') count.misses++
      else {
        count.hits += Number(/hits=(\d+)/.exec(desc)?.[1] ?? 0)
        count.misses += Number(/misses=(\d+)/.exec(desc)?.[1] ?? 0)
      }
    }
    out.push([name, count])
  }
  return out
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = []
  let quoted = false
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '\\' && quoted) i++
    else if (c === '"') quoted = !quoted
    else if (c === separator && !quoted) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

// Every `name;dur=` of a Server-Timing header, in order (a post's stages, then its total).
export function serverDurationsMs(header: string | string[] | undefined): [string, number][] {
  const text = Array.isArray(header) ? header.join(',') : header ?? ''
  return [...text.matchAll(/(?:^|,)\s*([\w-]+);dur=(\d+(?:\.\d+)?)/g)].map(([, name, ms]) => [name!, Number(ms)])
}
