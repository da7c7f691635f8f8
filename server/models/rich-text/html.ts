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

export function parseHtml(html: string): Parse5Node[] {
  const context = defaultTreeAdapter.createElement('div', parse5Html.NS.HTML, [])
  return parseFragment(context, html, { scriptingEnabled: true }).childNodes
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
