import { attribute, findAll, type ElementNode } from './html.ts'
import { cleanFragment, parseJsonString } from './clean.ts'
import { ATTACHMENT_TAG, MENTION_CONTENT_TYPE, OPENGRAPH_CONTENT_TYPE } from './names.ts'
import { escapeAttribute } from './serialize.ts'

export { ATTACHMENT_ATTRIBUTES, ATTACHMENT_TAG, MENTION_CONTENT_TYPE, OPENGRAPH_CONTENT_TYPE } from './names.ts'

// An <action-text-attachment>'s attributes after cleaning. `content` is the preview HTML, already
// decoded from the JSON string Lexxy stores it as.
export interface Attachment {
  sgid?: string; contentType?: string; url?: string; href?: string; filename?: string; filesize?: string; width?: string
  height?: string; previewable?: string; presentation?: string; caption?: string; content?: string
}

export function attachmentsIn(html: string): Attachment[] {
  return findAll(cleanFragment(html), isAttachmentElement).map(attachmentFrom)
}

export const isAttachmentElement = (node: ElementNode): boolean => node.name === ATTACHMENT_TAG

export function attachmentFrom(node: ElementNode): Attachment {
  const read = (name: string): Partial<Record<keyof Attachment, string>> => {
    const value = attribute(node, name)
    const key = name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) as keyof Attachment
    return value === undefined ? {} : { [key]: name === 'content' ? (parseJsonString(value) ?? value) : value }
  }
  return Object.assign({}, ...node.attrs.map(([name]) => read(name))) as Attachment
}

// Upstream matches the content type against the constant as an unanchored pattern
// (ActionText::Attachment::OpengraphEmbed.from_node), so the same is done here.
const OPENGRAPH_PATTERN = new RegExp(OPENGRAPH_CONTENT_TYPE)
export const isOpengraphEmbed = (attachment: Attachment): boolean => OPENGRAPH_PATTERN.test(attachment.contentType ?? '')
export const isMention = (attachment: Attachment): boolean => attachment.contentType === MENTION_CONTENT_TYPE

// The sgids a body points at, each once, in order; Message::Mentionee keeps those that resolve to
// room members, whatever the content type says.
export function mentionedSgids(html: string): string[] {
  const sgids = attachmentsIn(html).filter((a) => !isOpengraphEmbed(a)).flatMap((a) => (a.sgid ? [a.sgid] : []))
  return [...new Set(sgids)]
}

// The element Action Text stores for a mention inserted by the composer (see test/test_helpers/mention_test_helper.rb).
export function mentionAttachmentHtml(sgid: string, content?: string): string {
  const contentAttribute = content === undefined ? '' : ` content="${escapeAttribute(content)}"`
  return `<${ATTACHMENT_TAG} sgid="${escapeAttribute(sgid)}" content-type="${MENTION_CONTENT_TYPE}"${contentAttribute}></${ATTACHMENT_TAG}>`
}
