import { escapeText } from '../../models/rich-text/serialize.ts'
import { mentionAttachmentHtml, NestingTooDeep, plainText, sanitizeBody } from '../../models/rich-text/index.ts'
import { MAX_BODY_LENGTH } from '../../routes/messages/body.ts'
import { attachmentsToHtml } from './attachments.ts'
import { blocksToHtml, type BlockLinks } from './blocks.ts'
import type { ImportContext } from './context.ts'
import type { SlackFile } from './files.ts'
import { mrkdwnToHtml } from './mrkdwn.ts'
import { record, string, type Json } from './shapes.ts'

export interface Composed {
  html: string
  plainText: string
}

// What Slack wrote itself when a file was shared or commented on, before 2019: the file's own
// message stands in for it.
const SHARED_FILE = /^<@[A-Z0-9]+(?:\|[^>]*)?> (?:uploaded|shared) a file: <[^>]*>(?: and commented: ([\s\S]*))?$/
const FILE_COMMENT = /^<@[A-Z0-9]+(?:\|[^>]*)?> commented on [\s\S]*?file <[^>]*>: ([\s\S]*)$/

// A message's body as sanitised rich text: the quote of a thread's parent, then its blocks when
// they show anything (Slack shows them instead of the text) or else its text, then its legacy
// attachments, then a note for each file the export does not hold. Null when nothing shows.
export function composeBody(context: ImportContext, message: Json, missing: SlackFile[], quote: string): Composed | null {
  const raw = messageText(message)
  let source = raw
  if (source.length > MAX_BODY_LENGTH) {
    source = source.slice(0, MAX_BODY_LENGTH)
    context.report.count('truncated')
  }
  const links = linksFor(context, raw)
  const notes = missing.map((file) => `<p><em>${escapeText(`a file that was not in the export: ${file.name}`)}</em></p>`).join('')
  const blocks = blocksToHtml(message.blocks, links)
  const main = blocks !== '' && visible(blocks) ? blocks : mrkdwnToHtml(source, links)
  const html = quote + commentedFile(message) + main + attachmentsToHtml(message.attachments, links) + notes
  let body: string
  try {
    body = sanitizeBody(html.length > MAX_BODY_LENGTH * 4 ? `<p>${escapeText(source)}</p>` : html)
  } catch (error) {
    if (!(error instanceof NestingTooDeep)) throw error
    context.report.refuse(`a message nested too deeply (${source.slice(0, 40)}…)`)
    body = sanitizeBody(`<p>${escapeText(source)}</p>`)
  }
  const plain = plainText(body, (sgid) => mentionedName(context, sgid))
  if (plain.trim() === '' && !body.includes('<action-text-attachment')) return null
  return { html: body, plainText: plain }
}

function messageText(message: Json): string {
  const text = typeof message.text === 'string' ? message.text : ''
  if (message.subtype === 'file_share') {
    const shared = SHARED_FILE.exec(text)
    if (shared) return shared[1] ?? string(record(record(message.file).initial_comment).comment) ?? ''
  }
  if (message.subtype === 'file_comment') return string(record(message.comment).comment) ?? FILE_COMMENT.exec(text)?.[1] ?? text
  return text
}

// A file comment opens by naming the file it is about.
function commentedFile(message: Json): string {
  if (message.subtype !== 'file_comment') return ''
  const file = record(message.file)
  const name = string(file.name, 255) ?? string(file.title, 255)
  return name ? `<p><em>${escapeText(`On the file ${name}:`)}</em></p>` : ''
}

const visible = (html: string) => /<(action-text-attachment|hr)\b/.test(html) || html.replace(/<[^>]*>/g, '').trim() !== ''

function linksFor(context: ImportContext, raw: string): BlockLinks {
  // A user group's handle is known only from the text's <!subteam^ID|@handle>.
  const groups = new Map([...raw.matchAll(/<!subteam\^([A-Z0-9]+)\|([^>]{1,255})>/g)].map((match) => [match[1]!, match[2]!]))
  return {
    mention: (slackId) => {
      const id = context.people.get(slackId)
      return id === undefined || id < 0 ? null : mentionAttachmentHtml(context.signing.signedGlobalId('User', id))
    },
    channel: (slackId, label) => {
      const room = context.rooms.get(slackId)
      return room && room.id > 0 ? `<a href="/rooms/${room.id}">#${escapeText(room.name)}</a>` : escapeText(`#${label ?? slackId}`)
    },
    usergroup: (id) => groups.get(id) ?? '@group',
  }
}

function mentionedName(context: ImportContext, sgid: string): string | null {
  const found = context.signing.verifySignedGlobalId(sgid)
  return found && found.model === 'User' ? (context.names.get(Number(found.id)) ?? null) : null
}
