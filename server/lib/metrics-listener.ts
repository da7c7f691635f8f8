import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Scrape {
  contentType: string
  body: string
}

export interface MetricsListener {
  // http://127.0.0.1:9394/metrics, with the port the system gave when asked for 0.
  readonly url: string
  close(): Promise<void>
}

export class MetricsListenProblem extends Error {}

// METRICS_BIND: a plain HTTP listener of its own on a loopback address, answering GET /metrics
// and nothing else, without a token (only this host reaches it), apart from the chat's port,
// its cookies and its proxy.
export async function listenForScrapes(bind: { host: string; port: number }, scrape: () => Promise<Scrape>): Promise<MetricsListener> {
  const server = createServer((request, response) => void answer(request, response, scrape))
  server.headersTimeout = 5_000
  server.requestTimeout = 10_000
  server.keepAliveTimeout = 5_000
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen({ host: bind.host, port: bind.port, exclusive: true }, resolve)
    })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'EADDRINUSE' ? 'that port is already in use' : code === 'EADDRNOTAVAIL' ? 'that is not an address of this host' : (error as Error).message
    throw new MetricsListenProblem(`METRICS_BIND=${bind.host}:${bind.port} cannot be listened on: ${why}`)
  }
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () => new Promise((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    }),
  }
}

async function answer(request: IncomingMessage, response: ServerResponse, scrape: () => Promise<Scrape>): Promise<void> {
  const path = (request.url ?? '').split('?')[0]
  if (path !== '/metrics') return plain(response, 404, 'Not found: metrics are at /metrics')
  if (request.method !== 'GET' && request.method !== 'HEAD') return plain(response, 405, 'Only GET reads the metrics', { allow: 'GET, HEAD' })
  try {
    const { contentType, body } = await scrape()
    response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) })
    response.end(request.method === 'HEAD' ? undefined : body)
  } catch (error) {
    plain(response, 503, `The metrics could not be gathered: ${(error as Error).message}`)
  }
}

function plain(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers })
  response.end(`${text}\n`)
}
