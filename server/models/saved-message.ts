import type { Connection } from './database.ts'
import type { MessageRow } from './message.ts'
import { dbTime } from '../lib/time.ts'

export const SAVED_PAGE_SIZE = 50

export type SavedMessageRow = MessageRow & { saved_id: number }

const COLUMNS = 'messages.id, messages.room_id, messages.creator_id, messages.client_message_id, messages.created_at, messages.updated_at, messages.presentation_version'

// A person's saved messages (migrations/015-saved-messages.sql): theirs alone, read only through
// their own id, and only while the message is in a room they are still in. Newest saved first.
export function savedMessages(db: Connection) {
  const save = db.prepare('INSERT INTO campfire_saved_messages (user_id, message_id, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id, message_id) DO NOTHING')
  const unsave = db.prepare('DELETE FROM campfire_saved_messages WHERE user_id = ? AND message_id = ?')
  const isSaved = db.prepare<[number, number], number>('SELECT 1 FROM campfire_saved_messages WHERE user_id = ? AND message_id = ?').pluck()
  const page = db.prepare<[number, number, number], SavedMessageRow>(
    `SELECT ${COLUMNS}, saves.id AS saved_id FROM campfire_saved_messages AS saves
     JOIN messages ON messages.id = saves.message_id
     JOIN memberships ON memberships.room_id = messages.room_id AND memberships.user_id = saves.user_id
     WHERE saves.user_id = ? AND saves.id < ? ORDER BY saves.id DESC LIMIT ?`,
  )

  return {
    // Saving twice keeps the first save (and its place in the list).
    save: (userId: number, messageId: number): boolean => save.run(userId, messageId, dbTime()).changes > 0,
    unsave: (userId: number, messageId: number): boolean => unsave.run(userId, messageId).changes > 0,
    isSaved: (userId: number, messageId: number): boolean => isSaved.get(userId, messageId) !== undefined,
    // One page, newest saved first, below the save `before` (a saved_id) when given.
    page: (userId: number, before: number | null = null, size = SAVED_PAGE_SIZE): SavedMessageRow[] =>
      page.all(userId, before ?? Number.MAX_SAFE_INTEGER, size),
  }
}
