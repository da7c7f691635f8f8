import { randomBytes } from 'node:crypto'
import { deflatePart, gzipOf, identityOf, ownBytes, type Part } from './gzip.ts'

// A cached sidebar leaves each room's unread mark open: where the tile's class would say
// " unread", it holds a slot naming the room, and every request fills the slots from the
// person's memberships as they are now. Unread state changes with every post and every visit;
// everything else in a sidebar changes rarely, so the rest stays cached.

// The slot carries a nonce made at boot, so no text the page shows unescaped (an account's custom
// styles) can pass for one.
const NONCE = randomBytes(9).toString('hex')
const SLOT = new RegExp(`<!--campfire:unread:${NONCE}:(\\d+)-->`, 'g')
const UNREAD = ' unread'
const UNREAD_PART = deflatePart(Buffer.from(UNREAD, 'utf8'))

export function unreadSlot(roomId: number): string {
  return `<!--campfire:unread:${NONCE}:${roomId}-->`
}

// The class text of a tile: ` unread`, nothing, or (rendering for the cache) its slot.
export function unreadClass(unread: boolean | 'slot', roomId: number): string {
  return unread === 'slot' ? unreadSlot(roomId) : unread ? UNREAD : ''
}

// The page cut at its slots: segments[i] comes before the slot of rooms[i].
export interface SlottedText {
  segments: string[]
  rooms: number[]
}

export function cutAtSlots(html: string): SlottedText {
  const segments: string[] = []
  const rooms: number[] = []
  let from = 0
  for (const match of html.matchAll(SLOT)) {
    segments.push(html.slice(from, match.index))
    rooms.push(Number(match[1]))
    from = match.index + match[0].length
  }
  segments.push(html.slice(from))
  return { segments, rooms }
}

// A cached page with slots: each segment compressed on its own, once. The gzip of the last
// few ways its slots were filled is kept with it: a person's unread set changes far less often
// than they load their sidebar.
export interface SlottedPage {
  segments: Part[]
  rooms: number[]
  filled?: Map<string, Buffer>
}

const FILLINGS_KEPT = 2

// The page's parts in order, with " unread" in the slot of each unread room.
function filledParts(page: SlottedPage, unread: ReadonlySet<number>): Part[] {
  const parts: Part[] = []
  page.segments.forEach((segment, i) => {
    parts.push(segment)
    if (i < page.rooms.length && unread.has(page.rooms[i]!)) parts.push(UNREAD_PART)
  })
  return parts
}

export function filledIdentity(page: SlottedPage, unread: ReadonlySet<number>): Buffer {
  return Buffer.concat(filledParts(page, unread).map(identityOf))
}

export function filledGzip(page: SlottedPage, unread: ReadonlySet<number>): Buffer {
  const key = page.rooms.map((room) => (unread.has(room) ? '1' : '0')).join('')
  const known = page.filled?.get(key)
  if (known) return known
  const gzip = ownBytes(gzipOf(filledParts(page, unread)))
  page.filled ??= new Map()
  if (page.filled.size >= FILLINGS_KEPT) page.filled.delete(page.filled.keys().next().value!)
  page.filled.set(key, gzip)
  return gzip
}
