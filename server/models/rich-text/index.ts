export { sanitizeBody } from './sanitize.ts'
export { NestingTooDeep } from './html.ts'
export { renderBody, type RenderOptions } from './render.ts'
export { plainText, type MentionNameResolver } from './plain-text.ts'
export {
  attachmentsIn, mentionAttachmentHtml, mentionedSgids, isMention, isOpengraphEmbed, type Attachment,
  ATTACHMENT_TAG, ATTACHMENT_ATTRIBUTES, MENTION_CONTENT_TYPE, OPENGRAPH_CONTENT_TYPE,
} from './attachments.ts'
export { opengraphEmbedOf, type OpengraphEmbed } from './opengraph.ts'
export { ALLOWED_TAGS } from './policy.ts'
export { isAllEmoji } from './emoji.ts'
export { soundFor, findSound, SOUND_NAMES, type Sound, type SoundImage } from './sound.ts'
