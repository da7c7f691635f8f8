import type { ExportMessage } from '../../models/export/rows.ts'
import { escapeHtml } from '../templates.ts'
import { messageRecord, type MessageRecord } from './records.ts'

// rooms/<id>.html: the room as a page that opens from the unpacked zip with no server and makes
// no request: the style is inline, a Content-Security-Policy allows nothing from elsewhere, and
// each message is its plain text (mentions as @Name), so no stored markup, script or remote image
// reaches the page. Attachments are links to their files beside it in the zip.
const POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; media-src 'self'"

const STYLE = `
  body { font: 16px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 48rem; padding: 1rem; color: #1d1d1f; background: #fff; }
  h1 { font-size: 1.5rem; }
  article { border-top: 1px solid #ddd; padding: 0.5rem 0; }
  header { display: flex; gap: 0.75rem; align-items: baseline; }
  header strong { font-weight: 600; }
  time { color: #666; font-size: 0.85rem; }
  .body { white-space: pre-wrap; overflow-wrap: anywhere; }
  .boosts, .attachments { list-style: none; padding: 0; margin: 0.25rem 0 0; display: flex; flex-wrap: wrap; gap: 0.5rem; font-size: 0.9rem; }
  .boosts li { background: #f2f2f2; border-radius: 1rem; padding: 0 0.5rem; }
  .attachments img { max-width: 16rem; max-height: 16rem; display: block; }
  @media (prefers-color-scheme: dark) { body { background: #1d1d1f; color: #eee; } article { border-color: #444; } time { color: #aaa; } .boosts li { background: #333; } }
`

export function* roomHtml(title: string, exportedAt: string, messages: Iterable<ExportMessage>): Generator<string> {
  yield `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="${POLICY}">\n`
  yield `<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${escapeHtml(title)}</title>\n<style>${STYLE}</style>\n</head>\n<body>\n`
  yield `<h1>${escapeHtml(title)}</h1>\n<p>Exported ${escapeHtml(exportedAt)} (times in UTC).</p>\n<main>\n`
  for (const row of messages) yield messageHtml(messageRecord(row))
  yield '</main>\n</body>\n</html>\n'
}

function messageHtml(message: MessageRecord): string {
  const when = message.created_at.replace('T', ' ').replace(/\.\d+Z$/, '')
  const parts = [
    `<article id="message_${message.id}">\n<header><strong>${escapeHtml(message.author.name ?? 'Unknown')}</strong> <time datetime="${message.created_at}">${when}</time></header>\n`,
    `<div class="body">${escapeHtml(message.text)}</div>\n`,
  ]
  if (message.attachments.length > 0) parts.push(`<ul class="attachments">${message.attachments.map(attachmentHtml).join('')}</ul>\n`)
  if (message.boosts.length > 0) {
    const boosts = message.boosts.map((b) => `<li>${escapeHtml(b.content)} <span>${escapeHtml(b.by.name ?? 'Unknown')}</span></li>`)
    parts.push(`<ul class="boosts" aria-label="Boosts">${boosts.join('')}</ul>\n`)
  }
  parts.push('</article>\n')
  return parts.join('')
}

function attachmentHtml(attachment: MessageRecord['attachments'][number]): string {
  const href = `../${attachment.path.split('/').map(encodeURIComponent).join('/')}`
  const image = /^image\/(png|jpeg|gif|webp)$/.test(attachment.content_type ?? '') ? `<img src="${escapeHtml(href)}" alt="${escapeHtml(attachment.filename)}">` : escapeHtml(attachment.filename)
  return `<li><a href="${escapeHtml(href)}">${image}</a></li>`
}
