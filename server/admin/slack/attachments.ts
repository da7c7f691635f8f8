import { escapeAttribute, escapeText } from '../../models/rich-text/serialize.ts'
import { blocksToHtml, type BlockLinks } from './blocks.ts'
import { mrkdwnToHtml } from './mrkdwn.ts'
import { anchor, records, slackTime, string, unwrapParagraph, type Json } from './shapes.ts'

// Slack's legacy message attachments (the `attachments` array every integration of the 2010s
// posts with, and link and message unfurls) as rich text that reads like Slack shows them: the
// pretext above, then a quote holding the author, a linked title, the text, the fields as a
// small list, the image's link, the buttons' links and the footer with its time; the fallback
// when nothing else is there. The colour bar has no place in rich text and is left out.
export function attachmentsToHtml(value: unknown, links: BlockLinks): string {
  return records(value).map((attachment) => attachmentToHtml(attachment, links)).join('')
}

function attachmentToHtml(attachment: Json, links: BlockLinks): string {
  const formatted = new Set(Array.isArray(attachment.mrkdwn_in) ? attachment.mrkdwn_in.filter((name) => typeof name === 'string') : [])
  const mrkdwn = (field: string, value: string) => mrkdwnToHtml(value, links, formatted.has(field))
  const pretext = string(attachment.pretext)
  const parts = [
    author(attachment),
    title(attachment),
    string(attachment.text) ? mrkdwn('text', string(attachment.text)!) : '',
    fields(attachment, (value) => unwrapParagraph(mrkdwn('fields', value))),
    blocksToHtml(attachment.blocks, links),
    image(attachment),
    actions(attachment),
    footer(attachment, links),
  ].filter((part) => part !== '')
  const fallback = string(attachment.fallback)
  if (parts.length === 0 && !pretext && fallback) parts.push(mrkdwnToHtml(fallback, links, false))
  const quote = parts.length > 0 ? `<blockquote>${parts.join('')}</blockquote>` : ''
  return (pretext ? mrkdwn('pretext', pretext) : '') + quote
}

// The author (or, for a link's preview, the site it came from), small, above the title.
function author(attachment: Json): string {
  const name = string(attachment.author_name, 255)
  const subname = string(attachment.author_subname, 255)
  const service = string(attachment.service_name, 255)
  const pieces: string[] = []
  if (name) pieces.push(anchor(attachment.author_link, name))
  if (subname) pieces.push(escapeText(subname))
  if (!name && service) pieces.push(anchor(attachment.service_url ?? attachment.from_url, service))
  return pieces.length > 0 ? `<p><small>${pieces.join(' · ')}</small></p>` : ''
}

function title(attachment: Json): string {
  const text = string(attachment.title, 1000)
  return text ? `<p><strong>${anchor(attachment.title_link, text)}</strong></p>` : ''
}

function fields(attachment: Json, html: (value: string) => string): string {
  const items = records(attachment.fields).flatMap((field) => {
    const name = string(field.title, 1000)
    const value = string(field.value)
    if (!name && !value) return []
    const label = name ? `<strong>${escapeText(name)}</strong>` : ''
    return [`<li>${label}${name && value ? ': ' : ''}${value ? html(value) : ''}</li>`]
  })
  return items.length > 0 ? `<ul>${items.join('')}</ul>` : ''
}

// Pictures are not fetched: the image (or its thumbnail) becomes a link to where Slack had it.
function image(attachment: Json): string {
  const url = string(attachment.image_url, 4000) ?? string(attachment.thumb_url, 4000)
  if (!url) return ''
  const name = fileName(url)
  return `<p>${anchor(url, `Image: ${name || url}`)}</p>`
}

function actions(attachment: Json): string {
  const buttons = records(attachment.actions).flatMap((action) => {
    const label = string(action.text, 255)
    return label && string(action.url, 4000) ? [anchor(action.url, label)] : []
  })
  return buttons.length > 0 ? `<p>${buttons.join(' · ')}</p>` : ''
}

function footer(attachment: Json, links: BlockLinks): string {
  const text = string(attachment.footer, 1000)
  const time = slackTime(attachment.ts)
  const pieces = [text ? mrkdwnToHtml(text, links, false) : '', time ? `<time datetime="${escapeAttribute(time.iso)}">${escapeText(time.text)}</time>` : '']
    .map(unwrapParagraph).filter((piece) => piece !== '')
  return pieces.length > 0 ? `<p><small>${pieces.join(' · ')}</small></p>` : ''
}

function fileName(url: string): string {
  const last = url.replace(/[?#].*$/, '').split('/').pop() ?? ''
  try {
    return decodeURIComponent(last).trim()
  } catch {
    return last
  }
}
