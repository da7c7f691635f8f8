import { element, parseHtml, rubyStrip, text, type Attr, type HtmlNode, type Parse5Node } from './html.ts'
import { ATTACHMENT_TAG } from './names.ts'
import { allowsAttribute, BODY_POLICY, CONTENT_POLICY, DROPPED_WITH_CONTENT, RENAMED, type Policy } from './policy.ts'
import { serialize } from './serialize.ts'
import { trixAttachmentAttributes } from './trix.ts'

// Parses HTML and keeps only what the policy allows. Comments and foreign (SVG/MathML) content are
// dropped; attachments lose their inner HTML, as Action Text's minification does before storing.
// strict: a tree nested too deeply throws NestingTooDeep rather than being flattened.
export function cleanFragment(html: string, policy: Policy = BODY_POLICY, options: { strict?: boolean } = {}): HtmlNode[] {
  return normalizeText(parseHtml(rubyStrip(html), options).flatMap((node) => cleanNode(node, policy)))
}

// An attachment's "content" is HTML, JSON-encoded by Lexxy and raw from Trix; it is cleaned in the same form.
export function cleanContent(value: string): string {
  const json = parseJsonString(value)
  const cleaned = serialize(cleanFragment(json ?? value, CONTENT_POLICY))
  return json === undefined ? cleaned : JSON.stringify(cleaned)
}

export function parseJsonString(value: string): string | undefined {
  if (!value.startsWith('"')) return undefined
  try {
    const parsed: unknown = JSON.parse(value)
    return typeof parsed === 'string' ? parsed : undefined
  } catch {
    return undefined
  }
}

function cleanNode(node: Parse5Node, policy: Policy): HtmlNode[] {
  if (node.nodeName === '#text' && 'value' in node) return [text(node.value)]
  if (!('tagName' in node) || node.namespaceURI !== 'http://www.w3.org/1999/xhtml') return []
  const attrs = node.attrs.map(({ name, value }): Attr => [name, value])
  const trixJson = attrs.find(([name]) => name === 'data-trix-attachment')?.[1]
  if (trixJson !== undefined && policy.tags.has(ATTACHMENT_TAG)) return trixAttachment(trixJson, attrs, policy)
  const children = (): HtmlNode[] => normalizeText(node.childNodes.flatMap((child) => cleanNode(child, policy)))
  if (node.tagName === ATTACHMENT_TAG && policy.tags.has(ATTACHMENT_TAG)) return [element(ATTACHMENT_TAG, cleanAttrs(ATTACHMENT_TAG, attrs, policy))]
  if (policy.tags.has(node.tagName)) return [element(node.tagName, cleanAttrs(node.tagName, attrs, policy), children())]
  if (DROPPED_WITH_CONTENT.has(node.tagName)) return []
  const renamed = RENAMED[node.tagName]
  return renamed === undefined ? children() : [element(renamed, cleanAttrs(renamed, attrs, policy), children())]
}

function trixAttachment(json: string, attrs: readonly Attr[], policy: Policy): HtmlNode[] {
  const converted = trixAttachmentAttributes(json, attrs.find(([name]) => name === 'data-trix-attributes')?.[1])
  return converted.length === 0 ? [] : [element(ATTACHMENT_TAG, cleanAttrs(ATTACHMENT_TAG, converted, policy))]
}

function cleanAttrs(tag: string, attrs: readonly Attr[], policy: Policy): Attr[] {
  return attrs.flatMap(([name, value]): Attr[] => {
    if (!allowsAttribute(policy, tag, name, value)) return []
    return [[name, tag === ATTACHMENT_TAG && name === 'content' ? cleanContent(value) : value]]
  })
}

// Merges neighbouring text nodes and drops empty ones, so equal markup always gives equal trees.
function normalizeText(nodes: readonly HtmlNode[]): HtmlNode[] {
  const merged: HtmlNode[] = []
  for (const node of nodes) {
    const last = merged[merged.length - 1]
    if (node.kind === 'text' && last?.kind === 'text') merged[merged.length - 1] = text(last.value + node.value)
    else if (node.kind === 'element' || node.value !== '') merged.push(node)
  }
  return merged
}
