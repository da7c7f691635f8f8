import type { BoostRow } from '../models/boost.ts'
import type { MessageDisplay, Person } from '../models/message/display.ts'
import { plainText, type MentionNameResolver } from '../models/rich-text/index.ts'
import { parseDbTime } from '../lib/time.ts'

// The bot API's JSON, shaped as upstream's jbuilder views (messages/_message, boosts/_boost,
// users/_user): absolute URLs, times in UTC with milliseconds.
export interface JsonContext {
  origin: string
  bodyHtml: (message: MessageDisplay) => string
  avatarPath: (person: Pick<Person, 'id' | 'updated_at'>) => string
  mentionName: MentionNameResolver
}

const ROLE_NAMES = ['member', 'administrator', 'bot'] as const

// Time#utc as JSON: ISO 8601 with three decimals, truncated.
export function jsonTime(value: string): string {
  return new Date(Math.floor(parseDbTime(value) ?? 0)).toISOString()
}

export function personJson(context: JsonContext, person: Person) {
  return { id: person.id, name: person.name, role: ROLE_NAMES[person.role] ?? 'member', avatar_url: context.origin + context.avatarPath(person) }
}

export function messageUrl(origin: string, message: { id: number; room_id: number }): string {
  return `${origin}/rooms/${message.room_id}/messages/${message.id}`
}

// Message#plain_text_body: the body's text, else the attachment's filename, else "".
function plainTextBody(context: JsonContext, message: MessageDisplay): string {
  const text = plainText(message.body ?? '', context.mentionName)
  if (text.trim() !== '') return text
  return message.attachment?.filename ?? ''
}

export function messageJson(context: JsonContext, message: MessageDisplay) {
  return {
    id: message.id,
    created_at: jsonTime(message.created_at),
    body: { plain_text: plainTextBody(context, message), html: context.bodyHtml(message) },
    creator: personJson(context, message.creator),
    room: { id: message.room_id },
    url: messageUrl(context.origin, message),
  }
}

export function boostJson(context: JsonContext, boost: BoostRow, booster: Person, message: { id: number; room_id: number }) {
  return {
    id: boost.id,
    content: boost.content,
    created_at: jsonTime(boost.created_at),
    booster: personJson(context, booster),
    message: { id: message.id, url: messageUrl(context.origin, message) },
  }
}
