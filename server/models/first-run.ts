import type { Models } from './index.ts'
import { ROLES } from './user.ts'
import { ROOM_TYPES } from './room.ts'

export interface FirstRunInput {
  name: string
  emailAddress: string
  passwordDigest: string
}

export class AccountAlreadyExists extends Error {}

// Creates the account, the administrator and the open room "All Talk", all or nothing.
// The unique singleton_guard index stops a second, concurrent first run.
export function firstRun(models: Models, input: FirstRunInput): { userId: number; roomId: number } {
  if (models.accounts.first()) throw new AccountAlreadyExists()
  try {
    models.accounts.create('Campfire')
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new AccountAlreadyExists()
    throw error
  }
  const userId = models.users.create({ ...input, role: ROLES.administrator })
  const roomId = models.rooms.create('All Talk', ROOM_TYPES.open, userId)
  models.memberships.grantToActiveUsers(roomId)
  return { userId, roomId }
}
