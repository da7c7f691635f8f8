import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import { compareVersions, parseUserAgent } from '../lib/user-agent.ts'

// Upstream's AllowBrowser::VERSIONS, given to Rails' allow_browser: the oldest version of each
// family that may use the app; false lets no version in. Families not listed (Edge before
// Chromium, Samsung Internet's own name, programs, bots) are never turned away.
export const SUPPORTED_BROWSERS = { safari: '17.2', chrome: '120', firefox: '121', opera: '104', ie: false } as const

type Family = keyof typeof SUPPORTED_BROWSERS

// The browsers the gate page lists, with their icons (public/images/browsers/<family>.svg).
export const LISTED_BROWSERS = (Object.entries(SUPPORTED_BROWSERS) as [Family, string | false][])
  .filter((entry): entry is [Family, string] => entry[1] !== false)
  .map(([family, minimum]) => ({ family, name: family[0]!.toUpperCase() + family.slice(1), minimum }))

export interface BrowserVerdict {
  blocked: boolean
  // Apple Messages fetches a link's preview as "facebookexternalhit … Twitterbot" with an old
  // Safari in front (upstream's ApplicationPlatform#apple_messages?).
  appleMessages: boolean
}

const ALLOWED: BrowserVerdict = { blocked: false, appleMessages: false }

// Rails' BrowserBlocker#blocked?: a header that reports a version, of a family in the table,
// below its minimum, and not a bot.
export function browserVerdict(header: string | undefined): BrowserVerdict {
  if (header === undefined || header.trim() === '') return ALLOWED
  const agent = parseUserAgent(header)
  if (agent.version.trim() === '') return ALLOWED
  const name = agent.browser.toLowerCase()
  const family = (name === 'internet explorer' ? 'ie' : name) as Family
  if (!Object.hasOwn(SUPPORTED_BROWSERS, family)) return ALLOWED
  const minimum = SUPPORTED_BROWSERS[family]
  const below = minimum === false || compareVersions(agent.version, minimum) < 0
  if (!below || agent.bot) return ALLOWED
  return { blocked: true, appleMessages: /facebookexternalhit/i.test(header) && /Twitterbot/i.test(header) }
}

// Pages only: not /up, the cable, assets, blobs, the manifest or the service worker (nor anything
// that does not ask for HTML, such as JSON and the bot API).
const NOT_PAGES = /^\/(?:(?:up|cable|webmanifest(?:\.json)?|service-worker(?:\.js)?)(?:[/?]|$)|assets\/|rails\/active_storage\/)/

function isPageRequest(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false
  if (request.is404 || !String(request.headers.accept ?? '').includes('text/html')) return false
  return !NOT_PAGES.test(request.url)
}

// Most requests come from a handful of browsers: each header is parsed once.
const MAX_CACHED_HEADER = 1024

// The browser gate (allow_browser): an old Safari, Chrome, Firefox or Opera, or any Internet
// Explorer, asking for a page gets sessions/incompatible_browser with 406 instead of an app that
// would not work in it. Apple Messages' link previews get the same page with 200, titled
// "Campfire", so a shared link shows the app's name rather than "Unsupported browser".
export default fp(
  async function browserGate(app) {
    const verdicts = new LRUCache<string, BrowserVerdict>({ max: 1000 })

    function verdictFor(header: string): BrowserVerdict {
      if (header.length > MAX_CACHED_HEADER) return browserVerdict(header)
      let verdict = verdicts.get(header)
      if (verdict === undefined) {
        verdict = browserVerdict(header)
        verdicts.set(header, verdict)
      }
      return verdict
    }

    app.addHook('onRequest', (request, reply, done) => {
      const header = request.headers['user-agent']
      if (!header || !isPageRequest(request)) return done()
      const verdict = verdictFor(header)
      if (!verdict.blocked) return done()
      reply.header('cache-control', 'no-store').header('vary', 'User-Agent')
      reply.view('sessions/incompatible_browser', { browsers: LISTED_BROWSERS, title: verdict.appleMessages ? 'Campfire' : 'Unsupported browser' }, verdict.appleMessages ? 200 : 406)
    })
  },
  { name: 'browser-gate', dependencies: ['views'] },
)
