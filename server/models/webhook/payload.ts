import type { Models } from '../index.ts'
import type { MessageRow } from '../message.ts'
import type { RoomRow } from '../room.ts'
import type { WebhookTarget } from '../webhook.ts'
import { plainText } from '../rich-text/index.ts'

export interface WebhookPayload {
  user: { id: number; name: string }
  room: { id: number; name: string | null; path: string }
  message: { id: number; body: { html: string; plain: string }; path: string }
}

// What every bot is told about one message, worked out once per message however many bots
// hear of it: the stored rich text and its plain text (Message#plain_text_body: the text, else
// the attachment's file name), mentions shown as "@Name".
export interface MessageBasis {
  // The rich text as a JSON string literal.
  htmlJson: string
  plain: string
}

export function messageBasis(m: Models, message: MessageRow, html: string, mentions: Map<string, number>): MessageBasis {
  // The search row holds exactly this text (the same conversion, written with the message).
  const searched = m.webhooks.plainTextOf(message.id)
  return { htmlJson: JSON.stringify(html), plain: searched ?? convertedPlainText(m, message, html, mentions) }
}

function convertedPlainText(m: Models, message: MessageRow, html: string, mentions: Map<string, number>): string {
  const ids = [...new Set(mentions.values())]
  const names = new Map(ids.length > 0 ? m.users.people(ids).map((person) => [person.id, person.name]) : [])
  const text = plainText(html, (sgid) => names.get(mentions.get(sgid) ?? -1) ?? null)
  return text.trim() !== '' ? text : (m.webhooks.attachmentFilename(message.id) ?? '')
}

// What Webhook#payload sends one bot, exactly upstream's JSON (§1.35: user, room, message, no more):
// paths, not URLs (the bot's messages path carries its key), the stored rich text, and the
// plain text without the bot's own @mention. The rich text is serialised once per message, so
// a message that many bots hear of is not re-encoded for each; the result is the JSON text of
// a WebhookPayload, keys in that order.
export function webhookJson(basis: MessageBasis, room: RoomRow, message: MessageRow, creator: { id: number; name: string }, target: WebhookTarget): string {
  const user = JSON.stringify({ id: creator.id, name: creator.name })
  const roomJson = JSON.stringify({ id: room.id, name: room.name, path: `/rooms/${room.id}/${target.botId}-${target.botToken ?? ''}/messages` })
  const plain = JSON.stringify(withoutMention(basis.plain, target.botName))
  const path = JSON.stringify(`/rooms/${room.id}/@${message.id}`)
  return `{"user":${user},"room":${roomJson},"message":{"id":${message.id},"body":{"html":${basis.htmlJson},"plain":${plain}},"path":${path}}}`
}

// Every "@<bot name>" goes, then leading and trailing whitespace (Unicode spaces too).
export function withoutMention(plain: string, botName: string): string {
  return plain.split(`@${botName}`).join('').replace(/^\s+|\s+$/g, '')
}
