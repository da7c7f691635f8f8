import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { emptyCacheStats, serverTiming, type CacheStats } from '../rendering/cache-stats.ts'

declare module 'fastify' {
  interface FastifyRequest {
    cacheStats: CacheStats
    startedAt: bigint
    phases: [string, number][] | null
    phaseEndedAt: bigint
    // Ends a stage of the route's work: its duration since the previous stage (or since the
    // request arrived) is reported as `<name>;dur=` in Server-Timing.
    endPhase(name: string): void
  }
}

// Every HTML and Turbo Stream response says what the caches did for it, the stages its route
// timed with endPhase, and how long it took (for a post, everything before its broadcast's
// socket writes, which follow the answer):
// Server-Timing: page;desc="hit", records;desc="hits=0 misses=0", fragments;desc="hits=40 misses=0", total;dur=0.42
// A cluster's worker (WEB_CONCURRENCY > 1) also says which it is: …, total;dur=0.42, worker;desc=2
export interface ServerTimingOptions {
  workerId?: number
}

export default fp(
  async function serverTimingPlugin(app, options: ServerTimingOptions) {
    const worker = options.workerId === undefined ? '' : `, worker;desc=${options.workerId}`
    app.decorateRequest('cacheStats', null as unknown as CacheStats)
    app.decorateRequest('startedAt', 0n)
    app.decorateRequest('phases', null)
    app.decorateRequest('phaseEndedAt', 0n)
    app.decorateRequest('endPhase', function (this: FastifyRequest, name: string) {
      const now = process.hrtime.bigint()
      ;(this.phases ??= []).push([name, Number(now - this.phaseEndedAt) / 1e6])
      this.phaseEndedAt = now
    })
    // Plain (callback) hooks: an async one costs each request a promise and a microtask.
    app.addHook('onRequest', (request, _reply, done) => {
      request.startedAt = request.phaseEndedAt = process.hrtime.bigint()
      request.cacheStats = emptyCacheStats()
      done()
    })
    app.addHook('onSend', (request, reply, payload, done) => {
      const type = String(reply.getHeader('content-type') ?? '')
      // Other responses name only the worker that answered (with several).
      if (!type.startsWith('text/html') && !type.startsWith('text/vnd.turbo-stream.html')) {
        if (options.workerId !== undefined) reply.header('server-timing', `worker;desc=${options.workerId}`)
        return done(null, payload)
      }
      const totalMs = Number(process.hrtime.bigint() - request.startedAt) / 1e6
      reply.header('server-timing', serverTiming(request.cacheStats ?? emptyCacheStats(), totalMs, request.phases ?? []) + worker)
      done(null, payload)
    })
  },
  { name: 'server-timing' },
)
