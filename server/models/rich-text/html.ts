import { defaultTreeAdapter, html as parse5Html, parseFragment, type DefaultTreeAdapterTypes } from 'parse5'

// A small immutable node model. Bodies are parsed once with parse5 (the WHATWG algorithm, as browsers and
// Action Text's Nokogiri::HTML5 do), cleaned into these nodes, and serialised by the function below.

export type Attr = readonly [name: string, value: string]
export interface ElementNode { readonly kind: 'element'; readonly name: string; readonly attrs: readonly Attr[]; readonly children: readonly HtmlNode[] }
export interface TextNode { readonly kind: 'text'; readonly value: string }
export type HtmlNode = ElementNode | TextNode
export type Parse5Node = DefaultTreeAdapterTypes.ChildNode

export const element = (name: string, attrs: readonly Attr[] = [], children: readonly HtmlNode[] = []): ElementNode =>
  ({ kind: 'element', name, attrs, children })

export const text = (value: string): TextNode => ({ kind: 'text', value })

export const attribute = (node: ElementNode, name: string): string | undefined =>
  node.attrs.find(([key]) => key === name)?.[1]

// Ruby's String#strip, which Action Text applies to the HTML before parsing it.
export const rubyStrip = (value: string): string => value.replace(/^[\0\t\n\v\f\r ]+|[\0\t\n\v\f\r ]+$/g, '')

// How deep elements may nest: Nokogiri::HTML5's default max_tree_depth, which Action Text parses
// with. Every walk over a tree here recurses, so nothing deeper may reach one.
export const MAX_NESTING = 400

export class NestingTooDeep extends Error {
  constructor() {
    super(`The HTML nests elements more than ${MAX_NESTING} deep.`)
  }
}

// strict: throw NestingTooDeep for a tree deeper than MAX_NESTING (the write path refuses it).
// Otherwise such a tree is flattened, as Chrome's parser does at 512: an element at the limit
// keeps all its descendants, in document order, as childless children of its own. Nothing is
// lost but the structure, so HTML another process stored still renders.
export function parseHtml(html: string, options: { strict?: boolean } = {}): Parse5Node[] {
  const context = defaultTreeAdapter.createElement('div', parse5Html.NS.HTML, [])
  const nodes = parseFragment(context, html, { scriptingEnabled: true }).childNodes
  if (limitNesting(nodes) && options.strict) throw new NestingTooDeep()
  return nodes
}

type Parse5Parent = DefaultTreeAdapterTypes.ParentNode

// Whether the tree was deeper than MAX_NESTING (and so has been flattened). Iterative, as the
// whole point is that the tree may be too deep for recursion.
function limitNesting(nodes: Parse5Node[]): boolean {
  let flattened = false
  const pending: Array<[Parse5Node, number]> = nodes.map((node) => [node, 1])
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!
    if (!('childNodes' in node) || node.childNodes.length === 0) continue
    if (depth < MAX_NESTING) {
      for (const child of node.childNodes) pending.push([child, depth + 1])
      continue
    }
    const descendants = descendantsOf(node)
    if (descendants.length === node.childNodes.length) continue
    flattened = true
    for (const descendant of descendants) descendant.parentNode = node as Parse5Parent
    node.childNodes = descendants
  }
  return flattened
}

// Every node under this one in document order, each element emptied of its children.
function descendantsOf(root: Parse5Node): Parse5Node[] {
  const out: Parse5Node[] = []
  const pending: Parse5Node[] = 'childNodes' in root ? [...root.childNodes].reverse() : []
  while (pending.length > 0) {
    const node = pending.pop()!
    out.push(node)
    if ('childNodes' in node && node.childNodes.length > 0) {
      for (let i = node.childNodes.length - 1; i >= 0; i--) pending.push(node.childNodes[i]!)
      node.childNodes = []
    }
  }
  return out
}

export function textContent(nodes: readonly HtmlNode[]): string {
  return nodes.map((node) => (node.kind === 'text' ? node.value : textContent(node.children))).join('')
}

export function findAll(nodes: readonly HtmlNode[], match: (node: ElementNode) => boolean): ElementNode[] {
  return nodes.flatMap((node) => (node.kind === 'text' ? [] : [...(match(node) ? [node] : []), ...findAll(node.children, match)]))
}

// Rebuilds the tree with every matching element replaced by what `replace` returns (matches are not descended into).
export function replaceAll(nodes: readonly HtmlNode[], match: (node: ElementNode) => boolean, replace: (node: ElementNode) => HtmlNode[]): HtmlNode[] {
  return nodes.flatMap((node) => {
    if (node.kind === 'text') return [node]
    return match(node) ? replace(node) : [element(node.name, node.attrs, replaceAll(node.children, match, replace))]
  })
}

export function hasClass(node: ElementNode, name: string): boolean {
  return (attribute(node, 'class') ?? '').split(/[\t\n\f\r ]+/).includes(name)
}
