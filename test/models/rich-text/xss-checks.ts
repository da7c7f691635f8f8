import { defaultTreeAdapter, html as parse5Html, parseFragment, type DefaultTreeAdapterTypes } from 'parse5'

// Independent checks for the XSS corpus: parse the output the way a browser would and report anything
// dangerous that survived. Returns a list of problems (empty when the HTML is safe).

type Node = DefaultTreeAdapterTypes.ChildNode
const URL_ATTRIBUTES = new Set(['href', 'src', 'url', 'cite', 'action', 'formaction', 'xlink:href', 'poster', 'background', 'data', 'srcset', 'srcdoc'])
const DANGEROUS_SCHEMES = ['javascript:', 'data:', 'vbscript:']

export function parse(html: string): Node[] {
  const context = defaultTreeAdapter.createElement('div', parse5Html.NS.HTML, [])
  return parseFragment(context, html, { scriptingEnabled: true }).childNodes
}

export function problemsIn(html: string, allowedTags: ReadonlySet<string>): string[] {
  return parse(html).flatMap((node) => problemsOf(node, allowedTags))
}

function problemsOf(node: Node, allowedTags: ReadonlySet<string>): string[] {
  if (!('tagName' in node)) return []
  const own = [
    ...(node.namespaceURI === parse5Html.NS.HTML ? [] : [`foreign element <${node.tagName}>`]),
    ...(allowedTags.has(node.tagName) ? [] : [`element <${node.tagName}> is not allowed`]),
    ...node.attrs.flatMap(({ name, value }) => attributeProblems(node.tagName, name, value)),
  ]
  const template = 'content' in node ? (node.content as DefaultTreeAdapterTypes.DocumentFragment).childNodes : []
  return [...own, ...[...node.childNodes, ...template].flatMap((child) => problemsOf(child, allowedTags))]
}

function attributeProblems(tag: string, name: string, value: string): string[] {
  const lower = name.toLowerCase()
  if (lower.startsWith('on')) return [`<${tag}> has handler ${name}`]
  if (lower === 'style') return [`<${tag}> has a style attribute`]
  if (URL_ATTRIBUTES.has(lower) && DANGEROUS_SCHEMES.some((scheme) => normalizedUrl(value).startsWith(scheme))) return [`<${tag} ${name}="${value}">`]
  return []
}

function normalizedUrl(value: string): string {
  const decoded = parse(value.replace(/</g, '&lt;')).map((node) => ('value' in node ? node.value : '')).join('')
  return decoded.replace(/[\s\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase()
}

// The preview HTML held in an attachment's "content" attribute, as Lexxy (JSON) or Trix (raw) wrote it.
export function attachmentContents(html: string): string[] {
  const contents = (node: Node): string[] => {
    if (!('tagName' in node)) return []
    const own = node.tagName === 'action-text-attachment' ? node.attrs.filter(({ name }) => name === 'content').map(({ value }) => decodeContent(value)) : []
    return [...own, ...node.childNodes.flatMap(contents)]
  }
  return parse(html).flatMap(contents)
}

function decodeContent(value: string): string {
  try {
    const parsed: unknown = JSON.parse(value)
    return typeof parsed === 'string' ? parsed : value
  } catch {
    return value
  }
}
