import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler, RouteOptions } from 'fastify'
import type { Registry } from 'prom-client'
import { HistogramCells, type HistogramCell } from '../../lib/histogram-cells.ts'
import type { PageOutcome } from '../../rendering/cache-stats.ts'
import { counterFrom } from './registry.ts'

// From a quarter of a millisecond (a cached page) to ten seconds (an upload).
const SECONDS = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]
const UNMATCHED = '(unmatched)'
const OUTCOMES: readonly PageOutcome[] = ['hit', 'miss', 'bypass', 'off']

// Every answer is counted once it has been sent: its time by method, route pattern and status
// (a histogram whose _count is the number of requests), and what the page, shell, fragment and
// record caches did for it (request.cacheStats, as Server-Timing reports them). Each route gets
// a hook of its own holding its cells, so a request finds its cell with two Map lookups and
// counts with a few additions; its time is Fastify's own (reply.elapsedTime).
export function countRequests(app: FastifyInstance, registry: Registry): void {
  const durations = new HistogramCells('campfire_http_request_duration_seconds', 'Time to answer a request, by method, route pattern and status; _count is the number of requests', SECONDS)
  registry.registerMetric(durations as never)
  const caches = { page: outcomeCounts(), shell: outcomeCounts(), fragment: { hit: 0, miss: 0 }, record: { hit: 0, miss: 0 } }
  counterFrom(registry, { name: 'campfire_cache_answers_total', help: 'Answers by what the page cache, or the viewer-shell cache around it, did for them', labelNames: ['cache', 'outcome'] }, () =>
    (['page', 'shell'] as const).flatMap((cache) => OUTCOMES.map((outcome) => [{ cache, outcome }, caches[cache][outcome]] as const)),
  )
  counterFrom(registry, { name: 'campfire_cache_lookups_total', help: 'Message fragments and records looked up in their caches while answering, by outcome', labelNames: ['cache', 'outcome'] }, () =>
    (['fragment', 'record'] as const).flatMap((cache) => (['hit', 'miss'] as const).map((outcome) => [{ cache, outcome }, caches[cache][outcome]] as const)),
  )

  const count = (cells: RouteCells, request: FastifyRequest, reply: FastifyReply) => {
    cells.of(request.method, reply.statusCode).observe(reply.elapsedTime / 1000)
    const stats = request.cacheStats
    if (stats === null) return
    if (stats.page !== 'none') caches.page[stats.page]++
    if (stats.shell !== 'none') caches.shell[stats.shell]++
    caches.fragment.hit += stats.fragmentHits
    caches.fragment.miss += stats.fragmentMisses
    caches.record.hit += stats.recordHits
    caches.record.miss += stats.recordMisses
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    const cells = new RouteCells(durations, route.url)
    const hook: onResponseHookHandler = (request, reply, done) => {
      count(cells, request, reply)
      done()
    }
    route.onResponse = [...[route.onResponse ?? []].flat(), hook]
  })
  // What no route matched (a 404 from the not-found handler) is counted under one name.
  const unmatched = new RouteCells(durations, UNMATCHED)
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) count(unmatched, request, reply)
    done()
  })
}

function outcomeCounts(): Record<PageOutcome, number> {
  return { hit: 0, miss: 0, bypass: 0, off: 0, none: 0 }
}

// One route's cells, by method and status, each made on first use.
class RouteCells {
  private readonly byMethod = new Map<string, Map<number, HistogramCell>>()

  constructor(
    private readonly durations: HistogramCells,
    private readonly route: string,
  ) {}

  of(method: string, status: number): HistogramCell {
    let byStatus = this.byMethod.get(method)
    if (!byStatus) this.byMethod.set(method, (byStatus = new Map()))
    let cell = byStatus.get(status)
    if (!cell) byStatus.set(status, (cell = this.durations.cell({ method, route: this.route, status: String(status) })))
    return cell
  }
}
