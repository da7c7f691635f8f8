import { FXTWITTER_HOST, fxtwitterUrl } from './fxtwitter.ts'
import { FETCH_TIMEOUT_MS, fetchContentType, fetchHtml, type FetchPolicy } from './opengraph-fetch.ts'
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
    let timer: NodeJS.Timeout | undefined
    const expired = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('timed out')), policy.timeoutMs ?? FETCH_TIMEOUT_MS)))
    try {
      await Promise.race([resolveAllowed(url.hostname, policy), expired])
    } finally {
      clearTimeout(timer)
    }
    return url
  } catch {
    return null
  }
}

// The OpenGraph card for a pasted URL, or null when there is nothing worth showing. Fetch errors
// propagate; the caller logs them and answers 204. The page, DNS and the image check share one
// time budget (policy.timeoutMs, 5 s by default). A twitter.com or x.com post is read from
// fxtwitter.com (lib/fxtwitter.ts), and its card links to the post, never to fxtwitter.com.
export async function unfurl(pasted: string, policy: FetchPolicy = {}, warn: UnfurlWarn = () => {}): Promise<Unfurled | null> {
  const deadline = Date.now() + (policy.timeoutMs ?? FETCH_TIMEOUT_MS)
  const remaining = (): FetchPolicy => ({ ...policy, timeoutMs: Math.max(1, deadline - Date.now()) })
  const document = await fetchHtml(fxtwitterUrl(pasted) ?? pasted, remaining())
  const attributes = parseOpengraph(document.html)
  if (!attributes.title || !attributes.description) return null

  const canonical = await vettedUrl(attributes.url, document.url, remaining())
  let image: string | null = null
  const imageUrl = await vettedUrl(attributes.image, document.url, remaining())
  if (imageUrl) {
    try {
      const type = await fetchContentType(imageUrl.href, remaining())
      if (ALLOWED_IMAGE_TYPES.has(type)) image = imageUrl.href
      else warn('unfurl image refused', { image: imageUrl.href, type })
    } catch (err) {
      warn('unfurl image check failed', { image: imageUrl.href, err: (err as Error).message })
    }
  }
  const link = canonical && canonical.hostname !== FXTWITTER_HOST ? canonical.href : parsePublicUrl(pasted).href
  return { title: attributes.title, url: link, image, description: attributes.description }
}
