import type { OpengraphEmbed } from '../../models/rich-text/index.ts'
import { escapeHtml } from '../templates.ts'

// The card an unfurled link shows. Its values come from the poster's own message body, so
// every URL must be http(s) and every text is escaped.
export function renderOpengraphEmbed(embed: OpengraphEmbed): string | null {
  const href = safeUrl(embed.href)
  if (!href) return null
  const image = safeUrl(embed.url)
  const title = truncate(embed.title || href, 280)
  const description = truncate(embed.description ?? '', 560)
  return `<figure class="attachment attachment--content attachment--og">
  <actiontext-opengraph-embed>
    <div class="og-embed gap">
      <div class="og-embed__content">
        <div class="og-embed__title"><a rel="noreferrer" target="_blank" href="${escapeHtml(href)}">${escapeHtml(title)}</a></div>
        <div class="og-embed__description">${escapeHtml(description)}</div>
      </div>${image ? `\n      <div class="og-embed__image"><img src="${escapeHtml(image)}" class="image center" alt=""></div>` : ''}
    </div>
  </actiontext-opengraph-embed>
</figure>`
}

function safeUrl(value: string | undefined): string | null {
  if (!value) return null
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null
  } catch {
    return null
  }
}

function truncate(text: string, length: number): string {
  const chars = [...text]
  return chars.length <= length ? text : chars.slice(0, length - 1).join('') + '…'
}
