// HTTP/1.1 for a generator that must stay cheap (bench:routes): keep-alive connections on plain
// net sockets, one request in flight on each, and a small response reader of its own instead of
// Node's http client (whose agent, ClientRequest, IncomingMessage and streams cost more per
// request than our server's cached pages do). Same requests and answers as support/http.ts's
// HttpClient (RequestSpec in, Answer or Failure out, gzip decoded unless decode: false), and the
// same retry: a request on a reused connection that the server closed before answering is sent
// again once on a new connection.
//
// The reader is strict where the validation depends on it: a status line `HTTP/1.x NNN …`,
// header lines `name: value`, a Content-Length of digits (two different ones fail, as does one
// beside Transfer-Encoding), a chunked body decoded exactly, and no byte after the answer (one
// fails the connection). Header names are lower-cased; a repeated Set-Cookie is an array, other
// repeated headers are joined with ", " (Content-Type and Content-Length keep the first), as
// Node's IncomingMessage does.
import net from 'node:net'
import type { IncomingHttpHeaders } from 'node:http'
import { gunzipWhole, type Answer, type Failure, type RequestSpec } from './http.ts'

const CRLF2 = Buffer.from('\r\n\r\n')
const STATUS = /^HTTP\/1\.[01] (\d{3})(?: |$)/
const FIRST_ONLY = new Set(['content-type', 'content-length', 'authorization', 'age', 'etag', 'expires', 'last-modified', 'location', 'retry-after', 'server', 'user-agent', 'from', 'host', 'referer', 'max-forwards', 'proxy-authorization', 'if-modified-since', 'if-unmodified-since'])
const RETRYABLE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'CLOSED'])
const MAX_HEAD = 64 * 1024

interface Pending {
  spec: RequestSpec
  started: number
  deadline: number
  reused: boolean
  resolve: (outcome: { result: Answer | Failure; retry: boolean }) => void
}

type Head = { status: number; headers: IncomingHttpHeaders; length: number | null; chunked: boolean; close: boolean }

// One keep-alive connection: at most one request at a time.
class Connection {
  readonly socket: net.Socket
  private pending: Pending | null = null
  private head: Head | null = null
  private chunks: Buffer[] = []
  private buffered = 0
  private bodyStart = 0
  private answered = 0
  private received = false
  dead = false

  private readonly host: string

  constructor(host: string, port: number, private readonly onIdle: (connection: Connection) => void, private readonly onDead: (connection: Connection) => void) {
    this.host = `${host}:${port}`
    this.socket = net.connect({ host, port, noDelay: true })
    this.socket.on('data', (chunk: Buffer) => this.data(chunk))
    this.socket.on('error', (error: NodeJS.ErrnoException) => this.die(error.code ? `${error.code}: ${error.message}` : error.message, error.code ?? ''))
    this.socket.on('end', () => this.die('the server closed the connection', 'CLOSED'))
    this.socket.on('close', () => this.die('the connection closed', 'CLOSED'))
  }

  get busy(): boolean {
    return this.pending !== null
  }

  send(pending: Pending): void {
    pending.reused = this.answered > 0
    this.pending = pending
    this.received = false
    const { spec } = pending
    let head = `${spec.method ?? 'GET'} ${spec.path} HTTP/1.1\r\nhost: ${this.host}\r\n`
    for (const name in spec.headers) head += `${name}: ${spec.headers[name]}\r\n`
    if (spec.body === undefined) {
      this.socket.write(head + '\r\n', 'latin1')
    } else {
      const body = Buffer.from(spec.body, 'utf8')
      this.socket.write(Buffer.concat([Buffer.from(`${head}content-length: ${body.length}\r\n\r\n`, 'latin1'), body]))
    }
  }

  // Past its deadline: failed, and the connection is not reused.
  expire(now: number): void {
    const pending = this.pending
    if (pending && now > pending.deadline) this.die(`no answer within ${pending.spec.timeoutMs ?? 30_000} ms`, 'TIMEOUT')
  }

  private data(chunk: Buffer): void {
    if (this.pending === null) return this.die(`${chunk.length} bytes from the server with no request outstanding`, 'PROTOCOL')
    this.received = true
    this.chunks.push(chunk)
    this.buffered += chunk.length
    if (this.head === null) {
      const all = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks)
      const end = all.indexOf(CRLF2)
      if (end < 0) {
        if (all.length > MAX_HEAD) this.die(`a response head over ${MAX_HEAD} bytes`, 'PROTOCOL')
        else this.chunks = [all]
        return
      }
      const head = parseHead(all.toString('latin1', 0, end))
      if (typeof head === 'string') return this.die(`bad response: ${head}`, 'PROTOCOL')
      this.head = head
      this.chunks = [all]
      this.buffered = all.length
      this.bodyStart = end + 4
    }
    this.tryFinish()
  }

  private tryFinish(): void {
    const head = this.head!
    // Not all there yet: no copying until it is.
    if (!head.chunked && (head.length === null || this.buffered - this.bodyStart < head.length)) return
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)
    this.chunks = [all]
    const available = all.length - this.bodyStart
    let wire: Buffer
    if (head.chunked) {
      const decoded = dechunk(all, this.bodyStart)
      if (decoded === null) return
      if (typeof decoded === 'string') return this.die(`bad chunked body: ${decoded}`, 'PROTOCOL')
      if (decoded.end !== all.length) return this.die(`${all.length - decoded.end} bytes after the chunked body`, 'PROTOCOL')
      wire = decoded.body
    } else if (head.length !== null) {
      if (available < head.length) return
      if (available > head.length) return this.die(`${available - head.length} bytes after a body of ${head.length}`, 'PROTOCOL')
      wire = all.subarray(this.bodyStart)
    } else {
      // Neither length nor chunks: the body runs to the end of the connection.
      return
    }
    this.complete(head, wire)
  }

  private complete(head: Head, wire: Buffer): void {
    const pending = this.pending!
    this.pending = null
    this.head = null
    this.chunks = []
    this.buffered = 0
    this.answered++
    const ms = performance.now() - pending.started
    let body = wire
    let result: Answer | Failure
    if (head.headers['content-encoding'] === 'gzip' && pending.spec.decode !== false) {
      try {
        body = gunzipWhole(wire)
        result = { status: head.status, headers: head.headers, wire, body, ms, retried: false }
      } catch (error) {
        result = { error: `bad gzip: ${(error as Error).message}`, ms, retried: false }
      }
    } else {
      result = { status: head.status, headers: head.headers, wire, body, ms, retried: false }
    }
    if (head.close) {
      this.die('closed after its answer (connection: close)', 'CLOSED')
    } else {
      this.onIdle(this)
    }
    pending.resolve({ result, retry: false })
  }

  // Ends the connection; an outstanding request fails, or is retried when the server closed a
  // reused connection before answering.
  die(reason: string, code: string): void {
    if (this.dead) return
    // A body that runs to the end of the connection is complete when it closes.
    if (code === 'CLOSED' && this.pending && this.head && !this.head.chunked && this.head.length === null) {
      const all = Buffer.concat(this.chunks)
      const head = this.head
      this.head = { ...head, close: true }
      return this.complete(this.head, all.subarray(this.bodyStart))
    }
    this.dead = true
    this.socket.destroy()
    this.onDead(this)
    const pending = this.pending
    this.pending = null
    if (pending) {
      const retry = pending.reused && !this.received && RETRYABLE.has(code)
      pending.resolve({ result: { error: reason, ms: performance.now() - pending.started, retried: false }, retry })
    }
  }
}

// The status line and headers, or what is wrong with them. One regular expression checks the
// shape of the whole head (a status line, then `token: value` lines); the lines are then cut
// with indexOf.
const HEAD_SHAPE = /^HTTP\/1\.[01] \d{3}(?: [^\r\n]*)?(?:\r\n[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*)*$/

export function parseHead(text: string): Head | string {
  if (!HEAD_SHAPE.test(text)) {
    const status = STATUS.exec(text)
    if (!status) return `status line ${JSON.stringify(text.slice(0, 40))}`
    const bad = text.split('\r\n').slice(1).find((line) => !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/.test(line)) ?? ''
    return `header line ${JSON.stringify(bad.slice(0, 40))}`
  }
  const code = Number(text.slice(9, 12))
  const headers: IncomingHttpHeaders = {}
  const raw = headers as Record<string, string | string[]>
  let length: number | null = null
  let chunked = false
  let close = false
  let at = text.indexOf('\r\n')
  while (at >= 0) {
    const from = at + 2
    at = text.indexOf('\r\n', from)
    const line = at < 0 ? text.slice(from) : text.slice(from, at)
    const colon = line.indexOf(':')
    const name = line.slice(0, colon).toLowerCase()
    const value = trimOws(line, colon + 1)
    if (name === 'content-length') {
      if (!/^\d+$/.test(value)) return `content-length ${JSON.stringify(value)}`
      if (length !== null && length !== Number(value)) return 'two different content-lengths'
      length = Number(value)
    } else if (name === 'transfer-encoding') {
      if (value.toLowerCase() !== 'chunked') return `transfer-encoding ${JSON.stringify(value)}`
      chunked = true
    } else if (name === 'connection') {
      close = value.toLowerCase().split(',').some((token) => token.trim() === 'close')
    }
    const before = raw[name]
    if (before === undefined) raw[name] = name === 'set-cookie' ? [value] : value
    else if (name === 'set-cookie') (before as string[]).push(value)
    else if (!FIRST_ONLY.has(name)) raw[name] = `${before}, ${value}`
  }
  if (chunked && length !== null) return 'both content-length and transfer-encoding'
  if (code < 200) return `interim status ${code}`
  // 204 and 304 have no body, whatever the headers say.
  if (code === 204 || code === 304) return { status: code, headers, length: 0, chunked: false, close }
  return { status: code, headers, length, chunked, close }
}

// The value after `from`, without the spaces and tabs around it (HTTP's optional whitespace).
function trimOws(line: string, from: number): string {
  let start = from
  let end = line.length
  while (start < end && (line.charCodeAt(start) === 32 || line.charCodeAt(start) === 9)) start++
  while (end > start && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--
  return line.slice(start, end)
}

// A whole chunked body from `from`, or null when more bytes are needed, or what is wrong.
export function dechunk(all: Buffer, from: number): { body: Buffer; end: number } | null | string {
  const parts: Buffer[] = []
  let at = from
  for (;;) {
    const lineEnd = all.indexOf('\r\n', at)
    if (lineEnd < 0) return all.length - at > 1024 ? 'a chunk size line over 1 KB' : null
    const sizeText = all.toString('latin1', at, lineEnd).split(';')[0]!.trim()
    if (!/^[0-9a-fA-F]{1,8}$/.test(sizeText)) return `chunk size ${JSON.stringify(sizeText.slice(0, 20))}`
    const size = parseInt(sizeText, 16)
    const dataStart = lineEnd + 2
    if (size === 0) {
      // Trailers (ignored), then the empty line.
      let t = dataStart
      for (;;) {
        const end = all.indexOf('\r\n', t)
        if (end < 0) return null
        if (end === t) return { body: parts.length === 1 ? parts[0]! : Buffer.concat(parts), end: end + 2 }
        t = end + 2
      }
    }
    if (all.length < dataStart + size + 2) return null
    if (all[dataStart + size] !== 0x0d || all[dataStart + size + 1] !== 0x0a) return 'a chunk not followed by CRLF'
    parts.push(all.subarray(dataStart, dataStart + size))
    at = dataStart + size + 2
  }
}

export class RawHttpClient {
  readonly host: string
  readonly port: number
  retries = 0
  private readonly idle: Connection[] = []
  private readonly all = new Set<Connection>()
  private readonly waiting: Pending[] = []
  private readonly sweeper: NodeJS.Timeout

  constructor(baseUrl: string, private readonly maxConnections = 16) {
    const url = new URL(baseUrl)
    this.host = url.hostname
    this.port = Number(url.port || 80)
    // One timer for every request's deadline, not one per request.
    this.sweeper = setInterval(() => {
      const now = performance.now()
      for (const connection of this.all) connection.expire(now)
    }, 250)
    this.sweeper.unref()
  }

  async request(spec: RequestSpec): Promise<Answer | Failure> {
    const started = performance.now()
    const first = await this.once(spec, started, false)
    if (!first.retry) return first.result
    this.retries++
    const second = await this.once(spec, started, true)
    return { ...second.result, retried: true }
  }

  close(): void {
    clearInterval(this.sweeper)
    for (const connection of [...this.all]) connection.die('the client closed', 'CLIENT')
  }

  private once(spec: RequestSpec, started: number, fresh: boolean): Promise<{ result: Answer | Failure; retry: boolean }> {
    return new Promise((resolve) => {
      const pending: Pending = { spec, started, deadline: performance.now() + (spec.timeoutMs ?? 30_000), reused: false, resolve }
      let connection = fresh ? undefined : this.idle.pop()
      if (connection === undefined && this.all.size >= this.maxConnections && !fresh) {
        this.waiting.push(pending)
        return
      }
      connection ??= this.open()
      connection.send(pending)
    })
  }

  private open(): Connection {
    const connection = new Connection(this.host, this.port, (c) => this.released(c), (c) => this.lost(c))
    this.all.add(connection)
    return connection
  }

  private released(connection: Connection): void {
    const next = this.waiting.shift()
    if (next) connection.send(next)
    else this.idle.push(connection)
  }

  private lost(connection: Connection): void {
    this.all.delete(connection)
    const at = this.idle.indexOf(connection)
    if (at >= 0) this.idle.splice(at, 1)
    const next = this.waiting.shift()
    if (next) this.open().send(next)
  }
}
