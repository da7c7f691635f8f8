import { cleanFragment } from './clean.ts'
import { element, rubyStrip, text, type ElementNode, type HtmlNode } from './html.ts'
import { attachmentFrom, isOpengraphEmbed, type Attachment } from './attachments.ts'
import { CONTENT_POLICY } from './policy.ts'

export type MentionNameResolver = (sgid: string) => string | null

// ActionText::Content#to_plain_text (actiontext/lib/action_text/plain_text_conversion.rb) as Campfire
// configures it. This is the text the search index holds, so it follows upstream closely, quirks included:
// trailing newlines are removed from every text node and from the result, but nothing else is trimmed.
export function plainText(html: string, resolveMentionName: MentionNameResolver): string {
  if (!/[<&\r\0]/.test(html)) return chomp(rubyStrip(html))
  return plainTextOf(cleanFragment(html), resolveMentionName)
}

export function plainTextOf(nodes: readonly HtmlNode[], resolveMentionName: MentionNameResolver): string {
  return chomp(reduce(expandAttachments(nodes, resolveMentionName), []))
}

// Each attachment becomes its attachable's plain text, in the order ActionText::Attachment.from_node
// looks attachables up: an OpenGraph embed is "", a user is "@Name" (User::Mentionable), a file is
// "[caption or filename]", HTML content is its own text, a remote image "[caption or Image]",
// and anything that no longer resolves is Action Text's missing-attachable mark.
function expandAttachments(nodes: readonly HtmlNode[], resolve: MentionNameResolver): HtmlNode[] {
  return nodes.flatMap((node): HtmlNode[] => {
    if (node.kind === 'text') return [node]
    if (node.name === 'action-text-attachment') return representation(attachmentFrom(node), resolve)
    return [element(node.name, node.attrs, expandAttachments(node.children, resolve))]
  })
}

function representation(attachment: Attachment, resolve: MentionNameResolver): HtmlNode[] {
  if (isOpengraphEmbed(attachment)) return []
  const name = attachment.sgid ? resolve(attachment.sgid) : null
  const caption = attachment.caption || undefined
  if (name !== null) return [text(`@${name}`)]
  if (attachment.sgid && attachment.filename) return [text(`[${caption ?? attachment.filename}]`)]
  if (/html/.test(attachment.contentType ?? '') && attachment.content) return cleanFragment(attachment.content, CONTENT_POLICY)
  if (/^image(\/.+|$)/.test(attachment.contentType ?? '') && /^([-a-z]+:\/\/|(cid|data):|\/\/)/i.test(attachment.url ?? '')) return [text(`[${caption ?? 'Image'}]`)]
  return [text('☒')]
}

function reduce(nodes: readonly HtmlNode[], lists: readonly string[]): string {
  let elementIndex = 0
  return nodes.map((node) => (node.kind === 'text' ? chomp(node.value) : elementText(node, elementIndex++, lists))).join('')
}

function elementText(node: ElementNode, index: number, lists: readonly string[]): string {
  const inner = (): string => reduce(node.children, node.name === 'ul' || node.name === 'ol' ? [...lists, node.name] : lists)
  switch (node.name) {
    case 'script': case 'style': return ''
    case 'p': case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return block(inner())
    case 'ul': case 'ol': return `${lists.length > 0 ? '\n' : ''}${block(inner())}`
    case 'br': return '\n'
    case 'div': return `${chomp(inner())}\n`
    case 'figcaption': return `[${chomp(inner())}]`
    case 'blockquote': return quote(block(inner()))
    case 'li': return `${'  '.repeat(Math.max(lists.length - 1, 0))}${lists.at(-1) === 'ol' ? `${index + 1}.` : '•'} ${chomp(inner())}\n`
    default: return inner()
  }
}

const chomp = (value: string): string => value.replace(/(\r?\n)+$/, '')
const block = (value: string): string => `${chomp(value)}\n\n`

function quote(value: string): string {
  if (/^\s*$/.test(value)) return '“”'
  const start = value.search(/[^ \t\r\n\f\v]/)
  const end = value.length - (/[ \t\r\n\f\v]*$/.exec(value)?.[0].length ?? 0)
  return `${value.slice(0, start)}“${value.slice(start, end)}”${value.slice(end)}`
}
