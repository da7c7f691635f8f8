import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { Account, account, enter, LEDGER_ENABLED, REST, settleInto } from '../lib/cpu-ledger.ts'

declare module 'fastify' {
  interface FastifyRequest {
    cpu: Account | null
  }
}

// The pages a navigation fetches, by the route that answered them.
const KINDS: Record<string, string> = {
  'GET /rooms/:id': 'room',
  'GET /users/:user_id/sidebar': 'sidebar',
  'GET /rooms/:room_id/messages': 'messages',
  'GET /searches': 'search',
  'POST /rooms/:room_id/messages': 'post',
}

// With CAMPFIRE_CPU_LEDGER=1 (lib/cpu-ledger.ts), each request's CPU is collected in an account
// of its own from its first hook to its answer, and then added to "http <kind> <outcome>": the
// kind of page and what the page cache (or, for room and search pages, the viewer's shell) did.
// Every hook makes the request's account current again: whatever ran between its awaits is
// charged to whoever was current then. Without the variable this registers nothing.
export default fp(
  async function cpuLedgerPlugin(app) {
    if (!LEDGER_ENABLED) return
    app.decorateRequest('cpu', null)
    // Plain (callback) hooks, as on the rest of the request path.
    app.addHook('onRequest', (request, _reply, done) => {
      request.cpu = new Account('')
      enter(request.cpu)
      done()
    })
    app.addHook('preHandler', (request, _reply, done) => {
      if (request.cpu) enter(request.cpu)
      done()
    })
    app.addHook('onSend', (request, _reply, payload, done) => {
      if (request.cpu) enter(request.cpu)
      done(null, payload)
    })
    app.addHook('onResponse', (request, _reply, done) => {
      const own = request.cpu
      if (own) {
        enter(REST)
        request.cpu = null
        settleInto(own, account(`http ${kindOf(request)} ${outcomeOf(request)}`))
      }
      done()
    })
  },
  { name: 'cpu-ledger', dependencies: ['server-timing'] },
)

function kindOf(request: FastifyRequest): string {
  return KINDS[`${request.method} ${request.routeOptions.url}`] ?? 'other'
}

function outcomeOf(request: FastifyRequest): string {
  const stats = request.cacheStats
  if (!stats) return ''
  if (stats.shell !== 'none') return `page ${stats.page}, shell ${stats.shell}`
  return stats.page === 'none' ? '' : `page ${stats.page}`
}
