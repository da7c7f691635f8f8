import type { Connection } from './database.ts'

// The trigger-maintained versions (migrations/003-cache-versions.sql) that cached pages are
// validated against, each one cheap indexed read inside the request's read transaction.
export function cacheVersions(db: Connection) {
  const sidebar = db.prepare<[number], string>(
    `SELECT users.sidebar_version || '.' || people.value || '.' || account.value FROM users
     JOIN campfire_cache_versions people ON people.name = 'people'
     JOIN campfire_cache_versions account ON account.name = 'account'
     WHERE users.id = ?`,
  ).pluck()
  const reachableRooms = db.prepare<[number], string>(
    `SELECT coalesce(max(rooms.content_version), 0) || '.' || count(*) FROM memberships JOIN rooms ON rooms.id = memberships.room_id
     WHERE memberships.user_id = +?`,
  ).pluck()
  const presentationVersions = db.prepare<[string], { id: number; presentation_version: number }>(
    'SELECT id, presentation_version FROM messages WHERE id IN (SELECT value FROM json_each(?))',
  )

  return {
    // Moves with any commit by any connection (the naive baseline; the reader never writes).
    commit: (): string => `c${db.pragma('data_version', { simple: true }) as number}`,

    // A person's sidebar: their memberships and rooms, people, and the account.
    sidebar: (userId: number): string => `s${sidebar.get(userId) ?? '0'}`,

    // Everything a search can find for a person: the messages of every room they are in, plus
    // their sidebar version (it moves when they join or leave a room).
    search: (userId: number): string => `r${reachableRooms.get(userId) ?? '0'}.${sidebar.get(userId) ?? '0'}`,

    presentationVersions(ids: number[]): Map<number, number> {
      if (ids.length === 0) return new Map()
      return new Map(presentationVersions.all(JSON.stringify(ids)).map((row) => [row.id, row.presentation_version]))
    },
  }
}

export type CacheVersions = ReturnType<typeof cacheVersions>
