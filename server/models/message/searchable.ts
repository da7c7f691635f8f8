import type { Connection } from '../database.ts'
import type { MessageRow } from '../message.ts'

export const SEARCH_RESULTS_LIMIT = 100

// The first, bounded look at the index reads this many of the newest matches; each later
// window reads WINDOW_GROWTH times more.
export const PROBE_SIZE = 1000
const WINDOW_GROWTH = 4
// When the probe does not fill the page and the person can reach fewer messages than this
// (below the probe), a second walk over those messages races the index walk.
const ACCESSIBLE_CAP = 32_768
// A query is an implicit AND of its words; beyond this many distinct words the rest are ignored.
const MAX_TERMS = 64
const NO_BOUND = Number.MAX_SAFE_INTEGER

const COLUMNS = 'id, room_id, creator_id, client_message_id, created_at, updated_at, presentation_version'
const NON_WORD = /[^\p{L}\p{M}\p{Nd}\p{Pc}]/gu
const INDEXABLE = /[\p{L}\p{N}]/u

// Upstream's sanitiser: every character that is not a [[:word:]] character becomes a space.
export function sanitizeQuery(query: string): string {
  return query.replace(NON_WORD, ' ')
}

// The FTS5 expression for a query: every word quoted, so AND, OR, NOT, NEAR, *, ^ and column
// filters are plain words, joined by spaces (FTS5's implicit AND, with porter stemming).
// Words the tokenizer would reduce to nothing are dropped, since an empty phrase matches
// nothing. Null when no word is left.
export function ftsQuery(query: string): string | null {
  const terms = new Set<string>()
  for (const term of sanitizeQuery(query).split(/\s+/)) {
    if (term === '' || !INDEXABLE.test(term)) continue
    terms.add(`"${term.replaceAll('"', '""')}"`)
    if (terms.size === MAX_TERMS) break
  }
  return terms.size === 0 ? null : [...terms].join(' ')
}

// Message search: the newest `limit` matches by id among the messages of the rooms a person
// has a membership in (whatever its involvement). It never sorts all matches:
//
// - The index walk reads matches newest first straight off the FTS index (ORDER BY rowid DESC
//   is the index's own order), in windows: the probe is the newest PROBE_SIZE matches, each
//   later window WINDOW_GROWTH times larger. Within a window the matches are checked against
//   the person's rooms, either by joining each to its message (primary key) or, when the window
//   spans few messages, by a set of the accessible message ids in that span (room_id index).
//   Each window stops as soon as the page is full.
// - When the probe leaves the page short and the person can reach only a few messages below
//   it, a membership-scoped walk races the index walk: it reads the accessible messages newest
//   first off the room_id index and looks each one up in the index by rowid. The two alternate,
//   the one that has used less time going next, and whichever finishes first answers; both
//   are exact, so the result is the same and the cost is about twice the cheaper one.
export interface SearchableOptions {
  probeSize?: number
  accessibleCap?: number
}

// How often each path answered (for tests and diagnostics).
export interface SearchPaths {
  probe: number
  nothingReachableBelow: number
  longIndexWalk: number
  raceWonByMembership: number
  raceWonByIndex: number
}

export function searchable(db: Connection, options: SearchableOptions = {}) {
  const probeSize = options.probeSize ?? PROBE_SIZE
  const accessibleCap = options.accessibleCap ?? ACCESSIBLE_CAP
  const paths: SearchPaths = { probe: 0, nothingReachableBelow: 0, longIndexWalk: 0, raceWonByMembership: 0, raceWonByIndex: 0 }
  // `+?` on the membership reads: the note on stable plans in database.ts.
  const roomIds = db.prepare<[number], number>('SELECT room_id FROM memberships WHERE user_id = +? ORDER BY room_id').pluck()

  // The extent of the next window: how many matches it holds and the lowest rowid among them.
  // A rowid bound as a JS number is a REAL; FTS5 is given integers throughout.
  const window = db.prepare<[string, number, number], { size: number; floor: number | null }>(
    `SELECT count(*) AS size, min(id) AS floor FROM (SELECT rowid AS id FROM message_search_index
     WHERE message_search_index MATCH ? AND rowid < CAST(? AS INTEGER) ORDER BY rowid DESC LIMIT ?)`,
  )
  const windowJoined = db.prepare<[string, number, number, string, number], number>(
    `SELECT f.rowid FROM message_search_index AS f CROSS JOIN messages AS m ON m.id = f.rowid
     WHERE f.message_search_index MATCH ? AND f.rowid < CAST(? AS INTEGER) AND f.rowid >= CAST(? AS INTEGER)
       AND m.room_id IN (SELECT value FROM json_each(?))
     ORDER BY f.rowid DESC LIMIT ?`,
  ).pluck()
  const windowWithinSet = db.prepare<[string, number, number, string, number, number, number], number>(
    `SELECT rowid FROM message_search_index
     WHERE message_search_index MATCH ? AND rowid < CAST(? AS INTEGER) AND rowid >= CAST(? AS INTEGER)
       AND +rowid IN (SELECT id FROM messages INDEXED BY index_messages_on_room_id
                      WHERE room_id IN (SELECT value FROM json_each(?)) AND id < ? AND id >= ?)
     ORDER BY rowid DESC LIMIT ?`,
  ).pluck()

  const countAccessible = db.prepare<[string, number, number], number>(
    `SELECT count(*) FROM (SELECT 1 FROM messages INDEXED BY index_messages_on_room_id
     WHERE room_id IN (SELECT value FROM json_each(?)) AND id < ? LIMIT ?)`,
  ).pluck()
  const accessibleIds = db.prepare<[string, number, number], number>(
    `SELECT id FROM messages INDEXED BY index_messages_on_room_id
     WHERE room_id IN (SELECT value FROM json_each(?)) AND id < ? ORDER BY id DESC LIMIT ?`,
  ).pluck()
  const matchesRowid = db.prepare<[string, number], number>(
    'SELECT 1 FROM message_search_index WHERE message_search_index MATCH ? AND rowid = CAST(? AS INTEGER)',
  ).pluck()

  // Hydration rechecks the membership of every row it returns.
  const hydrate = db.prepare<[string, number], MessageRow>(
    `SELECT ${COLUMNS} FROM messages
     WHERE id IN (SELECT value FROM json_each(?)) AND room_id IN (SELECT room_id FROM memberships WHERE user_id = +?)
     ORDER BY id`,
  )

  // Walks the index newest first, one window per step, each window checked against the rooms.
  function indexWalk(match: string, rooms: string, need: number) {
    const walk = { hits: [] as number[], done: false, cursor: NO_BOUND, fewReachable: false, step }
    let size = probeSize
    function step(): void {
      const extent = window.get(match, walk.cursor, size)
      if (!extent || extent.size === 0 || extent.floor === null) {
        walk.done = true
        return
      }
      const { cursor } = walk
      const wanted = need - walk.hits.length
      // The matches are checked against the set of accessible ids in the window's span when
      // that set is small: the person reaches few messages, or the window spans few messages.
      const found =
        cursor !== NO_BOUND && (walk.fewReachable || cursor - extent.floor <= 16 * extent.size)
          ? windowWithinSet.all(match, cursor, extent.floor, rooms, cursor, extent.floor, wanted)
          : windowJoined.all(match, cursor, extent.floor, rooms, wanted)
      walk.hits.push(...found)
      walk.done = walk.hits.length >= need || extent.size < size
      walk.cursor = extent.floor
      size *= WINDOW_GROWTH
    }
    return walk
  }

  // Walks the accessible messages newest first from `below` down, looking each one up in the index.
  function membershipWalk(match: string, rooms: string, need: number, below: number) {
    const walk = { hits: [] as number[], done: false, step }
    let cursor = below
    let size = 16
    function step(): void {
      const ids = accessibleIds.all(rooms, cursor, size)
      for (const id of ids) {
        if (matchesRowid.get(match, id) === undefined) continue
        walk.hits.push(id)
        if (walk.hits.length >= need) break
      }
      walk.done = walk.hits.length >= need || ids.length < size
      cursor = ids[ids.length - 1] ?? cursor
      size *= 2
    }
    return walk
  }

  function newestMatchIds(userId: number, match: string, limit: number): number[] {
    const rooms = JSON.stringify(roomIds.all(userId))
    if (rooms === '[]') return []
    const index = indexWalk(match, rooms, limit)
    index.step() // the bounded probe
    if (index.done) {
      paths.probe++
      return index.hits
    }

    const floor = index.cursor
    const reachable = countAccessible.get(rooms, floor, accessibleCap) ?? 0
    if (reachable === 0) {
      paths.nothingReachableBelow++
      return index.hits
    }
    // Many reachable messages: finish with one walk down the rest of the index, which stops
    // as soon as the page is full.
    if (reachable >= accessibleCap) {
      paths.longIndexWalk++
      return index.hits.concat(windowJoined.all(match, floor, 0, rooms, limit - index.hits.length))
    }
    index.fewReachable = true
    const above = index.hits.slice()
    const members = membershipWalk(match, rooms, limit - above.length, floor)
    let indexTime = 0
    let membersTime = 0
    for (;;) {
      const started = performance.now()
      if (membersTime <= indexTime) {
        members.step()
        membersTime += performance.now() - started
        if (members.done) {
          paths.raceWonByMembership++
          return above.concat(members.hits)
        }
      } else {
        index.step()
        indexTime += performance.now() - started
        if (index.done) {
          paths.raceWonByIndex++
          return index.hits
        }
      }
    }
  }

  return {
    paths,

    // The newest `limit` messages by id that match the query and sit in a room the person has
    // a membership in, oldest first. Any query string is safe; an empty one finds nothing.
    reachableMatches(userId: number, query: string | null | undefined, limit = SEARCH_RESULTS_LIMIT): MessageRow[] {
      const match = ftsQuery(query ?? '')
      if (match === null || limit <= 0) return []
      const ids = newestMatchIds(userId, match, limit)
      return ids.length === 0 ? [] : hydrate.all(JSON.stringify(ids), userId)
    },
  }
}
