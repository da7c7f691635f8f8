import { attribute, findAll, hasClass, rubyStrip, textContent, type ElementNode, type HtmlNode } from './html.ts'
import { cleanFragment } from './clean.ts'
import { CONTENT_POLICY } from './policy.ts'
import { isOpengraphEmbed, type Attachment } from './attachments.ts'

export interface OpengraphEmbed { href?: string; url?: string; title?: string; description?: string }

// Trix stored an embed's details as attributes (href, url = image, filename = title, caption =
// description); Lexxy stores only its card HTML in "content", so the details are read from there.
export function opengraphEmbedOf(attachment: Attachment): OpengraphEmbed | null {
  if (!isOpengraphEmbed(attachment)) return null
  if (attachment.href) return { href: attachment.href, url: attachment.url, title: attachment.filename, description: attachment.caption }
  return fromContent(cleanFragment(attachment.content ?? '', CONTENT_POLICY))
}

function fromContent(nodes: readonly HtmlNode[]): OpengraphEmbed {
  const title = first(nodes, (node) => hasClass(node, 'og-embed__title'))
  const link = title && first(title.children, (node) => node.name === 'a')
  const image = first(findAll(nodes, (node) => hasClass(node, 'og-embed__image')), (node) => node.name === 'img')
  const description = first(nodes, (node) => hasClass(node, 'og-embed__description'))
  return {
    href: link && attribute(link, 'href'), url: image && attribute(image, 'src'),
    title: trimmedText(link ?? title), description: trimmedText(description),
  }
}

const first = (nodes: readonly HtmlNode[], match: (node: ElementNode) => boolean): ElementNode | undefined => findAll(nodes, match)[0]
const trimmedText = (node: ElementNode | undefined): string | undefined => node && rubyStrip(textContent(node.children))
