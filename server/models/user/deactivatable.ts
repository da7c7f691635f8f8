import { randomUUID } from 'node:crypto'
import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'

// User#deactivate: the person leaves every shared room (their pings stay, so the others keep the
// conversation), loses their push subscriptions, recent searches and sessions, and their email is
// set aside ("name-deactivated-<uuid>@domain") so it can sign up again. Their messages stay. The
// caller closes their sockets once this has committed.
export function deactivatable(db: Connection) {
  const leaveSharedRooms = db.prepare(
    "DELETE FROM memberships WHERE user_id = ? AND room_id IN (SELECT id FROM rooms WHERE type != 'Rooms::Direct')",
  )
  const forgetPushSubscriptions = db.prepare('DELETE FROM push_subscriptions WHERE user_id = ?')
  const forgetSearches = db.prepare('DELETE FROM searches WHERE user_id = ?')
  const endSessions = db.prepare('DELETE FROM sessions WHERE user_id = ?')
  const email = db.prepare<[number], string | null>('SELECT email_address FROM users WHERE id = ? AND status = 0').pluck()
  const markDeactivated = db.prepare('UPDATE users SET status = 1, email_address = ?, updated_at = ? WHERE id = ? AND status = 0')

  return {
    // Whether an active person was deactivated. Runs inside the writer's transaction.
    deactivate(userId: number, uuid: string = randomUUID()): boolean {
      const current = email.get(userId)
      if (current === undefined) return false
      leaveSharedRooms.run(userId)
      forgetPushSubscriptions.run(userId)
      forgetSearches.run(userId)
      endSessions.run(userId)
      markDeactivated.run(deactivatedEmail(current, uuid), dbTime(), userId)
      return true
    },
  }
}

export function deactivatedEmail(email: string | null, uuid: string): string | null {
  return email === null ? null : email.replaceAll('@', `-deactivated-${uuid}@`)
}
