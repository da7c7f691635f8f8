import { element, findAll, replaceAll, type Attr, type ElementNode, type HtmlNode } from './html.ts'
import { attachmentFrom, isAttachmentElement, isOpengraphEmbed } from './attachments.ts'
import { opengraphEmbedOf } from './opengraph.ts'
import { plainTextOf } from './plain-text.ts'

// Ports of Campfire's ContentFilters::RemoveSoloUnfurledLinkText and StyleUnfurledTwitterAvatars
// (app/helpers/content_filters/), applied to the cleaned tree before it is rendered.

const isUnfurledLink = (node: ElementNode): boolean => isAttachmentElement(node) && isOpengraphEmbed(attachmentFrom(node))

// When the whole message is one pasted URL, show only its embed. Trix bodies wrap the text in a
// <div>, whose content becomes the embed alone; Lexxy bodies put the link in a <p> of its own,
// which is removed (the Lexxy-era version of the filter).
export function removeSoloUnfurledLinkText(nodes: HtmlNode[]): HtmlNode[] {
  const links = findAll(nodes, isUnfurledLink)
  const solo = links.length === 1 ? links[0] : undefined
  if (solo === undefined) return nodes
  const href = opengraphEmbedOf(attachmentFrom(solo))?.href
  if (href === undefined || normalizeTweetUrl(href) !== normalizeTweetUrl(plainTextOf(nodes, () => null))) return nodes
  if (findAll(nodes, (node) => node.name === 'div').length > 0) return replaceAll(nodes, (node) => node.name === 'div', (div) => [element('div', div.attrs, [solo])])
  return replaceAll(nodes, (node) => node.name === 'p', (p) => (findAll(p.children, isAttachmentElement).length > 0 ? [p] : []))
}

const TWITTER_AVATAR_URL_PREFIX = 'https://pbs.twimg.com/profile_images'

// Upstream sets the class on the first <div> of the body, which in a Trix body wraps the embed.
export function styleUnfurledTwitterAvatars(nodes: HtmlNode[]): HtmlNode[] {
  const avatar = findAll(nodes, isUnfurledLink).some((node) => opengraphEmbedOf(attachmentFrom(node))?.url?.includes(TWITTER_AVATAR_URL_PREFIX))
  const firstDiv = avatar ? findAll(nodes, (node) => node.name === 'div')[0] : undefined
  if (firstDiv === undefined) return nodes
  const attrs: Attr[] = [...firstDiv.attrs.filter(([name]) => name !== 'class'), ['class', 'cf-twitter-avatar']]
  return replaceAll(nodes, (node) => node === firstDiv, (div) => [element('div', attrs, div.children)])
}

// twitter.com and x.com links compare equal whatever the host spelling and query string.
export function normalizeTweetUrl(url: string): string {
  if (!/x\.com|twitter\.com/.test(url.trim())) return url
  const parts = /^([a-z][a-z0-9+.-]*:\/\/)(?:([^@/?#\s]*)@)?([^:/?#\s]*)(:\d*)?([^?#\s]*)(\?[^#\s]*)?(#\S*)?$/i.exec(url)
  if (parts === null) return url
  const [, scheme = '', userinfo, host = '', port = '', path = '', , fragment = ''] = parts
  const mappedHost = host.toLowerCase() === 'x.com' ? 'twitter.com' : host
  return `${scheme}${userinfo === undefined ? '' : `${userinfo}@`}${mappedHost}${port}${path}${fragment}`
}
