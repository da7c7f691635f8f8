import { ATTACHMENT_TAG } from './names.ts'
import { isSafeUrl, LINK_SCHEMES, WEB_SCHEMES } from './urls.ts'

// What may survive in a message body. The tag list is Campfire's ContentFilters::SanitizeTags::ALLOWED_TAGS
// (app/helpers/content_filters/sanitize_tags.rb). Table tags are not on it, and Action Text's own
// sanitizer (Rails' safe list plus action-text-attachment, figure, figcaption) does not allow them either.
export const ALLOWED_TAGS: ReadonlySet<string> = new Set([
  'a', 'abbr', 'acronym', 'address', 'b', 'big', 'blockquote', 'br', 'cite', 'code', 'dd', 'del', 'dfn', 'div', 'dl', 'dt',
  'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'ins', 'kbd', 'li', 'ol', 'p', 'pre', 'samp', 'small', 'span', 'strong',
  'sub', 'sup', 'time', 'tt', 'ul', 'var', ATTACHMENT_TAG, 'figure', 'figcaption',
])

// Removed together with everything inside them: active content, embedded documents, forms and media.
export const DROPPED_WITH_CONTENT: ReadonlySet<string> = new Set([
  'script', 'style', 'iframe', 'frame', 'frameset', 'noframes', 'object', 'embed', 'applet', 'param', 'noembed', 'noscript',
  'template', 'slot', 'portal', 'form', 'input', 'textarea', 'select', 'option', 'optgroup', 'datalist', 'button', 'output',
  'keygen', 'meta', 'link', 'base', 'head', 'title', 'xmp', 'plaintext', 'img', 'image', 'picture', 'source', 'track',
  'video', 'audio', 'canvas', 'map', 'area', 'dialog', 'marquee', 'svg', 'math',
])

// Unknown containers that end an open paragraph keep their text as a block; any other unknown element
// is unwrapped. Renaming only paragraph-closing elements keeps the output stable when parsed again.
export const RENAMED: Readonly<Record<string, string>> = {
  table: 'div', caption: 'div', tr: 'div', td: 'div', th: 'div',
  section: 'div', article: 'div', aside: 'div', header: 'div', footer: 'div', nav: 'div', main: 'div', hgroup: 'div',
  search: 'div', center: 'div', details: 'div', summary: 'div', fieldset: 'div', menu: 'ul', dir: 'ul', listing: 'pre',
}

type Rule = (value: string) => boolean
export interface Policy { readonly tags: ReadonlySet<string>; readonly attributes: Readonly<Record<string, Readonly<Record<string, Rule>>>> }

const any: Rule = () => true
const link: Rule = (value) => isSafeUrl(value, LINK_SCHEMES)
const web: Rule = (value) => isSafeUrl(value, WEB_SCHEMES)
const matching = (pattern: RegExp): Rule => (value) => pattern.test(value)
const digits = matching(/^\d*$/)

const GLOBAL = { class: any, title: any, lang: matching(/^[a-z0-9-]*$/i), datetime: any }

// The attributes Action Text keeps on an attachment; "content" is cleaned separately (see clean.ts).
const ATTACHMENT = {
  sgid: matching(/^[A-Za-z0-9+/=_-]+$/), 'content-type': matching(/^[\w!#$&^.+-]+\/[\w!#$&^.+-]+$/), url: web, href: link,
  filename: any, filesize: digits, width: digits, height: digits, previewable: matching(/^(true|false)$/),
  presentation: matching(/^[a-z-]*$/), caption: any, content: any,
}

// Lexxy marks a code block with the language picked for it (<pre data-language="ruby">); Lexxy's
// Rails engine adds data-language to Action Text's allowed attributes, and the client highlights by it.
const CODE_LANGUAGE = matching(/^[a-z0-9+#_-]{1,32}$/i)

export const BODY_POLICY: Policy = {
  tags: ALLOWED_TAGS,
  attributes: {
    '*': GLOBAL, a: { href: link }, blockquote: { cite: web }, del: { cite: web }, ins: { cite: web }, pre: { 'data-language': CODE_LANGUAGE },
    [ATTACHMENT_TAG]: ATTACHMENT,
  },
}

// An attachment's "content" is the editor's preview of it (a mention's avatar and name, an embed's card).
export const CONTENT_POLICY: Policy = {
  tags: new Set([...[...ALLOWED_TAGS].filter((tag) => tag !== ATTACHMENT_TAG), 'img', 'actiontext-opengraph-embed']),
  attributes: {
    '*': GLOBAL, div: { sgid: ATTACHMENT.sgid }, span: { sgid: ATTACHMENT.sgid },
    a: { href: link, rel: matching(/^[a-z ]*$/), target: matching(/^_(blank|top|self)$/) },
    img: { src: web, alt: any, width: digits, height: digits },
  },
}

export function allowsAttribute(policy: Policy, tag: string, name: string, value: string): boolean {
  const rule = policy.attributes[tag]?.[name] ?? policy.attributes['*']?.[name]
  return rule !== undefined && rule(value)
}
