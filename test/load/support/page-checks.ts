// The users profile's response checks (performance.md §1): the page is for the right person,
// every message on it belongs to that room (or, for search, to one of the person's rooms), the
// sidebar lists exactly the person's rooms, and the newest acknowledged post is present.
// Pages are scanned as bytes (Buffer.indexOf), never parsed: the generator must stay cheap.
// What a message id belongs to comes from the fixture's database and from the generator's own
// acknowledged posts; an id known to neither is returned as `unknown`, to be looked up at the end.
export interface PageFacts {
  userId: number | null
  messageIds: number[]
  roomIds: number[]
  streams: { channel: string; signed: string }[]
  document: boolean
}

const USER = Buffer.from('<meta name="current-user-id" content="')
const MESSAGE = Buffer.from(' data-message-id="')
const ROOM = Buffer.from(' data-room-id="')
const STREAM = Buffer.from('<turbo-cable-stream-source channel="')
const SIGNED = Buffer.from('" signed-stream-name="')
const DOCTYPE = /^\s*<!doctype html>/i

function numbersAfter(body: Buffer, marker: Buffer): number[] {
  const out: number[] = []
  for (let at = body.indexOf(marker); at >= 0; at = body.indexOf(marker, at + 1)) {
    let i = at + marker.length
    let n = 0
    const from = i
    while (i < body.length && body[i]! >= 48 && body[i]! <= 57 && i - from < 16) n = n * 10 + (body[i++]! - 48)
    if (i > from && body[i] === 0x22) out.push(n)
  }
  return out
}

function unescapeHtml(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#x27;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
}

// Each kind of page is only scanned for what its checks read: a room page has no room list to
// look for, a history fragment no stream sources.
const SCANS: Record<PageKind | 'all', { rooms: boolean; streams: boolean; messages: boolean }> = {
  room: { rooms: false, streams: true, messages: true },
  messages: { rooms: false, streams: false, messages: true },
  sidebar: { rooms: true, streams: true, messages: false },
  search: { rooms: false, streams: false, messages: true },
  all: { rooms: true, streams: true, messages: true },
}

export function scanPage(body: Buffer, kind: PageKind | 'all' = 'all'): PageFacts {
  const scan = SCANS[kind]
  const user = numbersAfter(body.subarray(0, Math.min(body.length, 8192)), USER)
  const streams: PageFacts['streams'] = []
  for (let at = scan.streams ? body.indexOf(STREAM) : -1; at >= 0; at = body.indexOf(STREAM, at + 1)) {
    const channelStart = at + STREAM.length
    const channelEnd = body.indexOf(0x22, channelStart)
    if (channelEnd < 0 || body.indexOf(SIGNED, channelEnd) !== channelEnd) continue
    const signedStart = channelEnd + SIGNED.length
    const signedEnd = body.indexOf(0x22, signedStart)
    if (signedEnd < 0) continue
    streams.push({ channel: unescapeHtml(body.toString('utf8', channelStart, channelEnd)), signed: unescapeHtml(body.toString('utf8', signedStart, signedEnd)) })
  }
  return {
    userId: user[0] ?? null,
    messageIds: scan.messages ? numbersAfter(body, MESSAGE) : [],
    roomIds: scan.rooms ? [...new Set(numbersAfter(body, ROOM))] : [],
    streams,
    document: DOCTYPE.test(body.toString('latin1', 0, 64)) && body.lastIndexOf('</html>') >= body.length - 64,
  }
}

export interface Knowledge {
  roomOfMessage(id: number): number | undefined
  roomsOf(userId: number): ReadonlySet<number>
}

export interface Verdict {
  failures: string[]
  unknown: number[]
  facts: PageFacts
  // A room page without the newest acknowledged post, every message on it newer: posts written
  // after it pushed it off the page (not a failure; counted).
  pushedOff: boolean
}

// Upstream's Message::PAGE_SIZE: a room page shows the room's newest 40 messages.
export const ROOM_PAGE_SIZE = 40

export type PageKind = 'room' | 'messages' | 'sidebar' | 'search'

export interface Expectation {
  kind: PageKind
  userId: number
  roomId?: number
  // The newest post into that room acknowledged before the request was sent (the highest id:
  // answers can be handled out of order, NewestAcknowledged).
  newestAcknowledged?: number
}

// Failure reasons are fixed strings, then ": " and the detail.
export function checkPage(body: Buffer, expect: Expectation, knowledge: Knowledge): Verdict {
  const facts = scanPage(body, expect.kind)
  const failures: string[] = []
  const unknown: number[] = []
  let pushedOff = false
  if (expect.kind !== 'messages') {
    if (!facts.document) failures.push('not a whole HTML document')
    if (facts.userId !== expect.userId) failures.push(`page for the wrong person: current-user-id ${facts.userId ?? 'missing'}, expected ${expect.userId}`)
  }
  const rooms = knowledge.roomsOf(expect.userId)
  if (expect.kind === 'room' || expect.kind === 'messages') {
    for (const id of facts.messageIds) {
      const room = knowledge.roomOfMessage(id)
      if (room === undefined) unknown.push(id)
      else if (room !== expect.roomId) failures.push(`message from another room: ${id} is in room ${room}, page is room ${expect.roomId}`)
    }
  }
  if (expect.kind === 'room') {
    if (facts.messageIds.length === 0) failures.push(`room page without messages: room ${expect.roomId}`)
    // A room page shows the room's newest page of messages, so in a busy room the posts written
    // between the acknowledgement and the server's read can push the acknowledged one off it.
    // Ids only grow (nothing is deleted), so a full page whose every message is newer was read
    // after that post was written; one showing an older message and not the post is stale, and
    // so is a short page without it.
    const acknowledged = expect.newestAcknowledged
    if (acknowledged !== undefined && !facts.messageIds.includes(acknowledged)) {
      if (facts.messageIds.some((id) => id < acknowledged)) failures.push(`newest acknowledged post missing: ${acknowledged} in room ${expect.roomId}`)
      else if (facts.messageIds.length >= ROOM_PAGE_SIZE) pushedOff = true
      else failures.push(`newest acknowledged post missing: ${acknowledged} in room ${expect.roomId} (a page of ${facts.messageIds.length}, all newer)`)
    }
    if (!facts.streams.some((s) => s.channel === 'RoomMessagesChannel')) failures.push('room page without a RoomMessagesChannel stream')
  }
  if (expect.kind === 'search') {
    for (const id of facts.messageIds) {
      const room = knowledge.roomOfMessage(id)
      if (room === undefined) unknown.push(id)
      else if (!rooms.has(room)) failures.push(`search found a message from a room the person is not in: ${id} in room ${room}`)
    }
  }
  if (expect.kind === 'sidebar') {
    const listed = new Set(facts.roomIds)
    const foreign = facts.roomIds.filter((id) => !rooms.has(id))
    if (foreign.length > 0) failures.push(`sidebar lists rooms the person is not in: ${foreign.slice(0, 5).join(', ')}`)
    const missing = [...rooms].filter((id) => !listed.has(id))
    if (missing.length > 0) failures.push(`sidebar misses the person's rooms: ${missing.slice(0, 5).join(', ')}`)
  }
  return { failures, unknown, facts, pushedOff }
}

// The newest acknowledged post of each room: the highest id answered so far. Answers to posts
// sent at about the same time are handled in any order; an older one handled last must not
// replace a newer one, which a busy room may already have pushed off its page.
export class NewestAcknowledged {
  private readonly newest = new Map<number, number>()

  acknowledge(room: number, id: number): void {
    if (id > (this.newest.get(room) ?? 0)) this.newest.set(room, id)
  }

  get(room: number): number | undefined {
    return this.newest.get(room)
  }
}

// A post's answer (harness.md §2.2 and §3.2): a turbo-stream with the text and one message id.
export function checkPost(status: number, contentType: string | undefined, body: string, text: string): { failure: string | null; id: number | null } {
  if (status !== 200) return { failure: `post answered ${status}`, id: null }
  const type = String(contentType ?? '').split(';')[0]!.trim()
  if (type !== 'text/vnd.turbo-stream.html') return { failure: `post content type ${type}`, id: null }
  if (!body.startsWith('<turbo-stream') || !body.trimEnd().endsWith('</turbo-stream>')) return { failure: 'post answer is not a turbo-stream', id: null }
  if (!body.includes('<template>') || !body.includes('</template>')) return { failure: 'post answer has no <template>', id: null }
  if (!body.includes(text)) return { failure: 'post answer lacks the posted text', id: null }
  const ids = [...body.matchAll(/data-message-id="(\d+)"/g)].map((m) => Number(m[1]))
  if (ids.length !== 1 || !(ids[0]! > 0)) return { failure: `post answer has ${ids.length} message ids`, id: null }
  return { failure: null, id: ids[0]! }
}

// The reason without its detail: how failures are counted.
export const reasonOf = (failure: string): string => failure.split(': ')[0]!
