import type { Models } from '../index.ts'
import { EmailTaken, normalizeEmail } from '../user.ts'
import type { EmailRefusal } from './email-standing.ts'

// The address was someone's who was deactivated or banned, or looks like someone's here.
export class EmailRefused extends Error {
  constructor(readonly reason: EmailRefusal) {
    super(`email refused: ${reason}`)
  }
}

// A person who joins with the invite code becomes a member of every open room. Throws
// EmailTaken when an active person has the address, EmailRefused when it may not join.
export function joinAccount(models: Models, input: { name: string; emailAddress: string; passwordDigest: string | null }): number {
  const refusal = models.emailStanding.refusal(normalizeEmail(input.emailAddress))
  if (refusal) throw new EmailRefused(refusal)
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
