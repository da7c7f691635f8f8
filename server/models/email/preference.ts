import type { Connection } from '../database.ts'
import { dbTime } from '../../lib/time.ts'

// The profile's "Email me about mentions and Pings I miss": on unless the person turned it off.
export function emailPreferences(db: Connection) {
  const find = db.prepare<[number], number>('SELECT missed_messages FROM campfire_email_preferences WHERE user_id = ?').pluck()
  const upsert = db.prepare<[number, number, string]>(
    `INSERT INTO campfire_email_preferences (user_id, missed_messages, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET missed_messages = excluded.missed_messages, updated_at = excluded.updated_at`,
  )
  // Turning it off also drops what was waiting to be sent.
  const dropPending = db.prepare<[number]>('DELETE FROM campfire_email_notifications WHERE user_id = ? AND claimed_until IS NULL')
  return {
    wantsMissedMessages: (userId: number): boolean => (find.get(userId) ?? 1) === 1,
    setMissedMessages(userId: number, on: boolean): void {
      upsert.run(userId, on ? 1 : 0, dbTime())
      if (!on) dropPending.run(userId)
    },
  }
}
