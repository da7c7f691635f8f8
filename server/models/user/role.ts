import { isAdministrator, type UserRow } from '../user.ts'

// can_administer?: administrators, the record's creator, and anyone for a record not yet made.
export function canAdminister(user: Pick<UserRow, 'id' | 'role'>, record: { creator_id: number } | null): boolean {
  return isAdministrator(user) || record === null || record.creator_id === user.id
}
