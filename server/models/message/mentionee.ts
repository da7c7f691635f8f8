import { OPENGRAPH_CONTENT_TYPE } from '../rich-text/index.ts'

// Message::Mentionee: whom a message's rich text mentions. Webhooks (mentioned bots) and Web
// Push (people who asked only for mentions) both read it from here.

// As upstream matches it (ActionText::Attachment::OpengraphEmbed.from_node): unanchored.
const OPENGRAPH_PATTERN = new RegExp(OPENGRAPH_CONTENT_TYPE)

// Checks a signed global id; the app's RailsSigning#verifySignedGlobalId.
export type VerifyGlobalId = (sgid: string) => { model: string; id: string } | null

// The people a body mentions (Message::Mentionee#mentioned_users): its attachments whose sgid
// verifies as a User, by sgid. Only signatures the server made count, so a member cannot name
// a bot by writing its id.
export function mentionsIn(html: string, verify: VerifyGlobalId): Map<string, number> {
  const mentions = new Map<string, number>()
  if (!html.includes('sgid')) return mentions
  for (const sgid of attachmentSgids(html)) {
    const found = verify(sgid)
    if (found && found.model === 'User' && /^\d+$/.test(found.id)) mentions.set(sgid, Number(found.id))
  }
  return mentions
}

// mentionedSgids for a stored body, without parsing it: a stored body is serialised HTML, where
// "<" never appears unescaped outside a tag and attribute values are double-quoted with "<", ">"
// and '"' escaped, so each <action-text-attachment …> tag is found whole by a pattern. The
// sgids of its attachments, each once, OpenGraph embeds left out, as mentionedSgids gives them.
const ATTACHMENT_TAG_PATTERN = /<action-text-attachment\b[^>]*>/gi
const ATTRIBUTE_PATTERN = /\s([^\s"'>\/=]+)="([^"]*)"/g

export function attachmentSgids(html: string): string[] {
  const sgids = new Set<string>()
  for (const [tag] of html.matchAll(ATTACHMENT_TAG_PATTERN)) {
    const attributes = new Map<string, string>()
    for (const [, name, value] of tag.matchAll(ATTRIBUTE_PATTERN)) if (!attributes.has(name!.toLowerCase())) attributes.set(name!.toLowerCase(), value!)
    const sgid = attributes.get('sgid')
    if (sgid && !OPENGRAPH_PATTERN.test(attributes.get('content-type') ?? '')) sgids.add(sgid)
  }
  return [...sgids]
}
