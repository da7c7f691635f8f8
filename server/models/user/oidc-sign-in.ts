import type { Models } from '../index.ts'
import { normalizeEmail, ROLES, STATUSES, type UserRow } from '../user.ts'
import { joinAccount } from './joining.ts'

export interface ProviderClaims {
  sub: string
  email: string | null
  emailVerified: boolean
  name: string | null
}

export type OidcRefusal = 'unverified' | 'domain' | 'inactive' | 'linked-elsewhere' | 'lookalike'
// `linked`: the provider's identity was tied to the person by this sign-in (a newcomer, or the
// first sign-in through the provider of someone already here).
export type OidcSignIn = { userId: number; joined: boolean; linked: boolean } | { refused: OidcRefusal }

const NAME_LIMIT = 255

// Who a verified sign-in at the provider is here, inside the writer's transaction:
// - someone already linked to the provider's `sub` (whatever their email has become since);
// - else the active person with that verified email, who gets linked;
// - else, with a verified email in an allowed domain, a new member, as a join link makes them.
// Deactivated and banned people are refused however they are found: by `sub`, by email, or by
// the email a deactivation set aside (under any `sub`); so is an address that only Unicode
// folding makes someone's (user/email-standing.ts). Only an administrator brings anyone back.
export function signInWithProvider(m: Models, issuer: string, claims: ProviderClaims, allowedDomains: readonly string[]): OidcSignIn {
  const linked = m.oidcIdentities.findBySubject(issuer, claims.sub)
  if (linked) {
    const user = m.users.find(linked.user_id)
    if (!user || !mayUse(user)) return { refused: 'inactive' }
    m.oidcIdentities.seen(linked, claims.email)
    return { userId: user.id, joined: false, linked: false }
  }
  if (!claims.email || !claims.emailVerified || !claims.email.includes('@')) return { refused: 'unverified' }
  const email = normalizeEmail(claims.email)
  const existing = m.oidcIdentities.anyoneByEmail(email)
  if (existing) {
    if (!mayUse(existing)) return { refused: 'inactive' }
    if (m.oidcIdentities.forUser(existing.id, issuer)) return { refused: 'linked-elsewhere' }
    m.oidcIdentities.link(existing.id, issuer, claims.sub, email)
    return { userId: existing.id, joined: false, linked: true }
  }
  const refusal = m.emailStanding.refusal(email)
  if (refusal) return { refused: refusal }
  const domain = email.slice(email.lastIndexOf('@') + 1)
  if (!allowedDomains.includes(domain)) return { refused: 'domain' }
  const name = (claims.name?.trim() || email.slice(0, email.lastIndexOf('@'))).slice(0, NAME_LIMIT)
  const userId = joinAccount(m, { name, emailAddress: email, passwordDigest: null })
  m.oidcIdentities.link(userId, issuer, claims.sub, email)
  return { userId, joined: true, linked: true }
}

function mayUse(user: Pick<UserRow, 'role' | 'status'>): boolean {
  return user.status === STATUSES.active && user.role !== ROLES.bot
}
