// The rows a ban reads and writes; banning.ts runs the ban with them.
import type { Connection } from '../database.ts'
import type { MessageRow } from '../message.ts'
import { STATUSES } from '../user.ts'

export function bannable(db: Connection) {
  const sessionAddresses = db.prepare<[number], string>(
    "SELECT ip_address FROM sessions WHERE user_id = ? AND TRIM(ip_address) != '' GROUP BY ip_address ORDER BY MIN(id)",
  ).pluck()
  const deleteSessions = db.prepare('DELETE FROM sessions WHERE user_id = ?')
  const deletePushSubscriptions = db.prepare('DELETE FROM push_subscriptions WHERE user_id = ?')
  // Not updated_at: touching the person moves the presentation of every message they wrote,
  // 10,000 rows for a busy spammer, in the ban's own transaction, for messages about to go.
  // The status alone moves the 'people' version that lists of people are cached by.
  const setStatus = db.prepare('UPDATE users SET status = ? WHERE id = ?')
  const status = db.prepare<[number], number>('SELECT status FROM users WHERE id = ?').pluck()
  // A message whose room is gone (a database Rails left half-deleted) is removed all the same.
  const nextMessages = db.prepare<[number, number], MessageRow & { room_type: string | null }>(
    `SELECT m.id, m.room_id, m.creator_id, m.client_message_id, m.created_at, m.updated_at, m.presentation_version, r.type AS room_type
     FROM messages m LEFT JOIN rooms r ON r.id = m.room_id WHERE m.creator_id = ? ORDER BY m.id LIMIT ?`,
  )
  const bannedWithMessages = db.prepare<[], number>(
    'SELECT id FROM users WHERE status = 2 AND EXISTS (SELECT 1 FROM messages WHERE creator_id = users.id) ORDER BY id',
  ).pluck()

  return {
    sessionAddresses: (userId: number): string[] => sessionAddresses.all(userId),
    deleteSessions: (userId: number): number => deleteSessions.run(userId).changes,
    deletePushSubscriptions: (userId: number): number => deletePushSubscriptions.run(userId).changes,
    setStatus: (userId: number, value: number): void => void setStatus.run(value, userId),
    isBanned: (userId: number): boolean => status.get(userId) === STATUSES.banned,
    nextMessages: (userId: number, limit: number) => nextMessages.all(userId, limit),
    // Banned people whose content removal had not finished when the last process stopped.
    bannedWithMessages: (): number[] => bannedWithMessages.all(),
  }
}
