// The samples of a Prometheus text exposition (format 0.0.4), as another program serves them
// (Litestream's own metrics, read by server/litestream/lag.ts). Strict: comments (# HELP, # TYPE)
// and blank lines are skipped, and a line that is not `name{label="value",…} value [timestamp]`
// throws, naming the line, so what is not understood is never half read.
export interface TextSample {
  name: string
  labels: Record<string, string>
  value: number
}

export class PrometheusTextError extends Error {}

const NAME = /[a-zA-Z_:][a-zA-Z0-9_:]*/y
const LABEL_NAME = /[a-zA-Z_][a-zA-Z0-9_]*/y
const VALUE = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?Inf|NaN)$/
const TIMESTAMP = /^-?\d+$/
const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', n: '\n' }

export function parsePrometheusText(text: string): TextSample[] {
  const samples: TextSample[] = []
  text.split('\n').forEach((line, index) => {
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('#')) return
    const sample = parseLine(trimmed)
    if (!sample) throw new PrometheusTextError(`line ${index + 1} is not a Prometheus sample: ${JSON.stringify(trimmed.slice(0, 80))}`)
    samples.push(sample)
  })
  return samples
}

function parseLine(line: string): TextSample | null {
  const name = match(NAME, line, 0)
  if (name === null) return null
  let at = name.length
  const labels: Record<string, string> = {}
  if (line[at] === '{') {
    at++
    while (line[at] !== '}') {
      const label = match(LABEL_NAME, line, at)
      if (label === null || line[at + label.length] !== '=' || line[at + label.length + 1] !== '"') return null
      at += label.length + 2
      let value = ''
      for (;;) {
        const char = line[at++]
        if (char === undefined) return null
        if (char === '"') break
        if (char !== '\\') value += char
        else if (ESCAPES[line[at] ?? ''] === undefined) return null
        else value += ESCAPES[line[at++]!]
      }
      if (Object.hasOwn(labels, label)) return null
      labels[label] = value
      if (line[at] === ',') at++
      else if (line[at] !== '}') return null
    }
    at++
  }
  if (!/^[ \t]/.test(line.slice(at))) return null
  const [value, timestamp, ...rest] = line.slice(at).trim().split(/[ \t]+/)
  if (!VALUE.test(value ?? '') || (timestamp !== undefined && !TIMESTAMP.test(timestamp)) || rest.length > 0) return null
  return { name, labels, value: value!.endsWith('Inf') ? (value!.startsWith('-') ? -Infinity : Infinity) : Number(value) }
}

function match(pattern: RegExp, text: string, at: number): string | null {
  pattern.lastIndex = at
  return pattern.exec(text)?.[0] ?? null
}
