import { mentionAttachmentHtml, OPENGRAPH_CONTENT_TYPE } from '../../../server/models/rich-text/index.ts'

// Message bodies shaped like the ones Trix and Lexxy submit, for the rich-text tests.

export const DAVID_SGID = 'eyJfcmFpbHMiOnsiZGF0YSI6ImdpZDovL2NhbXBmaXJlL1VzZXIvMSJ9fQ==--0f5c1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3'
export const KEVIN_SGID = 'eyJfcmFpbHMiOnsiZGF0YSI6ImdpZDovL2NhbXBmaXJlL1VzZXIvMiJ9fQ==--1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d'
export const names: Record<string, string> = { [DAVID_SGID]: 'David', [KEVIN_SGID]: 'Kevin' }
export const resolveName = (sgid: string): string | null => names[sgid] ?? null

export const mentionOf = (sgid: string, name: string): string =>
  mentionAttachmentHtml(sgid, `<div class="mention" sgid="${sgid}">\n  <img src="/users/1/avatar" class="avatar">\n  ${name}\n</div>\n`)

interface Embed { href: string; image: string; title: string; description: string }

export const rubyConf: Embed = {
  href: 'https://example.com/conference/', image: 'https://example.com/conference.png',
  title: 'A conference about Ruby', description: 'Three days of talks & hallway chats.',
}

export const tweetWithAvatar: Embed = {
  href: 'https://twitter.com/campfire/status/1800000000000000001', image: 'https://pbs.twimg.com/profile_images/123/avatar_200x200.jpg',
  title: 'Campfire (@campfire)', description: 'We are back up. Sorry for the trouble.',
}

export const tweetWithPhoto: Embed = {
  href: 'https://twitter.com/campfire/status/1800000000000000002', image: 'https://pbs.twimg.com/media/photo.jpg',
  title: 'Campfire (@campfire)', description: 'Look at this.',
}

const escape = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

export const card = (embed: Embed): string =>
  `<actiontext-opengraph-embed><div class="og-embed gap"><div class="og-embed__content"><div class="og-embed__title">` +
  `<a href="${escape(embed.href)}" rel="noreferrer" target="_blank">${escape(embed.title)}</a></div>` +
  `<div class="og-embed__description">${escape(embed.description)}</div></div>` +
  `<div class="og-embed__image"><img src="${escape(embed.image)}" class="image center" alt=""></div></div></actiontext-opengraph-embed>`

// What Trix stored: the details as attributes.
export const trixEmbed = (embed: Embed): string =>
  `<action-text-attachment content-type="${OPENGRAPH_CONTENT_TYPE}" url="${escape(embed.image)}" href="${escape(embed.href)}" ` +
  `filename="${escape(embed.title)}" caption="${escape(embed.description)}" content="${escape(card(embed))}"></action-text-attachment>`

// What Lexxy stores: only the card, JSON-encoded in "content".
export const lexxyEmbed = (embed: Embed): string =>
  `<action-text-attachment content="${escape(JSON.stringify(card(embed)))}" content-type="${OPENGRAPH_CONTENT_TYPE}"></action-text-attachment>`

export const trixBodyWithEmbed = (text: string, embed: Embed): string => `<div>${text}${trixEmbed(embed)}</div>`
export const lexxyBodyWithEmbed = (text: string, embed: Embed): string => `<p><a href="${escape(text)}">${escape(text)}</a></p>${lexxyEmbed(embed)}`
