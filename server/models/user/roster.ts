import type { Connection } from '../database.ts'
import { STATUSES } from '../user.ts'

export const ROSTER_PAGE_SIZE = 500

export interface RosterPerson {
  id: number
  name: string
  bio: string | null
  role: number
  status: number
  updated_at: string
  // Never signed up: brought in by an import, with no password (1), so a claim link can be made.
  unclaimed: number
}

export interface RosterPage {
  people: RosterPerson[]
  number: number
  // Where on the whole list this page starts, and how many administrators head that list: the
  // separator between administrators and members goes before item `administrators`.
  offset: number
  administrators: number
  last: boolean
}

// The account's people (not its bots), administrators first, then by name, a page at a time.
// Administrators also see banned people, greyed out; everyone else only active ones.
export function roster(db: Connection) {
  const people = db.prepare<[string, number, number], RosterPerson>(
    `SELECT id, name, bio, role, status, updated_at, password_digest IS NULL AS unclaimed FROM users
     WHERE role != 2 AND status IN (SELECT value FROM json_each(?))
     ORDER BY role = 1 DESC, LOWER(name), id LIMIT ? OFFSET ?`,
  )
  const counts = db.prepare<[string], { total: number; administrators: number }>(
    `SELECT count(*) AS total, coalesce(sum(role = 1), 0) AS administrators FROM users
     WHERE role != 2 AND status IN (SELECT value FROM json_each(?))`,
  )

  return {
    page(number: number, options: { withBanned: boolean }, size = ROSTER_PAGE_SIZE): RosterPage {
      const statuses = JSON.stringify(options.withBanned ? [STATUSES.active, STATUSES.banned] : [STATUSES.active])
      const offset = (number - 1) * size
      const { total, administrators } = counts.get(statuses)!
      return { people: people.all(statuses, size, offset), number, offset, administrators, last: offset + size >= total }
    },
  }
}
