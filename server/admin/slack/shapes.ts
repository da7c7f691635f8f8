import { escapeAttribute, escapeText } from '../../models/rich-text/serialize.ts'

// Reading the loosely typed JSON of a message's attachments and blocks: every value is checked
// for its type where it is used, and anything else is read as absent.
export type Json = Record<string, unknown>

export const record = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {})
export const records = (value: unknown): Json[] => (Array.isArray(value) ? value.filter((item): item is Json => typeof item === 'object' && item !== null && !Array.isArray(item)) : [])
export const string = (value: unknown, limit = 100_000): string | null => (typeof value === 'string' && value.trim() !== '' ? value.slice(0, limit) : null)

const WEB_ADDRESS = /^(https?:\/\/|mailto:)\S+$/i

// A link when the address is one a message may link to (web or mail), else the label as text.
export function anchor(url: unknown, label: string | null, labelHtml?: string): string {
  const address = typeof url === 'string' ? url.trim() : ''
  const inner = labelHtml ?? escapeText(label ?? address.replace(/^mailto:/i, ''))
  return WEB_ADDRESS.test(address) ? `<a href="${escapeAttribute(address)}">${inner}</a>` : inner
}

// A paragraph's inside when the HTML is exactly one paragraph, so a short value can sit in a line.
export function unwrapParagraph(html: string): string {
  const match = /^<p>((?:(?!<\/?p>)[\s\S])*)<\/p>$/.exec(html)
  return match ? match[1]! : html
}

// A Slack ts (seconds, maybe with a fraction) as a UTC date and time, for an attachment's footer.
export function slackTime(value: unknown): { iso: string; text: string } | null {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^\d{9,11}(\.\d+)?$/.test(value) ? Number(value) : NaN
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 1e11) return null
  const date = new Date(seconds * 1000)
  return { iso: date.toISOString(), text: `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` }
}
