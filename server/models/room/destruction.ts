import type { Connection } from '../database.ts'
import type { RoomType } from '../room.ts'

export interface DestroyedRoom {
  id: number
  type: RoomType
  // Blobs no attachment points at any more; their files are for a purge job to delete.
  orphanedBlobIds: number[]
}

const MESSAGES = 'SELECT id FROM messages WHERE room_id = ?'
const BODIES = `SELECT id FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id IN (${MESSAGES})`

// Deleting a room takes everything in it: children before parents, so it works with foreign keys on.
export function roomDestruction(db: Connection) {
  const find = db.prepare<[number], { id: number; type: RoomType }>('SELECT id, type FROM rooms WHERE id = ?')
  const detachFromBodies = db.prepare<[number], number>(
    `DELETE FROM active_storage_attachments WHERE record_type = 'ActionText::RichText' AND record_id IN (${BODIES}) RETURNING blob_id`,
  ).pluck()
  const detachFromMessages = db.prepare<[number], number>(
    `DELETE FROM active_storage_attachments WHERE record_type = 'Message' AND record_id IN (${MESSAGES}) RETURNING blob_id`,
  ).pluck()
  const orphaned = db.prepare<[string], number>(
    `SELECT id FROM active_storage_blobs WHERE id IN (SELECT value FROM json_each(?))
     AND NOT EXISTS (SELECT 1 FROM active_storage_attachments WHERE blob_id = active_storage_blobs.id) ORDER BY id`,
  ).pluck()
  const deletions = [
    `DELETE FROM message_search_index WHERE rowid IN (${MESSAGES})`,
    `DELETE FROM action_text_rich_texts WHERE id IN (${BODIES})`,
    `DELETE FROM boosts WHERE message_id IN (${MESSAGES})`,
    'DELETE FROM messages WHERE room_id = ?',
    'DELETE FROM memberships WHERE room_id = ?',
    'DELETE FROM rooms WHERE id = ?',
  ].map((sql) => db.prepare<[number]>(sql))

  const destroyRoom = db.transaction((roomId: number): DestroyedRoom | null => {
    const room = find.get(roomId)
    if (!room) return null
    const blobIds = [...detachFromBodies.all(roomId), ...detachFromMessages.all(roomId)]
    for (const deletion of deletions) deletion.run(roomId)
    return { ...room, orphanedBlobIds: blobIds.length > 0 ? orphaned.all(JSON.stringify(blobIds)) : [] }
  })

  return { destroyRoom: (roomId: number): DestroyedRoom | null => destroyRoom(roomId) }
}
