import { escapeText } from '../../models/rich-text/serialize.ts'
import { emojiFor } from './emoji.ts'
import { mrkdwnToHtml, type MrkdwnLinks } from './mrkdwn.ts'
import { anchor, record, records, slackTime, string, unwrapParagraph, type Json } from './shapes.ts'

export interface BlockLinks extends MrkdwnLinks {
  // A user group's handle ("@designers"), which exports know only from messages' text.
  usergroup(id: string): string
}

// Slack's Block Kit `blocks` as rich text: rich_text (sections, lists, quotes and preformatted
// text, with their styled text, links, people, channels, emoji, user groups and broadcasts),
// section (its text and fields), context, header, divider, image, actions' link buttons,
// video and file blocks. Interactive inputs have nothing to show and are left out.
export function blocksToHtml(value: unknown, links: BlockLinks): string {
  return records(value).map((block) => blockToHtml(block, links)).join('')
}

function blockToHtml(block: Json, links: BlockLinks): string {
  switch (block.type) {
    case 'rich_text': return richText(records(block.elements), links)
    case 'section': return section(block, links)
    case 'context': return context(block, links)
    case 'header': return string(record(block.text).text, 3000) ? `<h3>${plain(record(block.text))}</h3>` : ''
    case 'divider': return '<hr>'
    case 'image': return imageLink(block)
    case 'actions': return buttons(block.elements)
    case 'video': return `<p>${anchor(block.title_url ?? block.video_url, string(record(block.title).text, 1000) ?? string(block.alt_text, 1000) ?? 'Video')}</p>`
    case 'file': return string(block.external_id, 255) ? `<p><em>${escapeText('a file shared from elsewhere')}</em></p>` : ''
    default: return ''
  }
}

function richText(elements: Json[], links: BlockLinks): string {
  let html = ''
  for (let i = 0; i < elements.length;) {
    if (isList(elements[i])) {
      const [list, next] = listRun(elements, i, links)
      html += list
      i = next
    } else html += richElement(elements[i++]!, links)
  }
  return html
}

const isList = (element: Json | undefined): boolean => element?.type === 'rich_text_list'
const indentOf = (element: Json | undefined): number => (typeof element?.indent === 'number' ? element.indent : 0)

// Lists at one indent, each followed by the deeper lists Slack writes after it (as separate
// elements with a higher `indent`), which are nested in its last item; one list per run of a style.
function listRun(elements: Json[], start: number, links: BlockLinks): [string, number] {
  const indent = indentOf(elements[start])
  let html = ''
  let open = null as { tag: string; items: string[] } | null
  const close = () => {
    if (open && open.items.length > 0) html += `<${open.tag}>${open.items.map((item) => `<li>${item}</li>`).join('')}</${open.tag}>`
    open = null
  }
  let i = start
  while (isList(elements[i]) && indentOf(elements[i]) === indent) {
    const element = elements[i++]!
    const tag = element.style === 'ordered' ? 'ol' : 'ul'
    if (open?.tag !== tag) {
      close()
      open = { tag, items: [] }
    }
    const current: { items: string[] } = open!
    current.items.push(...records(element.elements).map((item) => inlines(item.elements, links)))
    if (isList(elements[i]) && indentOf(elements[i]) > indent) {
      const [nested, next] = listRun(elements, i, links)
      if (current.items.length === 0) current.items.push('')
      current.items[current.items.length - 1] += nested
      i = next
    }
  }
  close()
  return [html, i]
}

function richElement(element: Json, links: BlockLinks): string {
  switch (element.type) {
    case 'rich_text_section': return paragraphs(inlines(element.elements, links))
    case 'rich_text_quote': return `<blockquote>${inlines(element.elements, links)}</blockquote>`
    case 'rich_text_preformatted': return `<pre>${records(element.elements).map((inline) => escapeText(inlineText(inline, links))).join('')}</pre>`
    case 'rich_text_list': return listRun([element], 0, links)[0]
    default: return ''
  }
}

// A section's line breaks become <br>; blank lines, new paragraphs.
function paragraphs(html: string): string {
  return html.split(/(?:<br>){2,}/).map((part) => part.replace(/^(<br>)+|(<br>)+$/g, '')).filter((part) => part.trim() !== '').map((part) => `<p>${part}</p>`).join('')
}

function inlines(value: unknown, links: BlockLinks): string {
  return records(value).map((inline) => inlineHtml(inline, links)).join('')
}

function inlineHtml(inline: Json, links: BlockLinks): string {
  const style = record(inline.style)
  let html: string
  switch (inline.type) {
    case 'text': html = escapeText(typeof inline.text === 'string' ? inline.text : '').replaceAll('\n', '<br>'); break
    case 'link': html = anchor(inline.url, string(inline.text) ?? null); break
    case 'user': html = typeof inline.user_id === 'string' ? (links.mention(inline.user_id) ?? escapeText(`@${inline.user_id}`)) : ''; break
    case 'channel': html = typeof inline.channel_id === 'string' ? links.channel(inline.channel_id, undefined) : ''; break
    default: html = escapeText(inlineText(inline, links))
  }
  if (html === '') return ''
  if (style.code === true) html = `<code>${html}</code>`
  if (style.strike === true) html = `<del>${html}</del>`
  if (style.italic === true) html = `<em>${html}</em>`
  if (style.bold === true) html = `<strong>${html}</strong>`
  return html
}

// The text an inline element shows, for preformatted blocks and the elements that are text only.
function inlineText(inline: Json, links: BlockLinks): string {
  switch (inline.type) {
    case 'text': return typeof inline.text === 'string' ? inline.text : ''
    case 'link': return string(inline.text) ?? (typeof inline.url === 'string' ? inline.url : '')
    case 'user': return typeof inline.user_id === 'string' ? `@${inline.user_id}` : ''
    case 'channel': return typeof inline.channel_id === 'string' ? `#${inline.channel_id}` : ''
    case 'emoji': return emoji(inline)
    case 'usergroup': return typeof inline.usergroup_id === 'string' ? links.usergroup(inline.usergroup_id) : ''
    case 'broadcast': return typeof inline.range === 'string' && /^(here|channel|everyone)$/.test(inline.range) ? `@${inline.range}` : ''
    case 'date': return string(inline.fallback, 255) ?? slackTime(inline.timestamp)?.text ?? ''
    case 'color': return string(inline.value, 32) ?? ''
    default: return ''
  }
}

function emoji(inline: Json): string {
  const name = typeof inline.name === 'string' ? inline.name.slice(0, 100) : ''
  const tone = typeof inline.skin_tone === 'number' && inline.skin_tone >= 2 && inline.skin_tone <= 6 ? `::skin-tone-${inline.skin_tone}` : ''
  const unicode = typeof inline.unicode === 'string' && /^[0-9a-f]{2,6}(-[0-9a-f]{2,6})*$/i.test(inline.unicode)
    ? String.fromCodePoint(...inline.unicode.split('-').map((hex) => parseInt(hex, 16))) : null
  return emojiFor(name + tone) ?? unicode ?? (name ? `:${name}:` : '')
}

// A text object: mrkdwn as Slack formats it, plain_text as it is (emoji names turned to emoji).
function textObject(value: unknown, links: BlockLinks): string {
  const object = record(value)
  const text = string(object.text)
  if (!text) return ''
  return object.type === 'mrkdwn' ? mrkdwnToHtml(text, links) : `<p>${plain(object)}</p>`
}

function plain(object: Json): string {
  const text = typeof object.text === 'string' ? object.text : ''
  const shown = object.emoji === false ? text : text.replace(/:([a-z0-9_+'-]+(?:::skin-tone-[2-6])?):/g, (whole, name: string) => emojiFor(name) ?? whole)
  return escapeText(shown).replaceAll('\n', '<br>')
}

function section(block: Json, links: BlockLinks): string {
  const fields = records(block.fields).map((field) => `<li>${unwrapParagraph(textObject(field, links))}</li>`)
  const accessory = record(block.accessory)
  const extra = accessory.type === 'image' ? imageLink(accessory) : accessory.type === 'button' ? buttons([accessory]) : ''
  return textObject(block.text, links) + (fields.length > 0 ? `<ul>${fields.join('')}</ul>` : '') + extra
}

function context(block: Json, links: BlockLinks): string {
  const pieces = records(block.elements).map((element) => (element.type === 'image' ? escapeText(string(element.alt_text, 255) ?? '') : unwrapParagraph(textObject(element, links))))
    .filter((piece) => piece !== '')
  return pieces.length > 0 ? `<p><small>${pieces.join(' ')}</small></p>` : ''
}

function imageLink(block: Json): string {
  const label = string(record(block.title).text, 1000) ?? string(block.alt_text, 1000) ?? 'Image'
  return string(block.image_url, 4000) ? `<p>${anchor(block.image_url, `Image: ${label}`)}</p>` : ''
}

function buttons(value: unknown): string {
  const found = records(value).flatMap((element) => (element.type === 'button' && string(element.url, 4000) ? [anchor(element.url, string(record(element.text).text, 255) ?? 'Open')] : []))
  return found.length > 0 ? `<p>${found.join(' · ')}</p>` : ''
}
