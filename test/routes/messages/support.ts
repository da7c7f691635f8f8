import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { inject } from '../../helper.ts'
import { postMessage } from '../../../server/models/message/posting.ts'
import type { MessageRow } from '../../../server/models/message.ts'
import { dbTime } from '../../../server/lib/time.ts'

// What the composer (and the benchmark's post_message) sends.
export const POST_HEADERS = {
  'content-type': 'application/x-www-form-urlencoded',
  'sec-fetch-site': 'same-origin',
  accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml',
}

export const TURBO_ACCEPT = { accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml' }

export function encodeFields(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString()
}

// POST /rooms/:room_id/messages through the real route.
export function post(app: FastifyInstance, cookie: string, roomId: number, body: string | undefined, clientMessageId?: string): Promise<LightMyRequestResponse> {
  const fields: Record<string, string> = {}
  if (body !== undefined) fields['message[body]'] = body
  if (clientMessageId !== undefined) fields['message[client_message_id]'] = clientMessageId
  return inject(app, cookie, { method: 'POST', url: `/rooms/${roomId}/messages`, payload: encodeFields(fields), headers: POST_HEADERS })
}

// A form request with any verb (PATCH/PUT/DELETE, or POST with _method).
export function send(
  app: FastifyInstance,
  cookie: string,
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  fields: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return inject(app, cookie, {
    method,
    url,
    payload: encodeFields(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', ...headers },
  })
}

export function get(app: FastifyInstance, cookie: string, url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return inject(app, cookie, { method: 'GET', url, headers })
}

// Bulk history, written through the model in one transaction: "<prefix> 1" … "<prefix> n".
export function seed(app: FastifyInstance, roomId: number, creatorId: number, count: number, prefix = 'history'): Promise<MessageRow[]> {
  return app.store.write((m) => {
    const rows: MessageRow[] = []
    for (let i = 1; i <= count; i++) {
      const text = `${prefix} ${i}`
      rows.push(postMessage(m, { roomId, creatorId, clientMessageId: `${prefix.replace(/\W/g, '')}${i}x${Math.random().toString(36).slice(2, 8)}`, body: text, plainText: text }))
    }
    return rows
  })
}

// Every queued write before this one has committed once it resolves (the writer is FIFO).
export function settle(app: FastifyInstance): Promise<void> {
  return app.store.write(() => undefined)
}

export function one<T>(app: FastifyInstance, sql: string, ...params: unknown[]): T | undefined {
  return app.store.read((m) => m.db.prepare(sql).get(...params)) as T | undefined
}

export function all<T>(app: FastifyInstance, sql: string, ...params: unknown[]): T[] {
  return app.store.read((m) => m.db.prepare(sql).all(...params)) as T[]
}

export function value<T>(app: FastifyInstance, sql: string, ...params: unknown[]): T | undefined {
  return app.store.read((m) => m.db.prepare(sql).pluck().get(...params)) as T | undefined
}

export function exec(app: FastifyInstance, sql: string, ...params: unknown[]): Promise<void> {
  return app.store.write((m) => {
    m.db.prepare(sql).run(...params)
  })
}

// The data-message-id values of <div …> openers, in document order (what the harness reads).
export function messageIdsInDivs(html: string): number[] {
  return [...html.matchAll(/<div\s[^>]*\sdata-message-id="(\d+)"/g)].map((match) => Number(match[1]))
}

// Every tag of any kind carrying data-message-id="<digits>".
export function messageIdsInAnyTag(html: string): number[] {
  return [...html.matchAll(/<[a-zA-Z][^>]*\sdata-message-id="(\d+)"/g)].map((match) => Number(match[1]))
}

// The content of the element whose opening tag carries id="<id>", up to its matching close
// (same tag name, nesting counted).
export function elementContent(html: string, id: string): string | null {
  const open = new RegExp(`<([a-zA-Z][\\w-]*)\\b[^>]*\\sid="${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]*>`).exec(html)
  if (!open) return null
  const tag = open[1]!
  const tags = new RegExp(`<(/?)${tag}\\b[^>]*>`, 'g')
  tags.lastIndex = open.index + open[0].length
  let depth = 1
  for (let match = tags.exec(html); match; match = tags.exec(html)) {
    depth += match[1] ? -1 : 1
    if (depth === 0) return html.slice(open.index + open[0].length, match.index)
  }
  return null
}

export function dbTimeAgo(ms: number): string {
  return dbTime((Date.now() - ms) * 1000)
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

// Rails' GlobalID#to_param, computed independently of the server's helper.
export function gidParam(model: string, id: number): string {
  return Buffer.from(`gid://campfire/${model}/${id}`, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

export function htmlUnescape(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
}
