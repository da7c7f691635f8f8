import fp from 'fastify-plugin'
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../config.ts'
import type { LitestreamReadout } from '../litestream/lag.ts'
import { ListenProblem } from '../listen-check.ts'

export interface MetricsOptions {
  config: Config
  // This app is worker N of a cluster: its primary gathers every process's metrics.
  workerId?: number
  // The Litestream this process runs (not a worker's: the primary's metrics have it).
  litestream?: () => LitestreamReadout | null
}

// Prometheus metrics (docs/operations.md, "Metrics"), off unless METRICS_TOKEN or METRICS_BIND
// is set (server/metrics-config.ts); off, nothing is loaded or counted. With METRICS_TOKEN,
// GET /metrics on this port answers a scraper sending `Authorization: Bearer <token>` and no
// one else: a session cookie, an administrator's too, gets the same 401 as no token. With
// METRICS_BIND, a listener of its own on a loopback address answers without one (a cluster's
// primary runs it, and answers for every worker). Registered after the other plugins and before
// the routes, whose answers it counts.
export default fp(
  async function metrics(app, options: MetricsOptions) {
    const settings = options.config.metrics
    if (!settings) return
    const { newRegistry } = await import('./metrics/registry.ts')
    const { countRequests } = await import('./metrics/requests.ts')
    const { countServices } = await import('./metrics/services.ts')
    const { countStorage } = await import('./metrics/storage.ts')
    const { Registry } = await import('prom-client')
    const registry = newRegistry()
    countRequests(app, registry)
    countStorage(registry, { store: app.store, databasePath: options.config.databasePath, checkpointer: app.checkpointer })
    countServices(app, registry, options.config.minFreeBytes)
    if (options.litestream && options.workerId === undefined && options.config.litestreamReplicaUrl) {
      const { countLitestream } = await import('./metrics/litestream.ts')
      countLitestream(registry, options.litestream, options.config.databasePath)
    }

    let wholeServer: () => Promise<string> = () => registry.metrics()
    if (options.workerId !== undefined) {
      const { answerPrimary } = await import('./metrics/cluster-messages.ts')
      const primary = answerPrimary(registry)
      wholeServer = primary.wholeServer
      app.addHook('onClose', async () => primary.stop())
    } else if (settings.bind) {
      const { listenForScrapes, MetricsListenProblem } = await import('../lib/metrics-listener.ts')
      const bind = settings.bind
      let listener: Awaited<ReturnType<typeof listenForScrapes>> | null = null
      app.addHook('onReady', async () => {
        // A port in use is one line at boot (main.ts reports a ListenProblem so), as HTTP_PORT's is.
        listener = await listenForScrapes(bind, async () => ({ contentType: Registry.PROMETHEUS_CONTENT_TYPE, body: await registry.metrics() })).catch((error: Error) => {
          throw error instanceof MetricsListenProblem ? new ListenProblem(error.message) : error
        })
        app.log.info(`Metrics listening at ${listener.url}`)
      })
      app.addHook('onClose', async () => listener?.close())
    }

    const token = settings.token
    if (token === null) return
    const expected = digest(token)
    app.get('/metrics', { config: { allowUnauthenticated: true } }, async (request, reply) => {
      if (!bearerMatches(request, expected)) return refuse(reply)
      try {
        const body = await wholeServer()
        return reply.type(Registry.PROMETHEUS_CONTENT_TYPE).header('cache-control', 'no-store').send(body)
      } catch (error) {
        return reply.code(503).type('text/plain; charset=utf-8').send(`The metrics could not be gathered: ${(error as Error).message}\n`)
      }
    })
  },
  { name: 'metrics', dependencies: ['database', 'disk-space', 'cable', 'webhooks', 'web-push', 'email'] },
)

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

// Compared as digests, in constant time, so neither the token nor its length leaks.
function bearerMatches(request: FastifyRequest, expected: Buffer): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(String(request.headers.authorization ?? ''))
  return match !== null && timingSafeEqual(digest(match[1]!), expected)
}

function refuse(reply: FastifyReply): FastifyReply {
  return reply
    .code(401)
    .header('www-authenticate', 'Bearer realm="metrics"')
    .header('cache-control', 'no-store')
    .type('text/plain; charset=utf-8')
    .send('The metrics need METRICS_TOKEN as a bearer token (Authorization: Bearer …)\n')
}
