import { parse, parseFragment } from 'parse5'

// OpenGraph attributes from an HTML document, read with a real (tolerant) HTML parser.

export const TITLE_LIMIT = 280
export const DESCRIPTION_LIMIT = 560

export interface OpengraphAttributes {
  title?: string
  description?: string
  image?: string
  url?: string
}

interface Node {
  nodeName: string
  tagName?: string
  value?: string
  attrs?: { name: string; value: string }[]
  childNodes?: Node[]
  content?: Node
}

function attribute(node: Node, name: string): string | undefined {
  return node.attrs?.find((a) => a.name === name)?.value
}

// Elements whose contents are code or markup, not text.
const OPAQUE = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'noembed', 'noframes', 'xmp', 'svg', 'math'])

function textOf(node: Node): string {
  if (node.nodeName === '#text') return node.value ?? ''
  if (node.tagName && OPAQUE.has(node.tagName)) return ''
  return (node.childNodes ?? []).map(textOf).join('')
}

function walk(node: Node, visit: (node: Node) => void): void {
  visit(node)
  for (const child of node.childNodes ?? []) walk(child, visit)
}

// Plain text: any markup inside the value is dropped (entities are already decoded by the
// parser), whitespace collapsed, and the length capped.
export function plainText(value: string, limit: number): string {
  const text = textOf(parseFragment(value) as unknown as Node)
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
  const chars = Array.from(text)
  return chars.length > limit ? chars.slice(0, limit - 1).join('') + '…' : text
}

export function parseOpengraph(html: string): OpengraphAttributes {
  const document = parse(html) as unknown as Node
  const og: Record<string, string> = {}
  let title: string | undefined
  let metaDescription: string | undefined
  walk(document, (node) => {
    if (node.tagName === 'title' && title === undefined) title = textOf(node)
    if (node.tagName !== 'meta') return
    const content = attribute(node, 'content')
    if (!content || content.trim() === '') return
    const key = (attribute(node, 'property') ?? attribute(node, 'name') ?? '').trim().toLowerCase()
    if (key.startsWith('og:')) {
      const name = key.slice(3)
      if (!(name in og)) og[name] = content.trim()
    } else if (key === 'description' && metaDescription === undefined) {
      metaDescription = content
    }
  })
  const result: OpengraphAttributes = {}
  const chosenTitle = og.title ?? title
  if (chosenTitle !== undefined) {
    const text = plainText(chosenTitle, TITLE_LIMIT)
    if (text) result.title = text
  }
  const chosenDescription = og.description ?? metaDescription
  if (chosenDescription !== undefined) {
    const text = plainText(chosenDescription, DESCRIPTION_LIMIT)
    if (text) result.description = text
  }
  if (og.image) result.image = og.image
  else if (og['image:url']) result.image = og['image:url']
  if (og.url) result.url = og.url
  return result
}
