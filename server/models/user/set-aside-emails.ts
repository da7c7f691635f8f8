import type { Connection } from '../database.ts'
import { normalizeEmail } from '../user.ts'

// The emails of people who were let go: a banned person keeps theirs, and a deactivated person's
// is set aside as "name-deactivated-<uuid>@domain" (deactivatable.ts). Such an email never makes
// a new member by itself; only an administrator brings its person back.
export function setAsideEmails(db: Connection) {
  const banned = db.prepare<[string], number>('SELECT id FROM users WHERE status = 2 AND email_address = ? COLLATE NOCASE ORDER BY id LIMIT 1').pluck()
  const deactivated = db.prepare<[string], number>("SELECT id FROM users WHERE status = 1 AND email_address LIKE ? ESCAPE '\\' ORDER BY id DESC LIMIT 1").pluck()

  return {
    // The banned or deactivated person whose email this was, if any.
    holderOf(email: string): number | undefined {
      const address = normalizeEmail(email)
      const at = address.lastIndexOf('@')
      if (at < 1) return undefined
      const like = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`)
      const pattern = `${like(address.slice(0, at))}-deactivated-${'_'.repeat(36)}@${like(address.slice(at + 1))}`
      return banned.get(address) ?? deactivated.get(pattern)
    },
  }
}
