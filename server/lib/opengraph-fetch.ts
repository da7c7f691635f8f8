import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { GuardError, parsePublicUrl, resolveAllowed, type GuardPolicy, type ResolvedAddress } from './private-network-guard.ts'

// Fetching untrusted URLs for link unfurling: every hop is validated and resolved through the
// private-network guard, and the connection is pinned to the vetted address.

export const MAX_BODY_BYTES = 5 * 1024 * 1024
export const MAX_REDIRECTS = 10
export const FETCH_TIMEOUT_MS = 5000

export interface FetchPolicy extends GuardPolicy {
  maxBytes?: number
  maxRedirects?: number
  timeoutMs?: number
  userAgent?: string
  // The Accept header (HTML first unless the caller wants something else).
  accept?: string
}

export class FetchError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'FetchError'
  }
}

const FILES_AND_MEDIA = /\.(?:zip|tar|tar\.gz|tar\.bz2|tar\.xz|gz|bz2|rar|7z|dmg|exe|msi|pkg|deb|iso|jpg|jpeg|png|gif|bmp|mp4|mov|avi|mkv|wmv|flv|heic|heif|mp3|wav|ogg|aac|wma|webm|ogv|mpg|mpeg)$/i

export function isFileOrMediaUrl(url: URL): boolean {
  return FILES_AND_MEDIA.test(url.pathname)
}

// A lookup that answers every question with the vetted address, so the socket connects to it.
export function pinnedLookup(vetted: ResolvedAddress): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options && options.all) callback(null, [{ address: vetted.address, family: vetted.family }])
    else callback(null, vetted.address, vetted.family)
  }) as unknown as LookupFunction
}

interface Hop {
  url: URL
  response: http.IncomingMessage
}

function requestOnce(method: 'GET' | 'HEAD', url: URL, vetted: ResolvedAddress, signal: AbortSignal, policy: FetchPolicy): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http
    const request = client.request(
      url,
      {
        method,
        lookup: pinnedLookup(vetted),
        signal,
        agent: false,
        headers: { 'user-agent': policy.userAgent ?? 'Campfire link unfurler', accept: policy.accept ?? 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5' },
      },
      resolve,
    )
    request.on('error', reject)
    request.end()
  })
}

// Follows redirects, re-validating and re-resolving each location, and returns the final response.
export async function follow(method: 'GET' | 'HEAD', raw: string, policy: FetchPolicy, signal: AbortSignal): Promise<Hop> {
  let url = parsePublicUrl(raw)
  const maxRedirects = policy.maxRedirects ?? MAX_REDIRECTS
  for (let hop = 0; ; hop++) {
    const vetted = await resolveAllowed(url.hostname, policy)
    const response = await requestOnce(method, url, vetted, signal, policy)
    const status = response.statusCode ?? 0
    if (status >= 300 && status < 400 && status !== 304 && response.headers.location) {
      response.destroy()
      if (hop >= maxRedirects) throw new FetchError('too many redirects')
      url = parsePublicUrl(response.headers.location, url)
      continue
    }
    return { url, response }
  }
}

export function mediaType(header: string | undefined): { type: string; charset: string | null } {
  const [type = '', ...params] = (header ?? '').split(';')
  const charset = params.map((p) => p.trim().match(/^charset\s*=\s*"?([^";]+)"?$/i)?.[1]).find((c) => c) ?? null
  return { type: type.trim().toLowerCase(), charset }
}

export async function readCapped(response: http.IncomingMessage, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of response) {
    total += (chunk as Buffer).length
    if (total > maxBytes) {
      response.destroy()
      throw new FetchError(`body over ${maxBytes} bytes`)
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

function decode(body: Buffer, charset: string | null): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body)
  } catch {
    return new TextDecoder('utf-8').decode(body)
  }
}

// Runs work under one deadline covering DNS, connecting and reading: the signal aborts the
// sockets, and the race stops waiting on anything that ignores it (a slow resolver).
export function withDeadline<T>(policy: FetchPolicy, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController()
  const timeoutMs = Math.max(1, policy.timeoutMs ?? FETCH_TIMEOUT_MS)
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new FetchError(`timed out after ${timeoutMs} ms`)
      controller.abort(error)
      reject(error)
    }, timeoutMs)
  })
  const running = work(controller.signal)
  running.catch(() => {}) // a late failure after the deadline is not unhandled
  return Promise.race([running, expired]).finally(() => {
    clearTimeout(timer)
    controller.abort()
  })
}

export interface FetchedDocument {
  url: URL
  html: string
}

// The HTML at a URL: a 200 with content type text/html and at most maxBytes, or a thrown error.
export function fetchHtml(raw: string, policy: FetchPolicy = {}): Promise<FetchedDocument> {
  return withDeadline(policy, async (signal) => {
    const start = parsePublicUrl(raw)
    if (isFileOrMediaUrl(start)) throw new FetchError('file or media URL not fetched')
    const { url, response } = await follow('GET', start.href, policy, signal)
    const maxBytes = policy.maxBytes ?? MAX_BODY_BYTES
    try {
      if (response.statusCode !== 200) throw new FetchError(`status ${response.statusCode}`)
      const { type, charset } = mediaType(response.headers['content-type'])
      if (type !== 'text/html') throw new FetchError(`content type ${type || 'missing'}`)
      const length = Number(response.headers['content-length'] ?? 0)
      if (!(length <= maxBytes)) throw new FetchError(`content length ${response.headers['content-length']} over ${maxBytes}`)
      return { url, html: decode(await readCapped(response, maxBytes), charset) }
    } finally {
      response.destroy()
    }
  })
}

// The media type a HEAD request reports for a URL (lowercased, parameters dropped), or a thrown error.
export function fetchContentType(raw: string, policy: FetchPolicy = {}): Promise<string> {
  return withDeadline(policy, async (signal) => {
    const { response } = await follow('HEAD', raw, policy, signal)
    response.destroy()
    if (response.statusCode !== 200) throw new FetchError(`status ${response.statusCode}`)
    return mediaType(response.headers['content-type']).type
  })
}

export { GuardError }
