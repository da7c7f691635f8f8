import http from 'node:http'
import https from 'node:https'
import { pinnedLookup } from './opengraph-fetch.ts'
import { isPublicAddress, parsePublicUrl, resolveAllowed, type LookupAll } from './private-network-guard.ts'

// One webhook POST (Webhook#deliver's HTTP part): the JSON goes to the bot's URL and the reply
// comes back as status, content type and bytes. The URL was set by an administrator; nothing a
// member writes (a message, a reply) changes where it goes, and redirects are never followed
// (a 3xx is just a reply that is not 200). The host is resolved once and the socket pinned to
// that address, so the address policy cannot be dodged by DNS rebinding.
//
// Private addresses: `allow` (the default, as upstream) lets a webhook reach loopback and the
// LAN, where a self-hosted team's bots usually run; `deny` refuses every non-public address
// with the same guard as link unfurling (CAMPFIRE_WEBHOOK_PRIVATE_ADDRESSES).
export type PrivateAddressPolicy = 'allow' | 'deny'

export interface WebhookRequestOptions {
  // Allowed to connect (resolving, TCP and TLS), and allowed again to read the whole reply.
  timeoutMs: number
  // The longest reply read; a longer one is a failed delivery.
  maxBytes: number
  privateAddresses: PrivateAddressPolicy
  signal?: AbortSignal
  lookup?: LookupAll
  userAgent?: string
}

export type WebhookOutcome =
  | { kind: 'reply'; status: number; contentType: string | null; body: Buffer }
  | { kind: 'timeout'; phase: 'connect' | 'read' }
  | { kind: 'failed'; reason: string }

// Settles once: with the reply, a timeout, a failure, or when the caller's signal aborts. The
// request is destroyed whichever way it ends; a closed port costs one refused connection.
export function postWebhook(rawUrl: string, json: string, options: WebhookRequestOptions): Promise<WebhookOutcome> {
  let url: URL
  try {
    url = parsePublicUrl(rawUrl)
  } catch (error) {
    return Promise.resolve({ kind: 'failed', reason: (error as Error).message })
  }
  if (options.signal?.aborted) return Promise.resolve({ kind: 'failed', reason: 'aborted' })
  return new Promise((resolve) => {
    let settled = false
    let request: http.ClientRequest | undefined
    let timer: NodeJS.Timeout | undefined
    const finish = (outcome: WebhookOutcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', aborted)
      request?.destroy()
      resolve(outcome)
    }
    const aborted = () => finish({ kind: 'failed', reason: 'aborted' })
    const failed = (error: unknown) => finish({ kind: 'failed', reason: describe(error) })
    const deadline = (phase: 'connect' | 'read') => {
      clearTimeout(timer)
      timer = setTimeout(() => finish({ kind: 'timeout', phase }), options.timeoutMs)
    }
    options.signal?.addEventListener('abort', aborted, { once: true })
    deadline('connect')
    const isAllowed = options.privateAddresses === 'allow' ? () => true : isPublicAddress
    resolveAllowed(url.hostname, { isAllowed, lookup: options.lookup }).then((vetted) => {
      if (settled) return
      request = send(url, vetted, json, options, finish)
      request.on('error', failed)
      request.once('socket', (socket) => socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => settled || deadline('read')))
    }, failed)
  })
}

function send(url: URL, vetted: { address: string; family: 4 | 6 }, json: string, options: WebhookRequestOptions, finish: (outcome: WebhookOutcome) => void): http.ClientRequest {
  const body = Buffer.from(json, 'utf8')
  const request = (url.protocol === 'https:' ? https : http).request(url, {
    method: 'POST',
    lookup: pinnedLookup(vetted),
    agent: false,
    headers: { 'content-type': 'application/json', 'content-length': String(body.length), accept: '*/*', 'user-agent': options.userAgent ?? 'Campfire webhook' },
  })
  request.once('response', (response) => {
    const status = response.statusCode ?? 0
    const header = response.headers['content-type']
    const contentType = typeof header === 'string' && header.trim() !== '' ? header : null
    const declared = Number(response.headers['content-length'] ?? 0)
    if (declared > options.maxBytes) return finish({ kind: 'failed', reason: `reply of ${declared} bytes is over the ${options.maxBytes}-byte limit` })
    const chunks: Buffer[] = []
    let size = 0
    response.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > options.maxBytes) finish({ kind: 'failed', reason: `reply is over the ${options.maxBytes}-byte limit` })
      else chunks.push(chunk)
    })
    response.on('error', (error) => finish({ kind: 'failed', reason: describe(error) }))
    response.on('end', () => finish({ kind: 'reply', status, contentType, body: Buffer.concat(chunks) }))
  })
  request.end(body)
  return request
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message
  }
  return String(error)
}
