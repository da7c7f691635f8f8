import { parseDbTime } from '../../lib/time.ts'
import type { ExportAttachment, ExportMessage, ExportPerson, ExportRoom } from '../../models/export/rows.ts'
import { ROLES, STATUSES } from '../../models/user.ts'

// The shapes an export's JSON files hold: plain names and ISO 8601 times, no database codes.

export interface MessageRecord {
  id: number
  created_at: string
  updated_at: string
  author: { id: number; name: string | null }
  html: string
  text: string
  boosts: { content: string; by: { id: number; name: string | null }; created_at: string }[]
  attachments: { path: string; filename: string; content_type: string | null; byte_size: number }[]
}

export function isoTime(value: string): string {
  return new Date(parseDbTime(value) ?? 0).toISOString()
}

// A stored filename as one safe path segment: no folders, no control characters, no dot-only names.
export function safeFileName(filename: string): string {
  const cleaned = filename.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').trim().slice(0, 200)
  return cleaned === '' || /^\.+$/.test(cleaned) ? 'file' : cleaned
}

export function attachmentPath(attachment: Pick<ExportAttachment, 'key' | 'filename'>): string {
  return `attachments/${attachment.key}/${safeFileName(attachment.filename)}`
}

export function roomFileName(room: Pick<ExportRoom, 'id'>, extension: 'json' | 'html'): string {
  return `rooms/${room.id}.${extension}`
}

export function messageRecord(row: ExportMessage): MessageRecord {
  const boosts = JSON.parse(row.boosts) as { content: string; booster_id: number; booster: string | null; created_at: string }[]
  const attachments = JSON.parse(row.attachments) as ExportAttachment[]
  return {
    id: row.id,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    author: { id: row.creator_id, name: row.author },
    html: row.html ?? '',
    text: row.text ?? '',
    boosts: boosts.map((b) => ({ content: b.content, by: { id: b.booster_id, name: b.booster }, created_at: isoTime(b.created_at) })),
    attachments: attachments.map((a) => ({ path: attachmentPath(a), filename: a.filename, content_type: a.content_type, byte_size: a.byte_size })),
  }
}

const ROLE_NAMES: Record<number, string> = { [ROLES.member]: 'member', [ROLES.administrator]: 'administrator', [ROLES.bot]: 'bot' }
const STATUS_NAMES: Record<number, string> = { [STATUSES.active]: 'active', [STATUSES.deactivated]: 'deactivated', [STATUSES.banned]: 'banned' }

export function personRecord(row: ExportPerson) {
  return {
    id: row.id,
    name: row.name,
    email_address: row.email_address,
    role: ROLE_NAMES[row.role] ?? String(row.role),
    status: STATUS_NAMES[row.status] ?? String(row.status),
    bio: row.bio,
    created_at: isoTime(row.created_at),
  }
}

const ROOM_TYPES: Record<string, string> = { 'Rooms::Open': 'open', 'Rooms::Closed': 'closed', 'Rooms::Direct': 'direct' }

export function roomRecord(row: ExportRoom, memberIds: number[]) {
  return {
    id: row.id,
    name: row.name,
    type: ROOM_TYPES[row.type] ?? row.type,
    creator_id: row.creator_id,
    created_at: isoTime(row.created_at),
    member_ids: memberIds,
    messages: roomFileName(row, 'json'),
    html: roomFileName(row, 'html'),
  }
}
