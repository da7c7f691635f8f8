import { fetchContentType, fetchHtml, type FetchPolicy } from './opengraph-fetch.ts'
import { parseOpengraph } from './opengraph-parse.ts'
import { parsePublicUrl, resolveAllowed } from './private-network-guard.ts'

export interface Unfurled {
  title: string
  url: string
  image: string | null
  description: string
}

export const ALLOWED_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

export type UnfurlWarn = (message: string, detail: Record<string, unknown>) => void

// An absolute URL that passes the guard (http(s), no credentials, public host), or null.
async function vettedUrl(raw: string | undefined, base: URL, policy: FetchPolicy): Promise<URL | null> {
  if (!raw) return null
  try {
    const url = parsePublicUrl(raw.trim(), base)
    await resolveAllowed(url.hostname, policy)
    return url
  } catch {
    return null
  }
}

// The OpenGraph card for a pasted URL, or null when there is nothing worth showing. Fetch errors
// propagate; the caller logs them and answers 204.
export async function unfurl(pasted: string, policy: FetchPolicy = {}, warn: UnfurlWarn = () => {}): Promise<Unfurled | null> {
  const document = await fetchHtml(pasted, policy)
  const attributes = parseOpengraph(document.html)
  if (!attributes.title || !attributes.description) return null

  const canonical = await vettedUrl(attributes.url, document.url, policy)
  let image: string | null = null
  const imageUrl = await vettedUrl(attributes.image, document.url, policy)
  if (imageUrl) {
    try {
      const type = await fetchContentType(imageUrl.href, policy)
      if (ALLOWED_IMAGE_TYPES.has(type)) image = imageUrl.href
      else warn('unfurl image refused', { image: imageUrl.href, type })
    } catch (err) {
      warn('unfurl image check failed', { image: imageUrl.href, err: (err as Error).message })
    }
  }
  return { title: attributes.title, url: canonical ? canonical.href : parsePublicUrl(pasted).href, image, description: attributes.description }
}
