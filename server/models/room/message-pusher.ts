import type { Connection } from '../database.ts'
import { CONNECTION_TTL_MS } from '../membership.ts'
import { ROOM_TYPES, type RoomRow } from '../room.ts'
import { mentionsIn, type VerifyGlobalId } from '../message/mentionee.ts'
import { dbTimeFromDate } from '../../lib/time.ts'

// Room::MessagePusher: who is told about a new message by Web Push, and what they are told.
// Recipients are the push subscriptions of the room's members, other than the sender, whose
// membership is visible and disconnected (not present for CONNECTION_TTL): `everything` always,
// `mentions` only when the message mentions them. Each gets upstream's payload, with their own
// badge (how many of their rooms are unread).
export interface PushRecipient {
  id: number
  user_id: number
  endpoint: string
  p256dh_key: string
  auth_key: string
  badge: number
}

export interface PushNotice {
  title: string
  body: string
  path: string
}

export const PUSH_ICON = '/account/logo?size=small'
// A push message carries at most 4096 bytes, about 3993 of them payload once encrypted; the
// body is shortened to keep the JSON under this, so a long message still notifies.
export const MAX_PAYLOAD_BYTES = 3900
const MAX_TITLE_LENGTH = 200

export function messagePusher(db: Connection) {
  const recipients = db.prepare<[{ roomId: number; creatorId: number; cutoff: string; mentioned: string }], PushRecipient>(
    `SELECT push_subscriptions.id, push_subscriptions.user_id, push_subscriptions.endpoint, push_subscriptions.p256dh_key,
            push_subscriptions.auth_key,
            (SELECT count(*) FROM memberships AS unread WHERE unread.user_id = push_subscriptions.user_id AND unread.unread_at IS NOT NULL) AS badge
     FROM memberships
     JOIN users ON users.id = memberships.user_id AND users.status = 0
     JOIN push_subscriptions ON push_subscriptions.user_id = memberships.user_id
     WHERE memberships.room_id = @roomId AND memberships.user_id != @creatorId
       AND (memberships.connected_at IS NULL OR memberships.connected_at < @cutoff)
       AND (memberships.involvement = 'everything'
         OR (memberships.involvement = 'mentions' AND memberships.user_id IN (SELECT value FROM json_each(@mentioned))))
     ORDER BY push_subscriptions.id`,
  )
  // The plain text the search index holds is the message's plain_text_body (its filename for a bare attachment).
  const plainText = db.prepare<[number], string>('SELECT body FROM message_search_index WHERE rowid = ?').pluck()
  const unreadCount = db.prepare<[number], number>('SELECT count(*) FROM memberships WHERE user_id = ? AND unread_at IS NOT NULL').pluck()
  const body = db.prepare<[number], string | null>("SELECT body FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id = ? AND name = 'body'").pluck()

  return {
    recipients(roomId: number, creatorId: number, mentionedUserIds: readonly number[], now = Date.now()): PushRecipient[] {
      const cutoff = dbTimeFromDate(new Date(now - CONNECTION_TTL_MS))
      return recipients.all({ roomId, creatorId, cutoff, mentioned: JSON.stringify(mentionedUserIds) })
    },
    plainText: (messageId: number): string => plainText.get(messageId) ?? '',
    // A person's badge: how many of their rooms are unread.
    unreadCount: (userId: number): number => unreadCount.get(userId) ?? 0,
    // The people a message's rich text mentions (only sgids the server signed count).
    mentionedUserIds(messageId: number, verify: VerifyGlobalId): number[] {
      return [...new Set(mentionsIn(body.get(messageId) ?? '', verify).values())]
    },
  }
}

// A direct room is titled with the sender's name; a shared room with its own name, the body
// then saying who wrote it.
export function pushNotice(room: RoomRow, creatorName: string, plainText: string): PushNotice {
  const path = `/rooms/${room.id}`
  if (room.type === ROOM_TYPES.direct) return { title: creatorName, body: plainText, path }
  return { title: room.name ?? '', body: `${creatorName}: ${plainText}`, path }
}

// WebPush::Notification's JSON: {title, options: {body, icon, data: {path, badge}}}.
export function pushPayload(notice: PushNotice, badge: number): string {
  const title = shorten(notice.title, MAX_TITLE_LENGTH)
  let body = notice.body
  for (;;) {
    const json = JSON.stringify({ title, options: { body, icon: PUSH_ICON, data: { path: notice.path, badge } } })
    const size = Buffer.byteLength(json)
    if (size <= MAX_PAYLOAD_BYTES || body === '') return json
    // Keep the share of the body's characters that its (escaped) bytes may still take.
    const characters = [...body]
    const bodyBytes = Buffer.byteLength(JSON.stringify(body))
    const keep = Math.floor((characters.length * Math.max(0, bodyBytes - (size - MAX_PAYLOAD_BYTES))) / bodyBytes) - 1
    body = keep > 0 ? characters.slice(0, keep).join('') + '…' : ''
  }
}

function shorten(text: string, length: number): string {
  const characters = [...text]
  return characters.length <= length ? text : characters.slice(0, Math.max(0, length - 1)).join('') + '…'
}
