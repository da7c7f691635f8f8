import { createHash } from 'node:crypto'
import type { RailsSigning } from '../../lib/rails/signing.ts'
import type { Connection } from '../database.ts'
import { normalizeEmail, ROLES, STATUSES, type UserRow } from '../user.ts'
import { emailStanding } from './email-standing.ts'

// A claim link: how a person an import brought in (no password, often no email) takes up their
// account. An administrator makes it; its holder picks an email and a password and is signed in.
// It is valid for three days and once: the link is signed over what claiming changes (the
// password and email), so after a claim, or a password set another way, it no longer verifies.
// Only an active member who never had a password can have one, then and when it is used.
export const CLAIM_LINK_EXPIRY_MS = 3 * 24 * 60 * 60 * 1000

type Claimant = Pick<UserRow, 'id' | 'role' | 'status' | 'password_digest' | 'email_address'>

export const canClaim = (user: Claimant): boolean => user.status === STATUSES.active && user.role !== ROLES.bot && user.password_digest === null

const purpose = (user: Claimant) => `claim-${createHash('sha256').update(`${user.password_digest ?? ''}\u0000${user.email_address ?? ''}`).digest('hex').slice(0, 24)}`

export function claimToken(signing: RailsSigning, user: Claimant, now = Date.now()): string {
  return `${user.id}-${signing.signedId('User', user.id, purpose(user), { expiresInMs: CLAIM_LINK_EXPIRY_MS, now })}`
}

// The person a link is for, while it can still be used; nothing for a forged, expired or used one.
export function findByClaimToken(models: { users: { find(id: number): UserRow | undefined } }, signing: RailsSigning, token: string, now = Date.now()): UserRow | undefined {
  const match = /^(\d{1,15})-(.{1,2000})$/.exec(token)
  const user = match ? models.users.find(Number(match[1])) : undefined
  if (!user || !canClaim(user)) return undefined
  return signing.verifySignedId('User', match![2]!, purpose(user), now) === user.id ? user : undefined
}

export class ClaimRefused extends Error {}

export function claimable(db: Connection) {
  const emailHolder = db.prepare<[string], number>('SELECT id FROM users WHERE email_address = ? COLLATE NOCASE LIMIT 1').pluck()
  const setClaimed = db.prepare('UPDATE users SET email_address = ?, password_digest = ?, updated_at = ? WHERE id = ? AND status = 0 AND password_digest IS NULL')
  const standing = emailStanding(db)

  return {
    // Takes up the account, inside the writer's transaction (so two uses of one link cannot both
    // win); refuses an email someone else signs in with, that a deactivated or banned person had,
    // or that only Unicode folding tells from someone's (email-standing.ts).
    claim(userId: number, email: string, passwordDigest: string, at: string): void {
      const address = normalizeEmail(email)
      const holder = emailHolder.get(address)
      if ((holder !== undefined && holder !== userId) || standing.refusal(address) !== null) throw new ClaimRefused('That email address can’t be used. Pick another, or ask an administrator.')
      if (setClaimed.run(address, passwordDigest, at, userId).changes !== 1) throw new ClaimRefused('That link has already been used.')
    },
  }
}
