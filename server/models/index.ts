import type { Connection } from './database.ts'
import { accounts } from './account.ts'
import { bans } from './ban.ts'
import { memberships } from './membership.ts'
import { rooms } from './room.ts'
import { sessions } from './session.ts'
import { users } from './user.ts'

// Every model prepares its statements once per connection: the store builds one set for the
// reader and one for the writer.
export function createModels(db: Connection) {
  return {
    db,
    accounts: accounts(db),
    bans: bans(db),
    memberships: memberships(db),
    rooms: rooms(db),
    sessions: sessions(db),
    users: users(db),
  }
}

export type Models = ReturnType<typeof createModels>
