import type { Models } from '../index.ts'
import type { MessageRow } from '../message.ts'
import { removeMessage } from '../message/posting.ts'
import { isBannableAddress } from '../ban.ts'
import { STATUSES } from '../user.ts'

// How many messages one write removes: small enough that a batch (with its cascade and the
// triggers it fires) takes about 10 ms here, so nothing waits long behind it in the writer.
export const REMOVAL_BATCH = 100

export interface BanOutcome {
  banned: string[]
  // Session addresses that could not be banned (loopback, private, link-local, unparseable):
  // upstream's whole ban failed on one of these (spec §10 bug 1); we skip them.
  skipped: string[]
}

export interface RemovedMessage {
  message: MessageRow
  // Where its live remove goes; null when the room no longer exists.
  room: { id: number; type: string } | null
}

export interface RemovalBatch {
  removed: RemovedMessage[]
  // The blob keys whose files go once this batch has committed.
  keys: string[]
  // Nothing is left to remove (no messages, or the person is no longer banned).
  done: boolean
}

// User#ban, one transaction: a ban row for each distinct public session address, the
// sessions gone, and status banned. Closing sockets and removing content follow the commit.
// Push subscriptions go too (upstream's ban keeps them, so a banned person's browser would
// still be notified of messages in rooms they can no longer open).
export function banUser(models: Models, userId: number): BanOutcome {
  const known = new Set(models.bans.addressesOf(userId))
  const outcome: BanOutcome = { banned: [], skipped: [] }
  for (const address of models.bannable.sessionAddresses(userId)) {
    if (!isBannableAddress(address)) {
      outcome.skipped.push(address)
      continue
    }
    if (!known.has(address)) models.bans.create(userId, address)
    outcome.banned.push(address)
  }
  models.bannable.deleteSessions(userId)
  models.bannable.deletePushSubscriptions(userId)
  models.bannable.setStatus(userId, STATUSES.banned)
  return outcome
}

// Unbanning lifts the address bans and makes the person active again. Only a banned person
// changes: upstream would also reactivate a deactivated one (with the rewritten email).
export function unbanUser(models: Models, userId: number): boolean {
  if (!models.bannable.isBanned(userId)) return false
  models.bans.deleteFor(userId)
  models.bannable.setStatus(userId, STATUSES.active)
  return true
}

// RemoveBannedContentJob, one batch: each message destroyed as a deletion does it (boosts,
// body, search row, attachment, the room touched). Stops once the person is unbanned.
export function removeBannedMessages(models: Models, userId: number, limit = REMOVAL_BATCH): RemovalBatch {
  if (!models.bannable.isBanned(userId)) return { removed: [], keys: [], done: true }
  const rows = models.bannable.nextMessages(userId, limit)
  const removed: RemovedMessage[] = []
  const keys: string[] = []
  for (const { room_type, ...message } of rows) {
    keys.push(...removeMessage(models, message))
    removed.push({ message, room: room_type === null ? null : { id: message.room_id, type: room_type } })
  }
  return { removed, keys, done: rows.length < limit }
}
