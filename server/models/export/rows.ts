import BetterSqlite3 from 'better-sqlite3'
import type { Connection } from '../database.ts'

// What an export covers: the whole account, one room, or one person's own messages.
export type ExportScope = { kind: 'account' } | { kind: 'room'; roomId: number } | { kind: 'person'; userId: number }

export interface ExportPerson {
  id: number
  name: string
  email_address: string | null
  role: number
  status: number
  bio: string | null
  created_at: string
}

export interface ExportRoom {
  id: number
  name: string | null
  type: string
  creator_id: number
  created_at: string
}

export interface ExportMessage {
  id: number
  created_at: string
  updated_at: string
  creator_id: number
  author: string | null
  html: string | null
  text: string | null
  // JSON arrays, built by SQLite so one statement reads a message whole.
  boosts: string
  attachments: string
}

export interface ExportAttachment {
  id: number
  key: string
  filename: string
  content_type: string | null
  byte_size: number
}

const MESSAGES = `
  SELECT m.id, m.created_at, m.updated_at, m.creator_id, u.name AS author, r.body AS html, s.body AS text,
    (SELECT json_group_array(json_object('content', b.content, 'booster_id', b.booster_id, 'booster', bu.name, 'created_at', b.created_at))
       FROM boosts b LEFT JOIN users bu ON bu.id = b.booster_id WHERE b.message_id = m.id) AS boosts,
    (SELECT json_group_array(json_object('key', bl.key, 'filename', bl.filename, 'content_type', bl.content_type, 'byte_size', bl.byte_size))
       FROM active_storage_attachments a JOIN active_storage_blobs bl ON bl.id = a.blob_id
       WHERE a.record_type = 'Message' AND a.record_id = m.id AND a.name = 'attachment') AS attachments
  FROM messages m
  LEFT JOIN users u ON u.id = m.creator_id
  LEFT JOIN action_text_rich_texts r ON r.record_type = 'Message' AND r.record_id = m.id AND r.name = 'body'
  LEFT JOIN message_search_index s ON s.rowid = m.id`

const ATTACHMENTS = `
  SELECT DISTINCT bl.id, bl.key, bl.filename, bl.content_type, bl.byte_size FROM messages m
  JOIN active_storage_attachments a ON a.record_type = 'Message' AND a.record_id = m.id AND a.name = 'attachment'
  JOIN active_storage_blobs bl ON bl.id = a.blob_id`

const PEOPLE = 'SELECT id, name, email_address, role, status, bio, created_at FROM users'
const ROOMS = 'SELECT id, name, type, creator_id, created_at FROM rooms'

// The rows an export reads, each a statement whose rows are walked with iterate(), so a room of a
// million messages is never held in memory. One connection runs one iterator at a time: the
// caller finishes (or returns) each before starting the next.
export function exportRows(db: Connection) {
  const everyone = db.prepare<[], ExportPerson>(`${PEOPLE} ORDER BY id`)
  const person = db.prepare<[number], ExportPerson>(`${PEOPLE} WHERE id = ?`)
  const allRooms = db.prepare<[], ExportRoom>(`${ROOMS} ORDER BY id`)
  const room = db.prepare<[number], ExportRoom>(`${ROOMS} WHERE id = ?`)
  const roomsWrittenIn = db.prepare<[number], ExportRoom>(`${ROOMS} WHERE id IN (SELECT DISTINCT room_id FROM messages WHERE creator_id = ?) ORDER BY id`)
  const shared = db.prepare<[], { id: number; name: string | null }>("SELECT id, name FROM rooms WHERE type != 'Rooms::Direct' ORDER BY name COLLATE NOCASE, id")
  const members = db.prepare<[number], number>('SELECT user_id FROM memberships WHERE room_id = ? ORDER BY user_id').pluck()
  const memberNames = db.prepare<[number], string>('SELECT u.name FROM memberships ms JOIN users u ON u.id = ms.user_id WHERE ms.room_id = ? ORDER BY u.name LIMIT 10').pluck()
  const messagesIn = db.prepare<[number], ExportMessage>(`${MESSAGES} WHERE m.room_id = ? ORDER BY m.created_at, m.id`)
  const messagesByIn = db.prepare<[number, number], ExportMessage>(`${MESSAGES} WHERE m.room_id = ? AND m.creator_id = ? ORDER BY m.created_at, m.id`)
  const attachmentsAll = db.prepare<[], ExportAttachment>(`${ATTACHMENTS} ORDER BY bl.id`)
  const attachmentsIn = db.prepare<[number], ExportAttachment>(`${ATTACHMENTS} WHERE m.room_id = ? ORDER BY bl.id`)
  const attachmentsBy = db.prepare<[number], ExportAttachment>(`${ATTACHMENTS} WHERE m.creator_id = ? ORDER BY bl.id`)

  return {
    // The rooms an administrator picks from on the export page.
    sharedRooms: () => shared.all(),
    findRoom: (id: number): ExportRoom | undefined => room.get(id),
    findPerson: (id: number): ExportPerson | undefined => person.get(id),

    // Rooms are few next to messages (one row each, no bodies): read whole.
    rooms(scope: ExportScope): ExportRoom[] {
      if (scope.kind === 'room') return room.all(scope.roomId)
      return scope.kind === 'person' ? roomsWrittenIn.all(scope.userId) : allRooms.all()
    },

    people(scope: ExportScope): IterableIterator<ExportPerson> {
      return scope.kind === 'person' ? person.iterate(scope.userId) : everyone.iterate()
    },

    memberIds: (roomId: number): number[] => members.all(roomId),
    // A direct room's title: its members' names (the first ten).
    memberNames: (roomId: number): string[] => memberNames.all(roomId),

    messages(scope: ExportScope, roomId: number): IterableIterator<ExportMessage> {
      return scope.kind === 'person' ? messagesByIn.iterate(roomId, scope.userId) : messagesIn.iterate(roomId)
    },

    attachments(scope: ExportScope): IterableIterator<ExportAttachment> {
      if (scope.kind === 'room') return attachmentsIn.iterate(scope.roomId)
      return scope.kind === 'person' ? attachmentsBy.iterate(scope.userId) : attachmentsAll.iterate()
    },
  }
}

// The export's own connection to the live file: its iterators stay open across turns of the event
// loop, so it cannot share the server's reader. query_only rather than readonly, so a WAL file
// opens whether or not a server has it open.
export function openForExport(path: string): Connection {
  const db = new BetterSqlite3(path, { fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  db.pragma('query_only = ON')
  return db
}
