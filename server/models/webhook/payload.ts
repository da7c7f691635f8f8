import type { Models } from '../index.ts'
import type { MessageRow } from '../message.ts'
import type { RoomRow } from '../room.ts'
import type { WebhookTarget } from '../webhook.ts'
import { OPENGRAPH_CONTENT_TYPE, plainText } from '../rich-text/index.ts'

// As upstream matches it (ActionText::Attachment::OpengraphEmbed.from_node): unanchored.
const OPENGRAPH_PATTERN = new RegExp(OPENGRAPH_CONTENT_TYPE)

// Checks a signed global id; the app's RailsSigning#verifySignedGlobalId.
export type VerifyGlobalId = (sgid: string) => { model: string; id: string } | null

export interface WebhookPayload {
  type: 'message'
  user: { id: number; name: string }
  room: { id: number; name: string | null; path: string }
  message: { id: number; body: { html: string; plain: string }; path: string }
}

// The people a body mentions (Message::Mentionee#mentioned_users): its attachments whose sgid
// verifies as a User, by sgid. Only signatures the server made count, so a member cannot name
// a bot by writing its id.
export function mentionsIn(html: string, verify: VerifyGlobalId): Map<string, number> {
  const mentions = new Map<string, number>()
  if (!html.includes('sgid')) return mentions
  for (const sgid of attachmentSgids(html)) {
    const found = verify(sgid)
    if (found && found.model === 'User' && /^\d+$/.test(found.id)) mentions.set(sgid, Number(found.id))
  }
  return mentions
}

// mentionedSgids for a stored body, without parsing it: a stored body is serialised HTML, where
// "<" never appears unescaped outside a tag and attribute values are double-quoted with "<", ">"
// and '"' escaped, so each <action-text-attachment …> tag is found whole by a pattern. The
// sgids of its attachments, each once, OpenGraph embeds left out, as mentionedSgids gives them.
const ATTACHMENT_TAG_PATTERN = /<action-text-attachment\b[^>]*>/gi
const ATTRIBUTE_PATTERN = /\s([^\s"'>\/=]+)="([^"]*)"/g

export function attachmentSgids(html: string): string[] {
  const sgids = new Set<string>()
  for (const [tag] of html.matchAll(ATTACHMENT_TAG_PATTERN)) {
    const attributes = new Map<string, string>()
    for (const [, name, value] of tag.matchAll(ATTRIBUTE_PATTERN)) if (!attributes.has(name!.toLowerCase())) attributes.set(name!.toLowerCase(), value!)
    const sgid = attributes.get('sgid')
    if (sgid && !OPENGRAPH_PATTERN.test(attributes.get('content-type') ?? '')) sgids.add(sgid)
  }
  return [...sgids]
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

// What Webhook#payload sends one bot (§1.35's shape, with upstream's `type: "message"` first):
// paths, not URLs (the bot's messages path carries its key), the stored rich text, and the
// plain text without the bot's own @mention. The rich text is serialised once per message, so
// a message that many bots hear of is not re-encoded for each; the result is the JSON text of
// a WebhookPayload, keys in that order.
export function webhookJson(basis: MessageBasis, room: RoomRow, message: MessageRow, creator: { id: number; name: string }, target: WebhookTarget): string {
  const user = JSON.stringify({ id: creator.id, name: creator.name })
  const roomJson = JSON.stringify({ id: room.id, name: room.name, path: `/rooms/${room.id}/${target.botId}-${target.botToken ?? ''}/messages` })
  const plain = JSON.stringify(withoutMention(basis.plain, target.botName))
  const path = JSON.stringify(`/rooms/${room.id}/@${message.id}`)
  return `{"type":"message","user":${user},"room":${roomJson},"message":{"id":${message.id},"body":{"html":${basis.htmlJson},"plain":${plain}},"path":${path}}}`
}

// Every "@<bot name>" goes, then leading and trailing whitespace (Unicode spaces too).
export function withoutMention(plain: string, botName: string): string {
  return plain.split(`@${botName}`).join('').replace(/^\s+|\s+$/g, '')
}
