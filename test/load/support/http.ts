// HTTP for the load generators: keep-alive connections from a shared pool, gzip decoded, and a
// request on a reused connection that the server closed before answering is sent again on a new
// connection, as a browser does (performance.md §1.1 lesson 5). Every other error is returned
// with its cause, never thrown.
import http from 'node:http'
import { gunzipSync } from 'node:zlib'

export interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  // The bytes as they came off the wire, and decoded (gunzipped) when the answer was gzip.
  wire: Buffer
  body: Buffer
  ms: number
  retried: boolean
}

export interface Failure {
  error: string
  ms: number
  retried: boolean
}

export interface RequestSpec {
  method?: 'GET' | 'POST'
  path: string
  headers: Record<string, string>
  body?: string
  timeoutMs?: number
  // false: leave a gzip body as it came (a validator that decodes it itself).
  decode?: boolean
}

const RETRYABLE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED'])

export class HttpClient {
  readonly agent: http.Agent
  readonly host: string
  readonly port: number
  retries = 0

  constructor(baseUrl: string, maxSockets = 256) {
    const url = new URL(baseUrl)
    this.host = url.hostname
    this.port = Number(url.port || 80)
    this.agent = new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' })
  }

  async request(spec: RequestSpec): Promise<Answer | Failure> {
    const started = performance.now()
    const first = await this.once(spec, started)
    if (!first.reusedSocketClosed) return first.result
    this.retries++
    const second = await this.once(spec, started)
    return { ...second.result, retried: true }
  }

  close(): void {
    this.agent.destroy()
  }

  private once(spec: RequestSpec, started: number): Promise<{ result: Answer | Failure; reusedSocketClosed: boolean }> {
    return new Promise((resolve) => {
      let settled = false
      const done = (result: Answer | Failure, reusedSocketClosed = false) => {
        if (!settled) {
          settled = true
          resolve({ result, reusedSocketClosed })
        }
      }
      const headers: Record<string, string> = { host: `${this.host}:${this.port}`, ...spec.headers }
      if (spec.body !== undefined) headers['content-length'] = String(Buffer.byteLength(spec.body))
      const request = http.request({ host: this.host, port: this.port, method: spec.method ?? 'GET', path: spec.path, headers, agent: this.agent, timeout: spec.timeoutMs ?? 30_000 })
      let responded = false
      request.on('socket', (socket) => socket.setNoDelay(true))
      request.on('response', (response) => {
        responded = true
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('error', (error) => done({ error: `response: ${describe(error)}`, ms: performance.now() - started, retried: false }))
        response.on('end', () => {
          const ms = performance.now() - started
          const wire = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
          let body = wire
          if (response.headers['content-encoding'] === 'gzip' && spec.decode !== false) {
            try {
              body = gunzipWhole(wire)
            } catch (error) {
              return done({ error: `bad gzip: ${(error as Error).message}`, ms, retried: false })
            }
          }
          done({ status: response.statusCode ?? 0, headers: response.headers, wire, body, ms, retried: false })
        })
      })
      request.on('timeout', () => request.destroy(Object.assign(new Error(`no answer within ${spec.timeoutMs ?? 30_000} ms`), { code: 'TIMEOUT' })))
      request.on('error', (error: NodeJS.ErrnoException) => {
        const reusedSocketClosed = !responded && request.reusedSocket && (RETRYABLE.has(error.code ?? '') || /socket hang up/.test(error.message))
        done({ error: describe(error), ms: performance.now() - started, retried: false }, reusedSocketClosed)
      })
      request.end(spec.body)
    })
  }
}

function describe(error: NodeJS.ErrnoException): string {
  return error.code ? `${error.code}: ${error.message}` : error.message
}

// gunzipSync, with room for the whole body at once: the gzip trailer's last four bytes give the
// decoded length (of the last member, modulo 2^32), so a page is inflated into one buffer instead of
// 16 KB chunks that are then copied together. A wrong hint only costs more chunks.
export function gunzipWhole(wire: Buffer): Buffer {
  const hint = wire.length >= 18 ? wire.readUInt32LE(wire.length - 4) : 0
  return hint > 0 && hint <= 64 * 1024 * 1024 ? gunzipSync(wire, { chunkSize: Math.max(64, hint + 64) }) : gunzipSync(wire)
}

export function isFailure(answer: Answer | Failure): answer is Failure {
  return 'error' in answer
}
