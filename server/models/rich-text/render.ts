import { cleanFragment } from './clean.ts'
import { rubyStrip } from './html.ts'
import { attachmentFrom, isAttachmentElement, type Attachment } from './attachments.ts'
import { autoLink } from './autolink.ts'
import { serialize } from './serialize.ts'
import { removeSoloUnfurledLinkText, styleUnfurledTwitterAvatars } from './unfurled-links.ts'

export interface RenderOptions {
  // Returns trusted HTML for an attachment (a mention's avatar and name, an embed's card), or null to leave it out.
  renderAttachment: (attachment: Attachment) => string | null
}

// Upstream's message presentation: the ContentFilters chain (solo unfurled link text, Twitter avatars,
// tag and attribute sanitising), attachments rendered in place, URLs auto-linked, all inside Action
// Text's content layout. The body is sanitised again here because the database may hold HTML that
// another process wrote, such as the original Rails app.
export function renderBody(html: string, options: RenderOptions): string {
  if (!/[<>&\r\0\u00a0@]|:\/\/|www\./i.test(html)) return layout(rubyStrip(html))
  const nodes = autoLink(styleUnfurledTwitterAvatars(removeSoloUnfurledLinkText(cleanFragment(html))))
  return layout(serialize(nodes, (node) => (isAttachmentElement(node) ? (options.renderAttachment(attachmentFrom(node)) ?? '') : undefined)))
}

// app/views/layouts/action_text/contents/_content.html.erb around actiontext's contents/_content partial.
const layout = (content: string): string => `<div class="trix-content">\n  ${content}\n</div>\n`
