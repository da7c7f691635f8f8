import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'

export const RECENT_SEARCHES_LIMIT = 10

export interface SearchRow {
  id: number
  user_id: number
  query: string
  created_at: string
  updated_at: string
}

const COLUMNS = 'id, user_id, query, created_at, updated_at'

// A person's recent searches: the newest ten queries, each kept once. Searching again for the
// same query moves it to the front (updated_at is touched) instead of adding a row.
export function searches(db: Connection) {
  const recent = db.prepare<[number, number], SearchRow>(
    `SELECT ${COLUMNS} FROM searches WHERE user_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?`,
  )
  const find = db.prepare<[number, string], number>('SELECT id FROM searches WHERE user_id = ? AND query = ? ORDER BY id LIMIT 1').pluck()
  const touch = db.prepare('UPDATE searches SET updated_at = ? WHERE id = ?')
  const insert = db.prepare('INSERT INTO searches (user_id, query, created_at, updated_at) VALUES (?, ?, ?, ?)')
  const trim = db.prepare(
    `DELETE FROM searches WHERE user_id = ? AND id NOT IN
       (SELECT id FROM searches WHERE user_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?)`,
  )
  const clear = db.prepare('DELETE FROM searches WHERE user_id = ?')

  return {
    // Newest first.
    recent: (userId: number, limit = RECENT_SEARCHES_LIMIT): SearchRow[] => recent.all(userId, limit),

    // Writer only: touch an identical query or insert it, then drop all but the newest ten.
    record(userId: number, query: string): void {
      const now = dbTime()
      const id = find.get(userId, query)
      if (id === undefined) insert.run(userId, query, now, now)
      else touch.run(now, id)
      trim.run(userId, userId, RECENT_SEARCHES_LIMIT)
    },

    // Writer only.
    clear(userId: number): number {
      return clear.run(userId).changes
    },
  }
}
