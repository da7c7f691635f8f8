import { FetchError, follow, mediaType, readCapped, withDeadline, type FetchPolicy } from './opengraph-fetch.ts'
import { parsePublicUrl } from './private-network-guard.ts'
import { sniffImage } from './uploads.ts'

// Fetching a picture from an untrusted URL (a single sign-on provider's `picture` claim) through
// the same SSRF guard as link unfurling: every hop validated, resolved and pinned to a public
// address, one deadline for all of it, a bounded body, and only JPEG, PNG, GIF or WebP, both as
// the server says and as the bytes show. Anything else is a thrown FetchError or GuardError.

export const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])
export const IMAGE_MAX_BYTES = 2 * 1024 * 1024
export const IMAGE_TIMEOUT_MS = 5000
export const IMAGE_MAX_REDIRECTS = 3

export interface FetchedImage {
  url: URL
  contentType: string
  body: Buffer
}

export function fetchImage(raw: string, policy: FetchPolicy = {}): Promise<FetchedImage> {
  const bounded: FetchPolicy = { maxBytes: IMAGE_MAX_BYTES, timeoutMs: IMAGE_TIMEOUT_MS, maxRedirects: IMAGE_MAX_REDIRECTS, userAgent: 'Campfire', ...policy, accept: 'image/webp,image/png,image/jpeg,image/gif' }
  return withDeadline(bounded, async (signal) => {
    const start = parsePublicUrl(raw)
    const { url, response } = await follow('GET', start.href, bounded, signal)
    const maxBytes = bounded.maxBytes!
    try {
      if (response.statusCode !== 200) throw new FetchError(`status ${response.statusCode}`)
      const { type } = mediaType(response.headers['content-type'])
      if (!IMAGE_TYPES.has(type)) throw new FetchError(`content type ${type || 'missing'} is not an image we take`)
      const length = Number(response.headers['content-length'] ?? 0)
      if (!(length <= maxBytes)) throw new FetchError(`content length ${response.headers['content-length']} over ${maxBytes}`)
      const body = await readCapped(response, maxBytes)
      const sniffed = sniffImage(body)
      if (!sniffed || !IMAGE_TYPES.has(sniffed)) throw new FetchError(`the bytes are not ${type}`)
      return { url, contentType: sniffed, body }
    } finally {
      response.destroy()
    }
  })
}
