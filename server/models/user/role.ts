import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'
import { isAdministrator, ROLES, type UserRow } from '../user.ts'

// can_administer?: administrators, the record's creator, and anyone for a record not yet made.
export function canAdminister(user: Pick<UserRow, 'id' | 'role'>, record: { creator_id: number } | null): boolean {
  return isAdministrator(user) || record === null || record.creator_id === user.id
}

export type PersonRole = 'member' | 'administrator'

// The role a form asks for: "administrator", else member (as upstream, any other value).
export function personRole(value: string | undefined): PersonRole {
  return value === 'administrator' ? 'administrator' : 'member'
}

// Granting and revoking administration, for active people only (never bots).
export function roles(db: Connection) {
  const change = db.prepare('UPDATE users SET role = ?, updated_at = ? WHERE id = ? AND status = 0 AND role != 2')

  return {
    change(userId: number, role: PersonRole): boolean {
      return change.run(ROLES[role], dbTime(), userId).changes > 0
    },
  }
}
