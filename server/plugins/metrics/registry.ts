import type { Registry } from 'prom-client'
import { lazyPackage } from '../../lib/lazy-package.ts'

// Loaded when metrics are switched on (METRICS_TOKEN or METRICS_BIND), not at every start.
export const promClient = lazyPackage<typeof import('prom-client')>('prom-client')

// One registry per process (never prom-client's global one, so apps built side by side in one
// process keep theirs apart), with Node's default process metrics (CPU, memory, event loop,
// garbage collection, handles) beside ours. Ours are read when scraped, from the counts the
// server keeps anyway: nothing is done for them on a request's path but what requests.ts does.
export function newRegistry(): Registry {
  const { Registry, collectDefaultMetrics } = promClient()
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  return registry
}

export type Labels = Record<string, string>
// A value, or one value per label set.
export type Reading = number | ReadonlyArray<readonly [Labels, number]>
// How a cluster's primary joins its processes' values (prom-client's aggregators): added up, or
// the highest or lowest where every process sees the same thing (a file's size, the disk).
export type Aggregator = 'sum' | 'max' | 'min'

interface Definition {
  name: string
  help: string
  labelNames?: readonly string[]
  aggregator?: Aggregator
}

// A total since boot, read from a count the server keeps.
export function counterFrom(registry: Registry, definition: Definition, read: () => Reading): void {
  new (promClient().Counter)({
    ...definition,
    labelNames: [...(definition.labelNames ?? [])],
    registers: [registry],
    collect() {
      this.reset()
      each(read(), (labels, value) => this.inc(labels, value))
    },
  })
}

// A value as it is when scraped.
export function gaugeFrom(registry: Registry, definition: Definition, read: () => Reading): void {
  new (promClient().Gauge)({
    ...definition,
    labelNames: [...(definition.labelNames ?? [])],
    registers: [registry],
    collect() {
      this.reset()
      each(read(), (labels, value) => this.set(labels, value))
    },
  })
}

function each(reading: Reading, apply: (labels: Labels, value: number) => void): void {
  if (typeof reading === 'number') return apply({}, reading)
  for (const [labels, value] of reading) apply(labels, value)
}
