import type { ElementNode, HtmlNode } from './html.ts'

// The HTML fragment serialisation algorithm, with two choices made for safety and stability:
// "<" and ">" are escaped in attribute values too (the 2025 WHATWG change browsers now follow), and a
// <pre> whose text starts with a newline gets an extra one, because the parser drops the first.

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr'])
const LEADING_NEWLINE_DROPPED = new Set(['pre', 'listing', 'textarea'])

export type ElementHook = (node: ElementNode) => string | undefined

export const escapeText = (value: string): string =>
  value.replace(/[&<>\u00a0]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[char] ?? '&nbsp;')

export const escapeAttribute = (value: string): string =>
  value.replace(/[&<>"\u00a0]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char] ?? '&nbsp;')

export function serialize(nodes: readonly HtmlNode[], hook?: ElementHook): string {
  return nodes.map((node) => (node.kind === 'text' ? escapeText(node.value) : serializeElement(node, hook))).join('')
}

function serializeElement(node: ElementNode, hook?: ElementHook): string {
  const replaced = hook?.(node)
  if (replaced !== undefined) return replaced
  const open = `<${node.name}${node.attrs.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('')}>`
  if (VOID.has(node.name)) return open
  return `${open}${leadingNewline(node)}${serialize(node.children, hook)}</${node.name}>`
}

function leadingNewline(node: ElementNode): string {
  const first = node.children[0]
  return LEADING_NEWLINE_DROPPED.has(node.name) && first?.kind === 'text' && first.value.startsWith('\n') ? '\n' : ''
}
