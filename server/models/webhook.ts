import type { Connection } from './database.ts'
import { dbTime } from '../lib/time.ts'
import { ROLES, STATUSES } from './user.ts'

// Webhook: where a bot hears about the messages meant for it (§1.35). One row per bot, as
// upstream's has_one; only administrators set the URL (the bots page), and a member can never
// change where the server sends a webhook.
export const WEBHOOK_URL_MAX_LENGTH = 2000

// Why a URL cannot be a webhook, or null when it can. Pure: checked when the bots page saves.
export function webhookUrlProblem(url: string): string | null {
  const value = url.trim()
  if (value.length > WEBHOOK_URL_MAX_LENGTH) return `Webhook URL is too long (at most ${WEBHOOK_URL_MAX_LENGTH} characters)`
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    return 'Webhook URL is not a valid URL'
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'Webhook URL must start with http:// or https://'
  if (parsed.username !== '' || parsed.password !== '') return 'Webhook URL must not contain a user name or password'
  if (parsed.hostname === '') return 'Webhook URL needs a host'
  return null
}

export interface WebhookTarget {
  botId: number
  botName: string
  botToken: string | null
  url: string
}

export function webhooks(db: Connection) {
  const urlFor = db.prepare<[number], string | null>('SELECT url FROM webhooks WHERE user_id = ? ORDER BY id LIMIT 1').pluck()
  const existing = db.prepare<[number], number>('SELECT id FROM webhooks WHERE user_id = ? ORDER BY id LIMIT 1').pluck()
  const insert = db.prepare('INSERT INTO webhooks (user_id, url, created_at, updated_at) VALUES (?, ?, ?, ?)')
  const update = db.prepare('UPDATE webhooks SET url = ?, updated_at = ? WHERE id = ?')
  const destroyOthers = db.prepare('DELETE FROM webhooks WHERE user_id = ? AND id != ?')
  const destroyAll = db.prepare('DELETE FROM webhooks WHERE user_id = ?')
  const urlsFor = db.prepare<[string], { user_id: number; url: string }>(
    `SELECT user_id, url FROM webhooks
      WHERE id IN (SELECT MIN(id) FROM webhooks WHERE user_id IN (SELECT value FROM json_each(?)) GROUP BY user_id)
        AND url IS NOT NULL AND url != ''`,
  )

  // Bots that may hear about a message in a room: active, members of it, with a webhook, not
  // the message's creator (a bot never triggers its own webhook).
  const BOTS_IN_ROOM = `SELECT users.id FROM memberships JOIN users ON users.id = memberships.user_id
      WHERE memberships.room_id = ? AND users.id != ? AND users.role = ${ROLES.bot} AND users.status = ${STATUSES.active}
        AND EXISTS (SELECT 1 FROM webhooks WHERE webhooks.user_id = users.id AND webhooks.url IS NOT NULL AND webhooks.url != '')`
  const botsInRoom = db.prepare<[number, number], number>(`${BOTS_IN_ROOM} ORDER BY users.id`).pluck()
  const mentionedBotsInRoom = db.prepare<[number, number, string], number>(
    `${BOTS_IN_ROOM} AND users.id IN (SELECT value FROM json_each(?)) ORDER BY users.id`,
  ).pluck()
  const target = db.prepare<[number, number], WebhookTarget>(
    `SELECT users.id AS botId, users.name AS botName, users.bot_token AS botToken, webhooks.url AS url FROM users
       JOIN memberships ON memberships.user_id = users.id AND memberships.room_id = ?
       JOIN webhooks ON webhooks.user_id = users.id
      WHERE users.id = ? AND users.role = ${ROLES.bot} AND users.status = ${STATUSES.active} AND webhooks.url IS NOT NULL AND webhooks.url != ''
      ORDER BY webhooks.id LIMIT 1`,
  )

  const attachmentFilename = db.prepare<[number], string>(
    `SELECT b.filename FROM active_storage_attachments a JOIN active_storage_blobs b ON b.id = a.blob_id
      WHERE a.record_type = 'Message' AND a.record_id = ? AND a.name = 'attachment' ORDER BY a.id LIMIT 1`,
  ).pluck()

  const searchText = db.prepare<[number], string>('SELECT body FROM message_search_index WHERE rowid = ?').pluck()

  return {
    // A message's plain text as its search row holds it (Message#plain_text_body: the rich
    // text's plain text, or the attachment's file name), or null when it has no row.
    plainTextOf: (messageId: number): string | null => searchText.get(messageId) ?? null,

    // The file name of a message's attachment, for a webhook's plain text (Message#plain_text_body).
    attachmentFilename: (messageId: number): string | null => attachmentFilename.get(messageId) ?? null,

    // The bots a new message goes to (Messages#deliver_webhooks_to_bots): in a direct room every
    // bot of the room; in a shared room the bots the message mentions.
    recipients(roomId: number, creatorId: number, direct: boolean, mentionedIds: readonly number[]): number[] {
      if (direct) return botsInRoom.all(roomId, creatorId)
      if (mentionedIds.length === 0) return []
      return mentionedBotsInRoom.all(roomId, creatorId, JSON.stringify(mentionedIds))
    },

    // Where one bot's webhook goes now, checked again when the delivery runs: the bot is still
    // active, still in the room and still has a webhook.
    target: (roomId: number, botId: number): WebhookTarget | undefined => target.get(roomId, botId),

    // A blank or missing URL removes the bot's webhook; otherwise its one row is created or
    // updated (Rails' created_at/updated_at). Callers check webhookUrlProblem first.
    save(botId: number, url: string | null): void {
      const value = url?.trim() ?? ''
      if (value === '') {
        destroyAll.run(botId)
        return
      }
      const now = dbTime()
      const id = existing.get(botId)
      if (id === undefined) {
        insert.run(botId, value, now, now)
      } else {
        if (urlFor.get(botId) !== value) update.run(value, now, id)
        destroyOthers.run(botId, id)
      }
    },

    urlFor: (botId: number): string | null => {
      const url = urlFor.get(botId)
      return url === undefined || url === null || url === '' ? null : url
    },

    // The webhook URL of each of these bots that has one, for delivery.
    urlsFor(botIds: number[]): Map<number, string> {
      if (botIds.length === 0) return new Map()
      return new Map(urlsFor.all(JSON.stringify(botIds)).map((row) => [row.user_id, row.url]))
    },
  }
}
