import type { Connection } from './database.ts'
import { dbTime, parseDbTime } from '../lib/time.ts'
import { secureToken } from '../lib/tokens.ts'
import { STATUSES, userColumns, userFrom, type UserRow } from './user.ts'

export interface SessionRow {
  id: number
  user_id: number
  token: string
  last_active_at: string
}

const REFRESH_AFTER_MS = 60 * 60 * 1000

// Activity is recorded at most once an hour, as upstream does.
export function needsRefresh(session: Pick<SessionRow, 'last_active_at'>, nowMs = Date.now()): boolean {
  const last = parseDbTime(session.last_active_at)
  return last === null || nowMs - last > REFRESH_AFTER_MS
}

export function sessions(db: Connection) {
  const insert = db.prepare(
    'INSERT INTO sessions (user_id, token, ip_address, user_agent, last_active_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  )
  const findByToken = db.prepare<[string], SessionRow>('SELECT id, user_id, token, last_active_at FROM sessions WHERE token = ?')
  // The session and its person in one statement, which reads one snapshot without a transaction.
  const findSignedIn = db.prepare<[string], Record<string, unknown>>(
    `SELECT sessions.id, sessions.user_id, sessions.token, sessions.last_active_at, ${userColumns('users', 'user_')}
     FROM sessions JOIN users ON users.id = sessions.user_id WHERE sessions.token = +? AND users.status = ${STATUSES.active}`,
  )
  const touch = db.prepare('UPDATE sessions SET last_active_at = ?, ip_address = ?, user_agent = ?, updated_at = ? WHERE id = ?')
  const destroyByToken = db.prepare('DELETE FROM sessions WHERE token = ?')
  const destroyAllOf = db.prepare('DELETE FROM sessions WHERE user_id = ?')

  return {
    start(userId: number, ipAddress: string | null, userAgent: string | null): string {
      const token = secureToken()
      const now = dbTime()
      insert.run(userId, token, ipAddress, truncate(userAgent), now, now, now)
      return token
    },

    findByToken: (token: string): SessionRow | undefined => findByToken.get(token),

    // The session with this token, if its person is active.
    findSignedIn(token: string): { session: SessionRow; user: UserRow } | undefined {
      const row = findSignedIn.get(token)
      if (row === undefined) return undefined
      const session = { id: row.id, user_id: row.user_id, token: row.token, last_active_at: row.last_active_at } as SessionRow
      return { session, user: userFrom(row, 'user_') }
    },

    refresh(sessionId: number, ipAddress: string | null, userAgent: string | null): void {
      const now = dbTime()
      touch.run(now, ipAddress, truncate(userAgent), now, sessionId)
    },

    end(token: string): void {
      destroyByToken.run(token)
    },

    // Signs the person out everywhere; returns how many sessions there were.
    endAllOf(userId: number): number {
      return destroyAllOf.run(userId).changes
    },
  }
}

function truncate(value: string | null): string | null {
  return value === null ? null : value.slice(0, 512)
}
