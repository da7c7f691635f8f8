import { element, text, type Attr, type HtmlNode } from './html.ts'

// Turns bare URLs and e-mail addresses in text into links, as the rails_autolink gem's auto_link does for
// Campfire's message presentation: same patterns, same trailing-punctuation rule. Unlike upstream,
// text inside links, <code> and <pre> is left alone, and links also get rel="noopener noreferrer".

const SKIPPED = new Set(['a', 'code', 'pre', 'action-text-attachment'])
const URL_PATTERN = /(?:(https?:)\/\/|www\.\w)[^\s<\u00a0"]+/giu
const EMAIL_PATTERN = /[\w.!#$%+-]\.?[\w.!#$%&'*/=?^`{|}~+-]*@[\w-]+(?:\.[\w-]+)+/g
const CLOSING_BRACKETS: Readonly<Record<string, string>> = { ']': '[', ')': '(', '}': '{' }
const LINK_ATTRIBUTES: readonly Attr[] = [['target', '_blank'], ['rel', 'noopener noreferrer']]

export function autoLink(nodes: readonly HtmlNode[]): HtmlNode[] {
  return nodes.flatMap((node): HtmlNode[] => {
    if (node.kind === 'text') return mightLink(node.value) ? linkUrls(node.value) : [node]
    return SKIPPED.has(node.name) ? [node] : [element(node.name, node.attrs, autoLink(node.children))]
  })
}

// A cheap test that lets almost every message skip the patterns.
const mightLink = (value: string): boolean => /:\/\/|www\.|@/i.test(value)

function linkUrls(value: string): HtmlNode[] {
  return splitMatches(value, URL_PATTERN, (match, scheme) => {
    const [url, trailing] = withoutTrailingPunctuation(match)
    return [link(scheme ? url : `http://${url}`, url), ...(trailing ? [text(trailing)] : [])]
  }, linkEmails)
}

function linkEmails(value: string): HtmlNode[] {
  return value.includes('@') ? splitMatches(value, EMAIL_PATTERN, (email) => [link(`mailto:${email}`, email)], (rest) => [text(rest)]) : [text(value)]
}

function splitMatches(value: string, pattern: RegExp, linked: (match: string, group?: string) => HtmlNode[], between: (text: string) => HtmlNode[]): HtmlNode[] {
  const matches = [...value.matchAll(pattern)]
  const ends = matches.map((match) => match.index + match[0].length)
  const pieces = matches.flatMap((match, i) => [...gap(value.slice(ends[i - 1] ?? 0, match.index), between), ...linked(match[0], match[1])])
  return [...pieces, ...gap(value.slice(ends.at(-1) ?? 0), between)]
}

const gap = (value: string, between: (text: string) => HtmlNode[]): HtmlNode[] => (value === '' ? [] : between(value))
const link = (href: string, label: string): HtmlNode => element('a', [['href', href], ...LINK_ATTRIBUTES], [text(label)])

// Drops trailing characters that are not word characters, "/" to "=", or "&", but keeps a closing bracket
// that balances an opening one in the URL.
function withoutTrailingPunctuation(url: string): [string, string] {
  const last = /[^\p{L}\p{M}\p{Nd}\p{Pc}/-=&]$/u.exec(url)?.[0]
  if (last === undefined) return [url, '']
  const rest = url.slice(0, -last.length)
  const opening = CLOSING_BRACKETS[last]
  if (opening !== undefined && count(rest, opening) > count(rest, last)) return [url, '']
  const [kept, trailing] = withoutTrailingPunctuation(rest)
  return [kept, trailing + last]
}

const count = (value: string, char: string): number => value.split(char).length - 1
