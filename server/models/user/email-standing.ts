import type { Connection } from '../database.ts'
import { normalizeEmail, STATUSES } from '../user.ts'

// Why an email address may not bring a new person in, by any door (the join link, single
// sign-on): `inactive`, someone deactivated or banned had it (only an administrator brings them
// back); `lookalike`, it has letters outside ASCII and Unicode folding makes it someone's here
// ("\u212Aevin@…", with the Kelvin sign, for kevin@…). Addresses are otherwise compared by their
// ASCII letters' case only, as SQLite's NOCASE does.
export type EmailRefusal = 'inactive' | 'lookalike'

// Deactivation sets an address aside as <local>-deactivated-<uuid>@<domain> (deactivatable.ts).
const SET_ASIDE = /-deactivated-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}@/gi

// What an address was before deactivation set it aside (itself when it was not).
export function originalEmail(stored: string): string {
  return stored.replace(SET_ASIDE, '@')
}

// Unicode's compatibility forms and case folded together: what a reader would take for the same.
export function foldedEmail(email: string): string {
  return email.normalize('NFKC').toLowerCase().normalize('NFKC')
}

const isAscii = (text: string): boolean => /^[\x00-\x7f]*$/.test(text)
const likePattern = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`)

export function emailStanding(db: Connection) {
  const holder = db.prepare<[string], { id: number; status: number }>('SELECT id, status FROM users WHERE email_address = ? COLLATE NOCASE ORDER BY status, id LIMIT 1')
  const setAside = db.prepare<[string], { id: number; email_address: string }>(`SELECT id, email_address FROM users WHERE status = ${STATUSES.deactivated} AND email_address LIKE ? ESCAPE '\\' ORDER BY id DESC`)
  const everyEmail = db.prepare<[], string>('SELECT email_address FROM users WHERE email_address IS NOT NULL').pluck()

  // The deactivated person who had `email` before it was set aside.
  function formerHolder(email: string): number | undefined {
    if (!email.includes('@')) return undefined
    const pattern = likePattern(email).replaceAll('@', '-deactivated-%@')
    for (const stored of setAside.iterate(pattern)) if (normalizeEmail(originalEmail(stored.email_address)) === email) return stored.id
    return undefined
  }

  function lookalike(email: string): boolean {
    if (isAscii(email)) return false
    const folded = foldedEmail(email)
    for (const stored of everyEmail.iterate()) {
      const original = normalizeEmail(originalEmail(stored))
      if (original !== email && foldedEmail(original) === folded) return true
    }
    return false
  }

  // The banned or deactivated person whose address `email` (as normalizeEmail leaves it) is or
  // was, unless an active person has it now.
  function inactiveHolder(email: string): number | undefined {
    const found = holder.get(email)
    if (found?.status === STATUSES.active) return undefined
    return found?.id ?? formerHolder(email)
  }

  return {
    inactiveHolder,
    // Why `email` (as normalizeEmail leaves it) may not make a new person, or null. An active
    // person who has it is not a refusal: the caller signs them in, or finds the address taken.
    refusal(email: string): EmailRefusal | null {
      if (inactiveHolder(email) !== undefined) return 'inactive'
      if (holder.get(email) !== undefined) return null
      return lookalike(email) ? 'lookalike' : null
    },
  }
}
