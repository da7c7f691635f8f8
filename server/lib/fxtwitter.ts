// twitter.com and x.com serve no OpenGraph tags to a fetcher, so a post's link is unfurled from
// fxtwitter.com, which serves the same path with them (upstream's Opengraph::Metadata::Fetching).
// Only the host changes: scheme, port, path and query stay, and the fetch of the rewritten URL goes
// through the same private-network guard as any other.

export const FXTWITTER_HOST = 'fxtwitter.com'

// Exactly these hosts: a lookalike (evil-x.com, x.com.evil, twitter.com.example) is never rewritten.
const TWITTER_HOSTS: ReadonlySet<string> = new Set(['twitter.com', 'www.twitter.com', 'mobile.twitter.com', 'x.com', 'www.x.com', 'mobile.x.com'])

// A post: /<handle>/status/<id> (or /statuses/), /i/status/<id> and /i/web/status/<id>, with
// anything after the id (/photo/1, /video/1).
const STATUS_PATH = /^\/(?:[A-Za-z0-9_]{1,50}|i\/web)\/status(?:es)?\/\d+(?:\/|$)/

// The fxtwitter.com URL to fetch for a twitter.com or x.com post, or null for any other URL.
export function fxtwitterUrl(raw: string): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  if (!TWITTER_HOSTS.has(url.hostname) || !STATUS_PATH.test(url.pathname)) return null
  url.hostname = FXTWITTER_HOST
  url.hash = ''
  return url.href
}
