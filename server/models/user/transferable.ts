import type { RailsSigning } from '../../lib/rails/signing.ts'
import { ROLES, STATUSES, type UserRow } from '../user.ts'

// User::Transferable: a link that signs its holder in as this person on another device, valid
// for four hours. The id is Rails' signed_id(purpose: :transfer, expires_in: 4.hours), so links
// minted by Campfire on Rails keep working here and the other way round.
export const TRANSFER_LINK_EXPIRY_MS = 4 * 60 * 60 * 1000

export function transferId(signing: RailsSigning, user: Pick<UserRow, 'id'>, now = Date.now()): string {
  return signing.signedId('User', user.id, 'transfer', { expiresInMs: TRANSFER_LINK_EXPIRY_MS, now })
}

// User.active.find_by_transfer_id: nothing for a forged, expired or otherwise-purposed id, or
// for someone no longer active. Bots never sign in with a session, so not with a link either.
export function findByTransferId(
  models: { users: { find(id: number): UserRow | undefined } },
  signing: RailsSigning,
  token: string,
  now = Date.now(),
): UserRow | undefined {
  const id = signing.verifySignedId('User', token, 'transfer', now)
  const user = id === undefined ? undefined : models.users.find(id)
  return user && user.status === STATUSES.active && user.role !== ROLES.bot ? user : undefined
}
