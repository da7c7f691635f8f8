import type { Eta } from 'eta'
import type { Helpers } from './helpers/index.ts'
import type { RailsSigning } from '../lib/rails/signing.ts'
import type { MessageDisplay, Person } from '../models/message/display.ts'
import { isAllEmoji, MENTION_CONTENT_TYPE, opengraphEmbedOf, plainText, renderBody, soundFor, type Attachment } from '../models/rich-text/index.ts'
import { renderOpengraphEmbed } from './helpers/opengraph.ts'
import { blobPath, renderAttachment } from './helpers/attachments.ts'
import { escapeHtml } from './templates.ts'

export interface MessageRendererDeps {
  eta: Eta
  helpers: Helpers
  signing: RailsSigning
  findPeople: (ids: number[]) => Person[]
  // The served URL of a built asset (sound cards are drawn by server/build/sound-images.ts).
  assetPath?: (name: string) => string
}

// Message HTML is the same for every viewer (permalinks are absolute, so the origin is part
// of it); whatever depends on the viewer is applied in the browser, as upstream does.
export function createMessageRenderer(deps: MessageRendererDeps) {
  const { eta, helpers, signing } = deps

  function mentionedPerson(sgid: string): number | null {
    const verified = signing.verifySignedGlobalId(sgid)
    const found = verified ?? unverifiedGlobalId(sgid)
    return found && found.model === 'User' && /^\d+$/.test(found.id) ? Number(found.id) : null
  }

  function renderMention(person: Person, sgid: string): string {
    // Inline (a span, with no white space of its own), so the mention stays inside its sentence:
    // upstream's div.mention inside a <p> makes the HTML parser close the paragraph there.
    return `<span class="mention" sgid="${escapeHtml(sgid)}" data-user-id="${person.id}">${eta.render('/users/_avatar', { h: helpers, user: person, decorative: true }).trim()}${escapeHtml(person.name)}</span>`
  }

  function textPresentation(message: MessageDisplay): string {
    const html = message.body ?? ''
    const mentions = new Map<string, number>()
    for (const match of html.matchAll(/sgid="([^"]+)"/g)) {
      const id = mentionedPerson(match[1]!)
      if (id !== null) mentions.set(match[1]!, id)
    }
    const people = new Map(mentions.size > 0 ? deps.findPeople([...new Set(mentions.values())]).map((p) => [p.id, p]) : [])
    return belowTheMessageHeading(renderBody(html, {
      renderAttachment(attachment: Attachment) {
        const embed = opengraphEmbedOf(attachment)
        if (embed) return renderOpengraphEmbed(embed)
        if (attachment.contentType !== MENTION_CONTENT_TYPE || !attachment.sgid) return null
        const person = people.get(mentions.get(attachment.sgid) ?? -1)
        return person ? renderMention(person, attachment.sgid) : null
      },
    }))
  }

  function attachmentPresentation(message: MessageDisplay): string {
    return renderAttachment(signing, message.attachment!)
  }

  function soundPresentation(sound: NonNullable<ReturnType<typeof soundFor>>): string {
    const image = sound.image ? sound.image.file.replace(/\.webp$/, '.svg') : ''
    const visual = sound.image
      ? `<img src="${escapeHtml(deps.assetPath ? deps.assetPath(image) : `/${image}`)}" width="${sound.image.width}" height="${sound.image.height}" class="align--middle" alt="${escapeHtml(sound.name)}">`
      : escapeHtml(sound.text ?? '')
    // The audio is synthesized in the browser (public/js/models/sound_synth.ts) from the name.
    return `<div class="sound" data-controller="sound" data-action="messages:play->sound#play" data-sound-name-value="${escapeHtml(sound.name)}"><button type="button" class="btn btn--plain" data-action="sound#play" aria-label="Play ${escapeHtml(sound.name)}">🔊</button>${visual}</div>`
  }

  function presentation(message: MessageDisplay): { html: string; emoji: boolean } {
    if (message.attachment) return { html: attachmentPresentation(message), emoji: false }
    const text = plainText(message.body ?? '', () => null)
    const sound = soundFor(text)
    if (sound) return { html: soundPresentation(sound), emoji: false }
    return { html: textPresentation(message), emoji: isAllEmoji(text) }
  }

  function render(message: MessageDisplay, origin: string): string {
    const permalink = `/rooms/${message.room_id}/@${message.id}`
    const { html, emoji } = presentation(message)
    return eta.render('/messages/_message', {
      h: helpers,
      message,
      emoji,
      presentation: html,
      permalink,
      permalinkUrl: origin + permalink,
      attachmentUrl: message.attachment ? blobPath(signing, message.attachment, 'attachment') : '#',
    })
  }

  return {
    render,
    // Message#body.to_s: the body alone, rendered inside Action Text's layout (the bot API's JSON).
    bodyHtml: textPresentation,
    // messages/_presentation alone, for the live replace after an edit.
    renderPresentation(message: MessageDisplay): string {
      return eta.render('/messages/_presentation', { h: helpers, message, presentation: presentation(message).html })
    },
    renderBoost: (boost: MessageDisplay['boosts'][number]): string => eta.render('/messages/boosts/_boost', { h: helpers, boost }),
    renderAll: (messages: MessageDisplay[], origin: string): string => messages.map((m) => render(m, origin)).join(''),
  }
}

export type MessageRenderer = ReturnType<typeof createMessageRenderer>

// Upstream still shows a mention whose signature no longer verifies (after a secret
// rotation), for User records only; it is display, never authorisation.
export function unverifiedGlobalId(sgid: string): { model: string; id: string } | null {
  const envelope = parseJsonObject(decodeBase64(sgid.split('--')[0] ?? ''))
  const rails = envelope?._rails
  if (typeof rails !== 'object' || rails === null) return null
  const { data, message } = rails as { data?: unknown; message?: unknown }
  // Rails 7.1+ signs the GlobalID as JSON data; Rails 7 Marshal-dumped it into `message`. That
  // dump is never loaded (its signature is not checked): the GlobalID is read out of its bytes.
  const gid = typeof data === 'string' ? data : typeof message === 'string' ? decodeBase64(message) : ''
  const match = /gid:\/\/campfire\/(User)\/(\d+)/.exec(gid)
  return match ? { model: match[1]!, id: match[2]! } : null
}

// Base64, strict or URL-safe (Node's decoder reads both alphabets), as text ('' when it is neither).
function decodeBase64(text: string): string {
  return /^[A-Za-z0-9+/_-]*={0,2}$/.test(text) ? Buffer.from(text, 'base64').toString('latin1') : ''
}

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

// Headings written in a message rank below the message's own h3 (its author): an h1 becomes an
// h4, an h2 an h5, anything deeper an h6. The page keeps one outline (the room's h1, the day's h2,
// each message's h3), and what the person wrote stays a heading. The body is serialised HTML, whose
// text and attribute values escape "<", so every "<h" here opens or closes a tag.
function belowTheMessageHeading(html: string): string {
  return html.replace(/<(\/?)h([1-6])(?=[\s>])/g, (_, slash: string, level: string) => `<${slash}h${Math.min(Number(level) + 3, 6)}`)
}
