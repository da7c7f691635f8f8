import type { Models } from '../index.ts'
import { EmailTaken } from '../user.ts'

// A person who joins with the invite code becomes a member of every open room.
export function joinAccount(models: Models, input: { name: string; emailAddress: string; passwordDigest: string | null }): number {
  let userId: number
  try {
    userId = models.users.create(input)
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new EmailTaken()
    throw error
  }
  models.memberships.grantOpenRoomsTo(userId)
  return userId
}
