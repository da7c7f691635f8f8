import fp from 'fastify-plugin'

const MB = 1024 * 1024
const megabytes = (bytes: number) => Math.round((bytes / MB) * 10) / 10

// What this process's caches and sockets hold, for a benchmark's memory figures: a function at
// Symbol.for('campfire.memory') that the bench's preloaded probe calls at each lap
// (test/load/support/loop-probe.mjs). It reads sizes the caches already keep; nothing runs
// unless it is called.
export default fp(
  async function memoryReport(app) {
    ;(globalThis as Record<symbol, unknown>)[Symbol.for('campfire.memory')] = () => {
      const page = app.pageCache?.size
      const fragments = app.messageFragments.size
      const memo = app.responseMemo
      return {
        page_cache: page ? { entries: page.entries, mb: megabytes(page.bytes), budget_mb: megabytes(app.pageCache!.maxBytes) } : null,
        fragment_cache: { entries: fragments.entries, mb: megabytes(fragments.bytes) },
        response_memo: memo ? { entries: memo.size, mb: megabytes(memo.bytes) } : null,
        cable: app.cable.server.stats(),
      }
    }
  },
  { name: 'memory-report', dependencies: ['page-cache', 'response-memo', 'cable'] },
)
