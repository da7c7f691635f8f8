import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'

export interface BoostRow {
  id: number
  message_id: number
  booster_id: number
  content: string
  created_at: string
  updated_at: string
}

export const BOOST_MAX_LENGTH = 16

// A boost touches its message, so the message's fragment and the room's refresh notice it.
export function boosts(db: Connection) {
  const insert = db.prepare('INSERT INTO boosts (message_id, booster_id, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
  const find = db.prepare<[number, number], BoostRow>('SELECT * FROM boosts WHERE id = ? AND message_id = ?')
  const remove = db.prepare('DELETE FROM boosts WHERE id = ?')
  const forMessage = db.prepare<[number], BoostRow>('SELECT * FROM boosts WHERE message_id = ? ORDER BY created_at, id')

  return {
    find: (id: number, messageId: number): BoostRow | undefined => find.get(id, messageId),
    forMessage: (messageId: number): BoostRow[] => forMessage.all(messageId),

    create(messageId: number, boosterId: number, content: string, at: string = dbTime()): BoostRow {
      const now = at
      const id = Number(insert.run(messageId, boosterId, content, now, now).lastInsertRowid)
      return { id, message_id: messageId, booster_id: boosterId, content, created_at: now, updated_at: now }
    },

    destroy(id: number): void {
      remove.run(id)
    },
  }
}
