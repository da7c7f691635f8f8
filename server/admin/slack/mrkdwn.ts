import { escapeAttribute, escapeText } from '../../models/rich-text/serialize.ts'
import { emojiFor } from './emoji.ts'

// Slack's message text ("mrkdwn") as rich text of the kind the composer stores. Slack escapes
// "&", "<" and ">" in a message's text, so every "<…>" left in it is Slack's own markup: a
// user, a channel, a special mention or a link. Anything else in angle brackets (a hostile
// export's <script>) is kept as the text it is, escaped. The result is sanitised again by the
// caller, as every body is.
export interface MrkdwnLinks {
  // A mention's HTML (an <action-text-attachment>), or null for a person the import does not know.
  mention(slackUserId: string): string | null
  // The HTML for a channel reference: a link to its room, or its name.
  channel(slackChannelId: string, label: string | undefined): string
}

const FENCE = /```([\s\S]*?)```/g
const PLACEHOLDER = /\u0000(\d+)\u0000/g
const SPECIAL = /<([^<>\n]{1,4000})>/g
const CODE_SPAN = /`([^`\n]+)`/g
const SHORT_NAME = /:([a-z0-9_+'-]+(?:::skin-tone-[2-6])?):/g
const URL_SCHEME = /^(https?:\/\/|mailto:)/i

// formatted: false reads the text as Slack reads a legacy attachment's field that mrkdwn_in does
// not name: links, mentions and emoji, and lines, but no emphasis, code, quotes or lists.
export function mrkdwnToHtml(text: string, links: MrkdwnLinks, formatted = true): string {
  const clean = text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
  if (!formatted) return unformatted(clean, links)
  const html: string[] = []
  let last = 0
  for (const match of clean.matchAll(FENCE)) {
    html.push(blocks(clean.slice(last, match.index), links))
    const code = match[1]!.replace(/^\n/, '').replace(/\n$/, '')
    if (code !== '') html.push(`<pre>${escapeText(decodeEntities(code.replace(SPECIAL, (_, inner: string) => linkText(inner))))}</pre>`)
    last = match.index + match[0].length
  }
  html.push(blocks(clean.slice(last), links))
  return html.join('')
}

function unformatted(text: string, links: MrkdwnLinks): string {
  return text.split(/\n{2,}/).filter((paragraph) => paragraph.trim() !== '')
    .map((paragraph) => `<p>${paragraph.split('\n').map((line) => inline(line, links, false)).join('<br>')}</p>`).join('')
}

type Block = { kind: 'p' | 'blockquote' | 'ul' | 'ol'; lines: string[] }

const QUOTE = /^&gt;\s?/
const QUOTE_REST = /^&gt;&gt;&gt;\s?/
const BULLET = /^\s*[•◦▪▸\-*]\s+/
const NUMBERED = /^\s*\d{1,4}[.)]\s+/

// Paragraphs (separated by blank lines, their lines by <br>), quotes and lists, line by line.
function blocks(text: string, links: MrkdwnLinks): string {
  const found: Block[] = []
  let quotingRest = false
  for (const line of text.split('\n')) {
    let kind: Block['kind'] = 'p'
    let content = line
    if (quotingRest || QUOTE_REST.test(line)) {
      kind = 'blockquote'
      if (!quotingRest) content = line.replace(QUOTE_REST, '')
      quotingRest = true
    } else if (QUOTE.test(line)) [kind, content] = ['blockquote', line.replace(QUOTE, '')]
    else if (BULLET.test(line) && !/^\s*\*\S/.test(line)) [kind, content] = ['ul', line.replace(BULLET, '')]
    else if (NUMBERED.test(line)) [kind, content] = ['ol', line.replace(NUMBERED, '')]
    if (kind === 'p' && line.trim() === '') {
      found.push({ kind: 'p', lines: [] })
      continue
    }
    const previous = found.at(-1)
    if (previous && previous.kind === kind && (kind !== 'p' || previous.lines.length > 0)) previous.lines.push(content)
    else found.push({ kind, lines: [content] })
  }
  return found
    .filter((block) => block.lines.length > 0)
    .map((block) => {
      const lines = block.lines.map((line) => inline(line, links))
      if (block.kind === 'ul' || block.kind === 'ol') return `<${block.kind}>${lines.map((line) => `<li>${line}</li>`).join('')}</${block.kind}>`
      return `<${block.kind}>${lines.join('<br>')}</${block.kind}>`
    })
    .join('')
}

// One line: code spans and Slack's <…> markup set aside first (formatting does not reach into
// them), then the text escaped and emphasised, then the set-aside pieces put back.
function inline(line: string, links: MrkdwnLinks, formatted = true): string {
  const kept: string[] = []
  const keep = (html: string) => `\u0000${kept.push(html) - 1}\u0000`
  let text = !formatted ? line : line.replace(CODE_SPAN, (_, code: string) => keep(`<code>${escapeText(decodeEntities(code.replace(SPECIAL, (__, inner: string) => linkText(inner))))}</code>`))
  text = text.replace(SPECIAL, (_, inner: string) => keep(special(inner, links)))
  text = escapeText(decodeEntities(text).replace(SHORT_NAME, (whole, name: string) => emojiFor(name) ?? whole))
  if (formatted) text = emphasise(text)
  return text.replace(PLACEHOLDER, (_, index: string) => kept[Number(index)] ?? '')
}

const BEFORE = "(^|[\\s(\\[{'\"‘“\\u0000])"
const AFTER = "(?=$|[\\s.,;:!?)\\]}'\"’”\\u0000])"
const EMPHASIS: [RegExp, string][] = [
  [new RegExp(`${BEFORE}\\*(?=\\S)([^*\\n]*?\\S)\\*${AFTER}`, 'g'), 'strong'],
  [new RegExp(`${BEFORE}_(?=\\S)([^_\\n]*?\\S)_${AFTER}`, 'g'), 'em'],
  [new RegExp(`${BEFORE}~(?=\\S)([^~\\n]*?\\S)~${AFTER}`, 'g'), 'del'],
]

function emphasise(text: string): string {
  return EMPHASIS.reduce((result, [pattern, tag]) => result.replace(pattern, `$1<${tag}>$2</${tag}>`), text)
}

function special(inner: string, links: MrkdwnLinks): string {
  const bar = inner.indexOf('|')
  const target = bar === -1 ? inner : inner.slice(0, bar)
  const label = bar === -1 ? undefined : decodeEntities(inner.slice(bar + 1))
  if (target.startsWith('@')) return links.mention(target.slice(1)) ?? escapeText(`@${label ?? target.slice(1)}`)
  if (target.startsWith('#')) return links.channel(target.slice(1), label)
  if (target.startsWith('!')) return escapeText(label ?? (/^!(here|channel|everyone)$/.test(target) ? `@${target.slice(1)}` : target.slice(1)))
  const url = decodeEntities(target)
  if (URL_SCHEME.test(url) && !/\s/.test(url)) return `<a href="${escapeAttribute(url)}">${escapeText(label ?? url.replace(/^mailto:/i, ''))}</a>`
  return escapeText(`<${decodeEntities(inner)}>`)
}

// A link as text, inside code, where Slack shows the address or label without making a link.
function linkText(inner: string): string {
  const bar = inner.indexOf('|')
  const target = bar === -1 ? inner : inner.slice(0, bar)
  if (bar !== -1) return inner.slice(bar + 1)
  return URL_SCHEME.test(decodeEntities(target)) ? target : `&lt;${inner}&gt;`
}

export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>' })[name]!)
}

// The first words of a message's text, for a thread reply's quote of its parent.
export function textStart(text: string, length = 80): string {
  const flat = decodeEntities(text.replace(SPECIAL, (_, inner: string) => {
    const bar = inner.indexOf('|')
    return bar === -1 ? inner.replace(/^[@#!]/, '') : inner.slice(bar + 1)
  })).replace(/[*_~`>]/g, '').replace(/\s+/g, ' ').trim()
  return flat.length > length ? `${flat.slice(0, length - 1).trimEnd()}…` : flat
}
