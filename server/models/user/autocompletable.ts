import type { Connection } from '../database.ts'

export const AUTOCOMPLETE_PAGE_SIZE = 20

// SQLite refuses a LIKE pattern longer than this many bytes (SQLITE_MAX_LIKE_PATTERN_LENGTH)
// with "LIKE or GLOB pattern too complex". No name is that long (the person form takes 255
// characters), so a query whose pattern is longer matches no one.
export const MAX_LIKE_PATTERN_BYTES = 50_000

export interface AutocompletablePerson {
  id: number
  name: string
  updated_at: string
}

// LIKE matches its argument literally: %, _ and the escape character itself are escaped.
export function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

// The people offered for @-mentions and Pings: active users (optionally only the members of
// one room) whose name contains the query, ordered by lowercased name, a page at a time.
export function autocompletable(db: Connection) {
  const everyone = db.prepare<[string, number, number], AutocompletablePerson>(
    `SELECT id, name, updated_at FROM users WHERE status = 0 AND name LIKE ? ESCAPE '\\'
     ORDER BY lower(name), id LIMIT ? OFFSET ?`,
  )
  const countEveryone = db.prepare<[string], number>(`SELECT count(*) FROM users WHERE status = 0 AND name LIKE ? ESCAPE '\\'`).pluck()
  const members = db.prepare<[number, string, number, number], AutocompletablePerson>(
    `SELECT users.id, users.name, users.updated_at FROM memberships JOIN users ON users.id = memberships.user_id
     WHERE memberships.room_id = ? AND users.status = 0 AND users.name LIKE ? ESCAPE '\\'
     ORDER BY lower(users.name), users.id LIMIT ? OFFSET ?`,
  )
  const countMembers = db.prepare<[number, string], number>(
    `SELECT count(*) FROM memberships JOIN users ON users.id = memberships.user_id
     WHERE memberships.room_id = ? AND users.status = 0 AND users.name LIKE ? ESCAPE '\\'`,
  ).pluck()

  return {
    // page is 1-based; roomId null means everyone.
    page(roomId: number | null, query: string, page: number, size = AUTOCOMPLETE_PAGE_SIZE): { people: AutocompletablePerson[]; total: number } {
      const pattern = likeContaining(query)
      if (Buffer.byteLength(pattern) > MAX_LIKE_PATTERN_BYTES) return { people: [], total: 0 }
      const offset = (page - 1) * size
      if (roomId === null) return { people: everyone.all(pattern, size, offset), total: countEveryone.get(pattern) ?? 0 }
      return { people: members.all(roomId, pattern, size, offset), total: countMembers.get(roomId, pattern) ?? 0 }
    },
  }
}
