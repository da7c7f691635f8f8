// The benchmark harness's response validation, re-implemented so tests judge our responses the way
// basecamp/once-campfire-verification does (harness.md §2–2.3): the preflight that derives a contract
// from one response and independent SQL on the database (bench/contracts.rb), the check every load
// response must pass (loadgen validation.rs), the post contract and the write audit (compare.rb,
// validate_acks.rb). Reasons are the harness's own strings; anything after ": " is our detail.
//
// The harness's patterns are Rust regexes, where \s, \d and \b are Unicode-aware; the classes below
// spell those out so JavaScript matches the same text. Its cache of the last 8 valid responses only
// ever accepts bytes it already judged valid, so it cannot change a verdict: checkResponse leaves it
// out, and ValidResponses below is that cache, for the load generators that want it.
import type BetterSqlite3 from 'better-sqlite3'
import { crc32, inflateRawSync } from 'node:zlib'

export type RouteKind = 'room_show' | 'messages_page' | 'sidebar' | 'search' | 'avatar' | 'static_css' | 'up' | 'post_message'
export const MESSAGE_ROUTES: readonly RouteKind[] = ['room_show', 'messages_page', 'search']
const DOCUMENT_ROUTES: readonly RouteKind[] = ['room_show', 'sidebar', 'search']
const KINDS: readonly RouteKind[] = ['room_show', 'messages_page', 'sidebar', 'search', 'avatar', 'static_css', 'up', 'post_message']

export const TURBO_STREAM_MEDIA_TYPE = 'text/vnd.turbo-stream.html'
export const MAX_DECODED_BYTES = 8 * 1024 * 1024
const U64_MAX = 2n ** 64n - 1n

// What the contract JSON holds.
export interface Contract {
  kind: RouteKind
  contentType: string
  required: string[]
  messageIds: bigint[] | null
  messageContent: string[][] | null
  exactBody: Buffer | null
}

// A response as it came off the wire: status, headers and the undecoded body bytes.
export interface WireResponse {
  status: number
  headers: Record<string, string | string[] | number | undefined>
  wire: Buffer
}

export function fromInject(response: { statusCode: number; headers: WireResponse['headers']; rawPayload: Buffer }): WireResponse {
  return { status: response.statusCode, headers: response.headers, wire: response.rawPayload }
}

// Rust's Unicode classes: \s is White_Space, \w the word characters that \b looks at.
const WS = '\\p{White_Space}'
const WORD = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}'
const OPENER = new RegExp(`<div(?![${WORD}])[^>]*[${WS}]data-message-id="(\\p{Nd}+)"[^>]*>`, 'gu')
const IDENTITY = new RegExp(`[${WS}]id="message_([^"]+)"`, 'u')
const PRESENTATION = new RegExp(`<div(?![${WORD}])[^>]*[${WS}]id="presentation_message_([^"]+)"[^>]*>`, 'u')
const DIVS = new RegExp(`<(\\/?)div(?![${WORD}])[^>]*>`, 'giu')
const TAGS = /<[^>]*>/g
const WORDS = /[A-Za-z0-9_]+/g
const CLOSURE = new RegExp(`<\\/turbo-frame>[${WS}]*<\\/div>[${WS}]*$`, 'u')
const TRIM_START = new RegExp(`^[${WS}]+`, 'u')
const TRIM_END = new RegExp(`[${WS}]+$`, 'u')

const WHITE_SPACE = new RegExp(`^[${WS}]$`, 'u')
const trimStart = (text: string) => text.replace(TRIM_START, '')
// As text.replace(TRIM_END, ''), without the regex: unanchored at the start, it tries every
// whitespace run of a whole page. White_Space has no character outside the BMP, so one UTF-16
// unit at a time is exact.
function trimEnd(text: string): string {
  let end = text.length
  while (end > 0 && WHITE_SPACE.test(text[end - 1]!)) end--
  return end === text.length ? text : text.slice(0, end)
}
const asciiLower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase())

// HeaderMap#get: the first value, and to_str() fails unless it is visible ASCII (or tab).
function header(headers: WireResponse['headers'], name: string): { value: string; readable: boolean } | undefined {
  const raw = headers[name]
  if (raw === undefined) return undefined
  const value = String(Array.isArray(raw) ? raw[0] : raw)
  return { value, readable: /^[\t\x20-\x7e]*$/.test(value) }
}

// ---------------------------------------------------------------------------------------------
// Contracts (Validator::from_value): a thin or malformed contract fails closed.

export function contractProblems(contract: Contract): string[] {
  const problems: string[] = []
  if (!KINDS.includes(contract.kind)) problems.push('unknown validation kind')
  const messageRoute = MESSAGE_ROUTES.includes(contract.kind)
  if (contract.messageIds?.some((id) => id <= 0n || id > U64_MAX)) problems.push('invalid message ID')
  if (messageRoute && (contract.messageIds === null || contract.messageIds.length === 0)) problems.push('message route needs expected IDs')
  for (const tokens of contract.messageContent ?? []) {
    if (tokens.length === 0) problems.push('empty message content tokens')
    else if (tokens.some((token) => !/^[A-Za-z0-9_]+$/.test(token))) problems.push('invalid message content token')
  }
  if (messageRoute && contract.messageContent === null) problems.push('message route needs expected content')
  if (contract.messageContent !== null && contract.messageContent.length !== contract.messageIds?.length) problems.push('message content must match expected IDs')
  return problems
}

// ---------------------------------------------------------------------------------------------
// Generic rules, in the validator's order. Returns the decoded body, or the failure.

export function decodeResponse(contract: Pick<Contract, 'contentType'>, response: WireResponse): { body?: Buffer; failures: string[] } {
  const fail = (reason: string) => ({ failures: [reason] })
  const contentType = header(response.headers, 'content-type')
  if (!contentType?.readable) return fail('missing content type')
  const encodingHeader = header(response.headers, 'content-encoding')
  const encoding = encodingHeader === undefined ? 'identity' : encodingHeader.readable ? encodingHeader.value : 'invalid'
  if (response.status !== 200 || response.wire.length === 0) return fail(`unsuccessful or empty response: status ${response.status}, ${response.wire.length} bytes`)
  const mediaType = contentType.value.split(';')[0]!.replace(TRIM_START, '').replace(TRIM_END, '')
  if (mediaType !== contract.contentType) return fail(`wrong content type: "${contentType.value}", expected ${contract.contentType}`)
  const length = header(response.headers, 'content-length')
  if (length !== undefined && !(length.readable && /^\+?\d+$/.test(length.value) && Number(length.value) === response.wire.length)) {
    return fail(`wrong content length: header ${length.value}, wire ${response.wire.length} bytes`)
  }
  if (encoding === 'identity') return { body: response.wire, failures: [] }
  if (encoding === 'gzip') return gunzipExactly(response.wire)
  return fail(`unsupported content encoding: ${encoding}`)
}

// One gzip member, as flate2's GzDecoder reads it: header, deflate stream, CRC-32 and length
// trailer, and nothing after it. At most 8 MiB decoded.
export function gunzipExactly(wire: Buffer): { body?: Buffer; failures: string[] } {
  const invalid = (detail: string) => ({ failures: [`invalid gzip stream: ${detail}`] })
  if (wire.length < 10 || wire[0] !== 0x1f || wire[1] !== 0x8b) return invalid('no gzip header')
  if (wire[2] !== 8) return invalid('not deflate')
  const flags = wire[3]!
  let offset = 10
  if (flags & 0x04) {
    if (wire.length < offset + 2) return invalid('truncated header')
    offset += 2 + wire.readUInt16LE(offset)
  }
  for (const flag of [0x08, 0x10]) {
    if (!(flags & flag)) continue
    const end = wire.indexOf(0, offset)
    if (end === -1) return invalid('truncated header')
    offset = end + 1
  }
  if (flags & 0x02) {
    if (wire.length < offset + 2) return invalid('truncated header')
    if ((crc32(wire.subarray(0, offset)) & 0xffff) !== wire.readUInt16LE(offset)) return invalid('header checksum')
    offset += 2
  }
  if (offset > wire.length) return invalid('truncated header')
  let inflated: { buffer: Buffer; engine: { bytesWritten: number } }
  try {
    // Room for the whole body at once when the trailer's length is plausible (only a hint: the
    // checks below read the real trailer).
    const hint = wire.readUInt32LE(wire.length - 4)
    const chunkSize = hint > 0 && hint <= MAX_DECODED_BYTES ? Math.max(64, hint + 64) : undefined
    inflated = inflateRawSync(wire.subarray(offset), { info: true, maxOutputLength: MAX_DECODED_BYTES + 1, ...(chunkSize ? { chunkSize } : {}) }) as unknown as typeof inflated
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return { failures: ['oversized or trailing gzip data: more than 8 MiB'] }
    return invalid((error as Error).message)
  }
  const body = inflated.buffer
  const trailer = offset + inflated.engine.bytesWritten
  if (wire.length < trailer + 8) return invalid('truncated trailer')
  if (wire.readUInt32LE(trailer) !== crc32(body) || wire.readUInt32LE(trailer + 4) !== body.length % 2 ** 32) return invalid('checksum mismatch')
  if (body.length > MAX_DECODED_BYTES) return { failures: ['oversized or trailing gzip data: more than 8 MiB'] }
  if (wire.length !== trailer + 8) return { failures: [`oversized or trailing gzip data: ${wire.length - trailer - 8} bytes after the gzip member`] }
  return { body, failures: [] }
}

// std::str::from_utf8: strict, and a BOM stays part of the text.
export function utf8Text(body: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body)
  } catch {
    return null
  }
}

// ---------------------------------------------------------------------------------------------
// Body rules.

export function documentFailures(text: string): string[] {
  const start = trimStart(text)
  const doctype = start.length >= 15 && asciiLower(start.slice(0, 15)) === '<!doctype html>'
  return doctype && trimEnd(text).endsWith('</html>') ? [] : ['incomplete HTML document']
}

export interface Opener {
  id: bigint
  start: number
  end: number
  tag: string
}

// Every <div …data-message-id="N"…> opener, in document order.
export function messageOpeners(text: string): { openers: Opener[]; failures: string[] } {
  const openers: Opener[] = []
  for (const match of text.matchAll(OPENER)) {
    const digits = match[1]!
    const id = /^[0-9]+$/.test(digits) ? BigInt(digits) : -1n
    if (id <= 0n || id > U64_MAX) return { openers, failures: [`invalid message ID: data-message-id="${digits}"`] }
    openers.push({ id, start: match.index!, end: match.index! + match[0].length, tag: match[0] })
  }
  return { openers, failures: [] }
}

export function messageWindowFailures(openers: readonly Opener[], expected: readonly bigint[]): string[] {
  const actual = openers.map((o) => o.id)
  if (actual.length === expected.length && actual.every((id, i) => id === expected[i])) return []
  return [`incorrect message window: got ${describeIds(actual)}, expected ${describeIds(expected)}`]
}

function describeIds(ids: readonly bigint[]): string {
  const shown = ids.length > 12 ? [...ids.slice(0, 5), '…', ...ids.slice(-5)] : ids
  return `${ids.length} [${shown.join(', ')}]`
}

// The content of the message's presentation div (up to its matching </div>), or why there is none.
export function presentationContent(segment: string, id: bigint, openerTag: string): { content?: string; failure?: string } {
  const presentation = PRESENTATION.exec(segment)
  if (!presentation) return { failure: 'missing message presentation' }
  const identity = IDENTITY.exec(openerTag)?.[1]
  if (presentation[1] !== id.toString() && identity !== presentation[1]) return { failure: 'incorrect message presentation identity' }
  const start = presentation.index + presentation[0].length
  const rest = segment.slice(start)
  let depth = 1
  for (const tag of rest.matchAll(DIVS)) {
    depth += tag[1] === '/' ? -1 : 1
    if (depth === 0) return { content: rest.slice(0, tag.index) }
  }
  return { failure: 'incomplete message presentation' }
}

// Tags become spaces; every token must then appear, in order, as a whole word.
export function missingToken(content: string, tokens: readonly string[]): string | null {
  const words = content.replace(TAGS, ' ').match(WORDS) ?? []
  let position = 0
  for (const token of tokens) {
    while (position < words.length && words[position] !== token) position++
    if (position === words.length) return token
    position++
  }
  return null
}

// Per message: its segment (opener to the next opener), the pagination closure, the presentation
// and its words. Every message is checked, so one run shows every bad message.
export function messageContentFailures(kind: RouteKind, text: string, openers: readonly Opener[], content: readonly string[][]): string[] {
  const failures: string[] = []
  content.forEach((tokens, i) => {
    const opener = openers[i]!
    const segment = text.slice(opener.end, openers[i + 1]?.start ?? text.length)
    if (kind === 'messages_page' && !CLOSURE.test(segment)) {
      failures.push(`incomplete paginated message: message ${opener.id} ends with ${JSON.stringify(segment.slice(-60))}`)
      return
    }
    const presentation = presentationContent(segment, opener.id, opener.tag)
    if (presentation.failure) return failures.push(`${presentation.failure}: message ${opener.id}`)
    const missing = missingToken(presentation.content!, tokens)
    if (missing !== null) failures.push(`missing seeded message content: message ${opener.id} lacks "${missing}" of ${JSON.stringify(tokens.join(' '))}`)
  })
  return failures
}

export function postStreamFailures(text: string, openers: readonly Opener[], posted: string | undefined): string[] {
  const shaped = text.startsWith('<turbo-stream') && trimEnd(text).endsWith('</turbo-stream>') && text.includes('<template>') && text.includes('</template>')
  if (!shaped || openers.length !== 1) {
    return [`invalid message Turbo Stream: ${openers.length} message openers, starts ${JSON.stringify(text.slice(0, 20))}, ends ${JSON.stringify(text.slice(-20))}`]
  }
  if (posted === undefined || !text.includes(posted)) return [`POST did not render the requested message: "${posted}"`]
  return []
}

export interface Verdict {
  failures: string[]
  text?: string
  // post_message: the acknowledged id
  messageId?: bigint
}

// Validator::check: every warmup and timed response must pass it.
export function checkResponse(contract: Contract, response: WireResponse, posted?: string): Verdict {
  const decoded = decodeResponse(contract, response)
  if (!decoded.body) return { failures: decoded.failures }
  if (contract.exactBody) return { failures: decoded.body.equals(contract.exactBody) ? [] : ['changed binary or static response'] }
  const text = utf8Text(decoded.body)
  if (text === null) return { failures: ['invalid UTF-8'] }
  const missing = contract.required.filter((marker) => !text.includes(marker))
  if (missing.length > 0) return { text, failures: missing.map((marker) => `missing expected content: ${marker}`) }
  if (DOCUMENT_ROUTES.includes(contract.kind)) {
    const failures = documentFailures(text)
    if (failures.length > 0) return { text, failures }
  }
  const { openers, failures } = messageOpeners(text)
  if (failures.length > 0) return { text, failures }
  if (contract.messageIds) {
    const window = messageWindowFailures(openers, contract.messageIds)
    if (window.length > 0) return { text, failures: window }
  }
  if (contract.messageContent) {
    const content = messageContentFailures(contract.kind, text, openers, contract.messageContent)
    if (content.length > 0) return { text, failures: content }
  }
  if (contract.kind === 'post_message') {
    return { text, failures: postStreamFailures(text, openers, posted), messageId: openers.length === 1 ? openers[0]!.id : undefined }
  }
  return { text, failures: [] }
}

// The harness's cache of valid responses: a response equal to one of the last `size` that passed
// checkResponse under the same contract, in status, Content-Type, Content-Encoding and
// Content-Length (the headers checkResponse reads) and in every byte of the body as it came off
// the wire, gets the same verdict without being decoded and parsed again. checkResponse depends on
// nothing else, so the verdict cannot differ. Each contract has its own list: a changed
// expectation is a new Contract object (or call forget), and nothing passed under the old one
// counts for it. Posts are never remembered (their verdict depends on the posted text).
export class ValidResponses {
  private readonly byContract = new WeakMap<Contract, Remembered[]>()

  constructor(private readonly size = 8) {}

  matches(contract: Contract, response: WireResponse): boolean {
    if (contract.kind === 'post_message' || response.status !== 200) return false
    const list = this.byContract.get(contract)
    if (list === undefined) return false
    const key = rememberedHeaders(response)
    for (const entry of list) {
      if (entry.wire.length === response.wire.length && entry.type === key.type && entry.encoding === key.encoding && entry.length === key.length && entry.wire.equals(response.wire)) return true
    }
    return false
  }

  // Only after checkResponse(contract, response) found no failure.
  remember(contract: Contract, response: WireResponse): void {
    if (contract.kind === 'post_message' || response.status !== 200) return
    let list = this.byContract.get(contract)
    if (list === undefined) this.byContract.set(contract, (list = []))
    list.push({ ...rememberedHeaders(response), wire: response.wire })
    if (list.length > this.size) list.shift()
  }

  forget(contract: Contract): void {
    this.byContract.delete(contract)
  }
}

interface Remembered {
  type: string | undefined
  encoding: string | undefined
  length: string | undefined
  wire: Buffer
}

function rememberedHeaders(response: WireResponse): Omit<Remembered, 'wire'> {
  const value = (name: string) => {
    const raw = response.headers[name]
    return raw === undefined ? undefined : Array.isArray(raw) ? raw.join('\n') : String(raw)
  }
  return { type: value('content-type'), encoding: value('content-encoding'), length: value('content-length') }
}

// ---------------------------------------------------------------------------------------------
// Preflight (BenchmarkContracts.prepare): expected windows come from the database, never the app.

export interface SeedLabels {
  watercooler: number
  hq: number
  busy060: number
  davidEmail: string
}

export interface Expectations {
  room_show: bigint[]
  messages_page: bigint[]
  search: bigint[]
  sidebarNames: string[]
}

const ids = (rows: unknown[]) => (rows as { id: number | bigint }[]).map((row) => BigInt(row.id)).reverse()

export function expectedWindows(db: BetterSqlite3.Database, labels: SeedLabels): Expectations {
  const all = (sql: string, ...params: unknown[]) => db.prepare(sql).safeIntegers(true).all(...params)
  return {
    room_show: ids(all('SELECT id FROM messages WHERE room_id=? ORDER BY created_at DESC LIMIT 40', labels.watercooler)),
    messages_page: ids(all(
      'SELECT id FROM messages WHERE room_id=? AND created_at < (SELECT created_at FROM messages WHERE id=?) ORDER BY created_at DESC LIMIT 40',
      labels.watercooler, labels.busy060,
    )),
    search: ids(all(
      `SELECT m.id FROM messages m JOIN message_search_index idx ON idx.rowid=m.id JOIN memberships mm ON mm.room_id=m.room_id
       JOIN users u ON u.id=mm.user_id WHERE u.email_address=? AND idx.body MATCH 'coffee' ORDER BY m.id DESC LIMIT 100`,
      labels.davidEmail,
    )),
    sidebarNames: (db.prepare(
      `SELECT r.name FROM rooms r JOIN memberships m ON m.room_id=r.id JOIN users u ON u.id=m.user_id
       WHERE u.email_address=? AND r.type='Rooms::Open' AND m.involvement<>'invisible'`,
    ).pluck().all(labels.davidEmail) as string[]).map(escapeHtml),
  }
}

// CGI.escapeHTML
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

// The preflight decodes gzip too (Zlib::GzipReader); here any gzip fault fails it, which the load
// check would do anyway.
function preflightBody(response: WireResponse): { body?: Buffer; failures: string[] } {
  if (response.status !== 200) return { failures: [`HTTP ${response.status}`] }
  const gzip = header(response.headers, 'content-encoding')?.value === 'gzip'
  const decoded = gzip ? gunzipExactly(response.wire) : { body: response.wire, failures: [] }
  if (!decoded.body) return decoded
  return decoded.body.length === 0 ? { failures: ['empty body'] } : decoded
}

// Derives the route's contract from one response (fetched with Accept-Encoding: gzip) and the database.
export function prepareContract(kind: Exclude<RouteKind, 'post_message'>, response: WireResponse, db: BetterSqlite3.Database, expected: Expectations, watercooler: number): { contract?: Contract; failures: string[] } {
  const { body, failures } = preflightBody(response)
  if (body === undefined) return { failures: failures.map((f) => `${kind}: ${f}`) }
  const text = body.toString('utf8')
  const problems: string[] = []
  const messageRoute = MESSAGE_ROUTES.includes(kind)
  if (messageRoute && !/data-message-id="\d+"/.test(text)) problems.push(`${kind}: unpopulated`)
  if (kind === 'sidebar' && !(text.includes('shared_rooms') && text.includes(String(watercooler)))) problems.push('sidebar missing room')
  if (kind === 'up' && !text.includes('background-color: green')) problems.push('invalid health')
  const contentTypeValue = String(header(response.headers, 'content-type')?.value ?? '')
  if (kind === 'avatar' && !(contentTypeValue.startsWith('image/') && body.length > 100)) problems.push(`invalid avatar: ${contentTypeValue}, ${body.length} bytes`)
  if (kind === 'static_css' && !(contentTypeValue.startsWith('text/css') && text.includes('{'))) problems.push(`invalid CSS: ${contentTypeValue}`)
  const found = [...text.matchAll(/data-message-id="(\d+)"/g)].map((m) => BigInt(m[1]!))
  if (messageRoute) {
    const want = expected[kind as 'room_show' | 'messages_page' | 'search']
    if (found.length !== want.length || found.some((id, i) => id !== want[i])) {
      problems.push(`${kind}: differs from seed SQL: page has ${describeIds(found)}, database expects ${describeIds(want)}`)
    }
  }
  if (DOCUMENT_ROUTES.includes(kind) && !(/<!doctype html>/i.test(text) && text.includes('</html>'))) problems.push(`${kind}: incomplete HTML page`)
  if (problems.length > 0) return { failures: problems }

  const contentType = contentTypeValue.split(';')[0]!
  const contract: Contract = { kind, contentType, required: [], messageIds: null, messageContent: null, exactBody: null }
  if (messageRoute) {
    contract.messageIds = found
    const list = JSON.stringify(found.map(String))
    const bodies = new Map((db.prepare('SELECT rowid AS id, body FROM message_search_index WHERE rowid IN (SELECT value FROM json_each(?))').safeIntegers(true).all(list) as { id: bigint; body: string }[]).map((r) => [r.id, r.body]))
    const missingRows = found.filter((id) => !bodies.has(id))
    if (missingRows.length > 0) return { failures: [`${kind}: no search row for ${missingRows.join(', ')}`] }
    contract.messageContent = found.map((id) => bodies.get(id)!.match(WORDS) ?? [])
    for (const row of db.prepare('SELECT id, client_message_id FROM messages WHERE id IN (SELECT value FROM json_each(?))').all(list) as { id: number; client_message_id: string }[]) {
      const marker = [`id="message_${row.id}"`, `id="message_${row.client_message_id}"`].find((m) => text.includes(m))
      if (marker === undefined) return { failures: [`missing message DOM identity ${row.id}`] }
      contract.required.push(marker)
    }
  } else if (kind === 'sidebar') {
    contract.required = ['shared_rooms', ...expected.sidebarNames]
  } else if (kind === 'avatar' || kind === 'static_css') {
    contract.exactBody = body
  } else if (kind === 'up') {
    contract.required = ['background-color: green']
  }
  const thin = contractProblems(contract)
  return thin.length > 0 ? { failures: thin.map((p) => `${kind} contract: ${p}`) } : { contract, failures: [] }
}

// The post contract: the write room's page (identity) must name exactly one messages_<room key>_<id> element.
export function preparePostContract(roomPage: WireResponse, roomId: number): { contract?: Contract; target?: string; failures: string[] } {
  const text = roomPage.wire.toString('utf8')
  if (roomPage.status !== 200 || !text.includes('</html>')) return { failures: [`write room inaccessible: status ${roomPage.status}`] }
  const pattern = new RegExp(`^messages_(?:rooms_[a-z]+|room)_${roomId}$`)
  const targets = [...text.matchAll(/id="(messages_[^"]+)"/g)].map((m) => m[1]!).filter((id) => pattern.test(id))
  if (targets.length !== 1) return { failures: [`missing or ambiguous write-room DOM target: ${JSON.stringify(targets)}`] }
  const target = targets[0]!
  const contract: Contract = {
    kind: 'post_message', contentType: TURBO_STREAM_MEDIA_TYPE, required: ['action="append"', `target="${target}"`], messageIds: null, messageContent: null, exactBody: null,
  }
  return { contract, target, failures: [] }
}

// `loadgen scrape`: from the room page and the sidebar (fetched without Accept-Encoding), the cable
// streams (channel first, then signed-stream-name, one space apart), the first stylesheet and script.
export function scrape(html: string): { streams: string[]; css: string | null; js: string | null } {
  const unescape = (value: string) => value.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'")
  const streams = [...html.matchAll(/<turbo-cable-stream-source channel="([^"]+)" signed-stream-name="([^"]+)"/g)].map((m) => `${m[1]}|${unescape(m[2]!)}`)
  return {
    streams: [...new Set(streams)],
    css: /href="(\/assets\/[^"]+\.css)"/.exec(html)?.[1] ?? null,
    js: /(\/assets\/[^"]+\.js)"/.exec(html)?.[1] ?? null,
  }
}

// ---------------------------------------------------------------------------------------------
// Requests shaped like the load generator's.

let sequence = 0n

// Hex of the nanosecond clock, then hex of a sequence number: unique per call.
export function nonce(): string {
  const nanoseconds = BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n)
  return `${nanoseconds.toString(16)}${(sequence++).toString(16)}`
}

// Unreserved characters stay, every other byte is %XX (upper case): "bench write" → "bench%20write".
const UNRESERVED = new Uint8Array(256).map((_, b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? 1 : 0))
const PERCENT = Array.from({ length: 256 }, (_, b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)

export function harnessUrlencode(text: string): string {
  let out = ''
  for (const b of Buffer.from(text, 'utf8')) out += UNRESERVED[b] ? String.fromCharCode(b) : PERCENT[b]
  return out
}

export function postRequest(roomId: number, cookie: string, gzip = true): { url: string; headers: Record<string, string>; payload: string; token: string } {
  const token = `bench write ${nonce()}`
  const payload = [['message[body]', token], ['message[client_message_id]', nonce()]].map(([k, v]) => `${harnessUrlencode(k!)}=${harnessUrlencode(v!)}`).join('&')
  return {
    url: `/rooms/${roomId}/messages`,
    headers: {
      cookie,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml',
      'sec-fetch-site': 'same-origin',
      'accept-encoding': gzip ? 'gzip' : 'identity',
    },
    payload,
    token,
  }
}

// ---------------------------------------------------------------------------------------------
// The write audit (harness.md §2.3), read-only on the database file.

export interface Acknowledgement {
  id: unknown
  token: unknown
}

export interface AuditInput {
  roomId: number
  initialCount: number
  initialMaxId: number
  acknowledged: readonly Acknowledgement[]
  expected?: number
}

export function writeMark(db: BetterSqlite3.Database, roomId: number): { initialCount: number; initialMaxId: number } {
  return {
    initialCount: db.prepare('SELECT COUNT(*) FROM messages WHERE room_id=?').pluck().get(roomId) as number,
    initialMaxId: db.prepare('SELECT COALESCE(MAX(id), 0) FROM messages').pluck().get() as number,
  }
}

export function auditWrites(db: BetterSqlite3.Database, input: AuditInput): string[] {
  const { roomId, initialMaxId, acknowledged } = input
  const expected = input.expected ?? acknowledged.length
  const count = (sql: string, ...params: unknown[]) => db.prepare(sql).pluck().get(...params) as number
  const failures: string[] = []
  const persisted = count('SELECT COUNT(*) AS n FROM messages WHERE room_id=?', roomId) - input.initialCount
  if (persisted !== expected) failures.push(`acknowledged HTTP write count mismatch: ${persisted} new messages, ${expected} acknowledged`)
  const unindexed = count('SELECT COUNT(*) AS n FROM messages WHERE id NOT IN (SELECT rowid FROM message_search_index)')
  if (unindexed !== 0) failures.push(`FTS entry missing: ${unindexed} messages`)
  const bodiless = count(
    `SELECT COUNT(*) AS n FROM messages WHERE room_id=? AND id>? AND id NOT IN (SELECT record_id FROM active_storage_attachments WHERE record_type='Message')
     AND id NOT IN (SELECT record_id FROM action_text_rich_texts WHERE record_type='Message' AND name='body')`,
    roomId, initialMaxId,
  )
  if (bodiless !== 0) failures.push(`rich text entry missing: ${bodiless} messages`)
  const integrity = db.pragma('integrity_check') as { integrity_check: string }[]
  if (integrity.length !== 1 || integrity[0]!.integrity_check !== 'ok') failures.push(`fixture corrupt: ${integrity.map((r) => r.integrity_check).join('; ')}`)
  const richtextPosts = count(
    `SELECT COUNT(*) AS n FROM messages m JOIN action_text_rich_texts rt ON rt.record_type='Message' AND rt.record_id=m.id AND rt.name='body'
     WHERE m.room_id=? AND m.id>? AND rt.body LIKE '%bench write %'`,
    roomId, initialMaxId,
  )
  if (richtextPosts !== expected) failures.push(`acknowledged message body missing: ${richtextPosts} bodies, ${expected} acknowledged`)
  return [...failures, ...verifyAcknowledged(db, roomId, acknowledged, expected)]
}

// AcknowledgedWrites.verify
export function verifyAcknowledged(db: BetterSqlite3.Database, roomId: number, rows: readonly Acknowledgement[], expected: number): string[] {
  if (rows.length !== expected) return [`Wrong acknowledgement count: ${rows.length} rows, ${expected} expected`]
  const wellFormed = rows.every((row) => Number.isSafeInteger(row.id) && (row.id as number) > 0 && /^bench write [0-9a-f]+$/.test(String(row.token ?? '')))
  if (!wellFormed) return ['Invalid acknowledgement']
  if (new Set(rows.map((row) => row.id)).size !== rows.length) return ['A message was acknowledged more than once']
  if (new Set(rows.map((row) => row.token)).size !== rows.length) return ['Request bodies were not unique']
  const valid = db.prepare(
    `WITH acknowledged AS MATERIALIZED (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.token') AS token FROM json_each(?))
     SELECT COUNT(*) AS valid FROM acknowledged a CROSS JOIN messages m
     WHERE m.id=a.id AND m.room_id=?
       AND EXISTS(SELECT 1 FROM action_text_rich_texts rt WHERE rt.record_type='Message' AND rt.name='body' AND rt.record_id=m.id AND instr(rt.body,a.token)>0)
       AND EXISTS(SELECT 1 FROM message_search_index idx WHERE idx.rowid=m.id AND instr(idx.body,a.token)>0)`,
  ).pluck().get(JSON.stringify(rows), roomId) as number
  return valid === expected ? [] : [`${expected - valid} acknowledged messages lack their exact body or search entry`]
}

// The harness reason of a failure, without our detail.
export const reasonOf = (failure: string): string => failure.split(': ')[0]!
