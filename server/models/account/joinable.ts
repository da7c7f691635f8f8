import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'
import { joinCode } from '../../lib/tokens.ts'

// Account::Joinable: the code in the account's join link (/join/<code>). A new code makes
// every earlier link answer 404; the account's update moves the 'account' cache version, so
// every cached page that shows the link is rebuilt.
export function joinable(db: Connection) {
  const reset = db.prepare('UPDATE accounts SET join_code = ?, updated_at = ? WHERE id = ?')

  return {
    resetJoinCode(accountId: number): string {
      const code = joinCode()
      reset.run(code, dbTime(), accountId)
      return code
    },
  }
}
