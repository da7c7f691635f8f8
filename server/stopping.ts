import type { FastifyInstance } from 'fastify'

// `docker stop` sends SIGTERM and kills 10 s later; a stop is over well before that, whatever
// clients hold. At once: no new connections, idle keep-alive connections closed, new requests on
// open ones answered 503 (return503OnClosing), cable clients told to reconnect (and cut 1 s
// later, cable/server.ts). Requests under way get HTTP_GRACE_MS to finish; then every connection
// left is cut: a half-sent or trickling body, a client not reading its response. Then the
// writer's batch is written, the WAL checkpointed and the file closed (the onClose hooks).
export const HTTP_GRACE_MS = 2_000
// Past this the process exits anyway, having written what the writer holds. A cluster's primary
// waits a little longer for its workers (cluster/primary.ts): together they stay within 5 s.
export const STOP_LIMIT_MS = 3_500
// How often, during the grace, connections whose request has been answered are closed.
const IDLE_SWEEP_MS = 100

// Closes the app as above; resolves once every onClose hook has run.
export async function closePromptly(app: FastifyInstance, graceMs = HTTP_GRACE_MS): Promise<void> {
  const server = app.server
  // Fastify closes the server only after the preClose hooks (the cable's second among them):
  // closing it first stops accepting now. Fastify's own close then waits for the same end.
  if (server.listening) server.close()
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS)
  const cut = setTimeout(() => {
    clearInterval(sweep)
    server.closeAllConnections()
  }, graceMs)
  try {
    await app.close()
  } finally {
    clearInterval(sweep)
    clearTimeout(cut)
  }
}

// Arms the last resort: past STOP_LIMIT_MS the writer's queue is written and the process exits 1.
export function exitIfStillStopping(app: FastifyInstance, limitMs = STOP_LIMIT_MS): void {
  const timer = setTimeout(() => {
    app.log.error({ limitMs }, 'still stopping: writing what is queued and exiting')
    try {
      app.store.writer.drain()
    } catch (error) {
      app.log.error({ error: (error as Error).message }, 'could not write what was queued')
    }
    process.exit(1)
  }, limitMs)
  timer.unref()
}
