import { parseHtml, type Parse5Node } from './html.ts'

// A URL attribute is kept only when it is relative or uses a listed scheme. The scheme is read the way
// Loofah reads it for Rails' safe-list sanitizer, only stricter: entities are decoded once more (the
// parser already decoded them once), then all whitespace and control characters are removed and the
// result is lower-cased, so "jav&#x09;ascript:", " JAVASCRIPT:" and "java\0script:" are all caught.

export const LINK_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'mailto'])
export const WEB_SCHEMES: ReadonlySet<string> = new Set(['http', 'https'])

// Anything before a ":" that comes ahead of any "/", "?" or "#" counts as a scheme, even when a browser
// would not read it as one ("java\uFFFDscript:"), so only listed schemes and plainly relative URLs pass.
export function isSafeUrl(value: string, schemes: ReadonlySet<string>): boolean {
  const normalized = normalizeUrl(value)
  const end = normalized.search(/[:/?#]/)
  return end === -1 || normalized[end] !== ':' || schemes.has(normalized.slice(0, end))
}

export function normalizeUrl(value: string): string {
  return decodeEntities(value).replace(/[\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202f\u2060-\u206f\ufeff]/g, '').toLowerCase()
}

function decodeEntities(value: string): string {
  return value.includes('&') ? parseHtml(value.replace(/</g, '&lt;')).map(textOf).join('') : value
}

const textOf = (node: Parse5Node): string => ('value' in node ? node.value : '')
