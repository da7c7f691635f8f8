import type { Connection } from '../database.ts'
import { CONNECTION_TTL_MS } from '../membership.ts'
import { ROOM_TYPES } from '../room.ts'
import { dbTimeFromDate } from '../../lib/time.ts'
import type { PendingRow } from './notification.ts'

export interface Recipient {
  id: number
  name: string
  email_address: string
}

export interface MissedMessage {
  id: number
  roomId: number
  roomName: string
  direct: boolean
  creatorName: string
  createdAt: string
  text: string
  attachment: string | null
}

interface Row {
  room_name: string | null
  room_type: string
  creator_name: string
  created_at: string
  involvement: string
  unread_at: string | null
  connected_at: string | null
  text: string | null
  attachment: string | null
}

// What a due email holds, decided again as it is sent: the person is still active, not a bot,
// has an address and wants these emails; each message still exists, the bell still asks for
// it, the room is still unread from that message on, and the person is not in the room now.
// A room they opened since (which clears unread_at) drops its messages.
export function missedMessages(db: Connection) {
  const recipient = db.prepare<[number], Recipient>(
    `SELECT id, name, email_address FROM users WHERE id = ? AND status = 0 AND role != 2 AND email_address IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM campfire_email_preferences p WHERE p.user_id = users.id AND p.missed_messages = 0)`,
  )
  const message = db.prepare<[number, number], Row>(
    `SELECT rooms.name AS room_name, rooms.type AS room_type, creator.name AS creator_name, messages.created_at,
            m.involvement, m.unread_at, m.connected_at,
            (SELECT body FROM message_search_index WHERE rowid = messages.id) AS text,
            (SELECT b.filename FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id
              WHERE a.record_type = 'Message' AND a.name = 'attachment' AND a.record_id = messages.id ORDER BY a.id DESC LIMIT 1) AS attachment
     FROM messages
     JOIN rooms ON rooms.id = messages.room_id
     JOIN users AS creator ON creator.id = messages.creator_id
     JOIN memberships AS m ON m.room_id = messages.room_id AND m.user_id = ?
     WHERE messages.id = ?`,
  )
  const accountName = db.prepare<[], string>('SELECT name FROM accounts ORDER BY id LIMIT 1').pluck()

  return {
    recipient: (userId: number): Recipient | undefined => recipient.get(userId),
    accountName: (): string => accountName.get() ?? 'Campfire',
    stillMissed(userId: number, rows: readonly PendingRow[], now = Date.now()): MissedMessage[] {
      const cutoff = dbTimeFromDate(new Date(now - CONNECTION_TTL_MS))
      const missed: MissedMessage[] = []
      for (const row of rows) {
        const found = message.get(userId, row.message_id)
        if (!found || found.involvement === 'nothing' || found.involvement === 'invisible') continue
        if (found.unread_at === null || found.unread_at > found.created_at) continue
        if (found.connected_at !== null && found.connected_at >= cutoff) continue
        const direct = found.room_type === ROOM_TYPES.direct
        missed.push({
          id: row.message_id, roomId: row.room_id, roomName: direct ? found.creator_name : (found.room_name ?? ''), direct,
          creatorName: found.creator_name, createdAt: found.created_at, text: found.text ?? '', attachment: found.attachment,
        })
      }
      return missed
    },
  }
}
