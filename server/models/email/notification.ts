import type { Connection } from '../database.ts'
import { CONNECTION_TTL_MS } from '../membership.ts'
import { dbTimeFromDate } from '../../lib/time.ts'

// The queue of missed messages to email (campfire_email_notifications, migration 011): rows,
// not timers, so a restart loses nothing. A person's new row joins the due time of the rows
// already waiting for them, so one email gathers them; a person holds at most
// MAX_PENDING_PER_PERSON rows (the email then says there is more in Campfire).
export const MAX_PENDING_PER_PERSON = 50

export interface NewNotifications {
  messageId: number
  roomId: number
  creatorId: number
  direct: boolean
  mentioned: readonly number[]
  origin: string
  now: number
  delayMs: number
}

// Who is emailed about a message, decided again when the email is due (missed-messages.ts):
// members other than the sender, active people with an address (never bots), who want these
// emails, are not in the room now, and whose bell asks for it: a Ping always unless the bell
// is off, a shared room only when they are mentioned (`mentions` or `everything`).
const ENQUEUE = `
  INSERT OR IGNORE INTO campfire_email_notifications (user_id, message_id, room_id, origin, created_at, due_at)
  SELECT m.user_id, @messageId, @roomId, @origin, @now,
         coalesce((SELECT min(n.due_at) FROM campfire_email_notifications n WHERE n.user_id = m.user_id AND n.claimed_until IS NULL), @due)
  FROM memberships m
  JOIN users u ON u.id = m.user_id AND u.status = 0 AND u.role != 2 AND u.email_address IS NOT NULL
  WHERE m.room_id = @roomId AND m.user_id != @creatorId
    AND (m.connected_at IS NULL OR m.connected_at < @cutoff)
    AND ((m.involvement = 'everything' AND @direct = 1) OR (m.involvement IN ('everything', 'mentions') AND m.user_id IN (SELECT value FROM json_each(@mentioned))))
    AND NOT EXISTS (SELECT 1 FROM campfire_email_preferences p WHERE p.user_id = m.user_id AND p.missed_messages = 0)
    AND (SELECT count(*) FROM campfire_email_notifications n WHERE n.user_id = m.user_id) < ${MAX_PENDING_PER_PERSON}`

export interface PendingRow {
  id: number
  message_id: number
  room_id: number
  origin: string
  attempts: number
}

export function emailNotifications(db: Connection) {
  const enqueue = db.prepare(ENQUEUE)
  const dueUsers = db.prepare<[number, number, number], number>(
    `SELECT DISTINCT user_id FROM campfire_email_notifications
     WHERE due_at <= ? AND (claimed_until IS NULL OR claimed_until < ?) ORDER BY due_at LIMIT ?`,
  ).pluck()
  const claim = db.prepare<[number, number, number, number]>(
    `UPDATE campfire_email_notifications SET claimed_until = ?
     WHERE user_id = ? AND due_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)`,
  )
  const claimed = db.prepare<[number, number], PendingRow>(
    'SELECT id, message_id, room_id, origin, attempts FROM campfire_email_notifications WHERE user_id = ? AND claimed_until = ? ORDER BY message_id',
  )
  const finish = db.prepare<[number, number]>('DELETE FROM campfire_email_notifications WHERE user_id = ? AND claimed_until = ?')
  const retry = db.prepare<[number, number, number]>(
    'UPDATE campfire_email_notifications SET attempts = attempts + 1, due_at = ?, claimed_until = NULL WHERE user_id = ? AND claimed_until = ?',
  )
  const pending = db.prepare<[], number>('SELECT count(*) FROM campfire_email_notifications').pluck()
  const nextDue = db.prepare<[], number | null>('SELECT min(due_at) FROM campfire_email_notifications').pluck()

  return {
    // Queues the message for each person it should reach; how many rows were added.
    enqueue(n: NewNotifications): number {
      const cutoff = dbTimeFromDate(new Date(n.now - CONNECTION_TTL_MS))
      return enqueue.run({
        messageId: n.messageId, roomId: n.roomId, creatorId: n.creatorId, origin: n.origin, now: n.now,
        due: n.now + n.delayMs, cutoff, direct: n.direct ? 1 : 0, mentioned: JSON.stringify(n.mentioned),
      }).changes
    },
    dueUsers: (now: number, limit: number): number[] => dueUsers.all(now, now, limit),
    // Takes a person's due rows for this sender until `lease` (a time in ms, which also names
    // the claim); false when another sender holds them or none are due.
    claim: (userId: number, now: number, lease: number): boolean => claim.run(lease, userId, now, now).changes > 0,
    claimed: (userId: number, lease: number): PendingRow[] => claimed.all(userId, lease),
    finish: (userId: number, lease: number): void => void finish.run(userId, lease),
    retryAt: (userId: number, lease: number, at: number): void => void retry.run(at, userId, lease),
    pending: (): number => pending.get() ?? 0,
    nextDue: (): number | null => nextDue.get() ?? null,
  }
}
