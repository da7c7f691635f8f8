// A User-Agent read the way Rails' allow_browser reads it, through the useragent gem
// (UserAgent.parse): the header is split into products ("Chrome/120.0"), each with an optional
// comment ("(Windows NT 10.0; Win64; x64)"), and the browser family, its version and whether it is
// a bot are worked out from those as the gem does, for the families a version gate can name
// (Safari, Chrome, Firefox, Opera, Internet Explorer) and for those it must not mistake for them
// (legacy Edge, Vivaldi, WeChat, iTunes, PlayStation, Podcast Addict, media players, Android's
// browser). Anything else is named by its first product, as the gem does.

export interface Product {
  product: string
  version: string
  comment: string[] | null
}

export interface ParsedUserAgent {
  browser: string
  version: string
  bot: boolean
}

// The gem's product pattern: a name, an optional /version, an optional (comment).
const PRODUCT = /^['"]*([^/\s]+)\/?([^\s,]*)(\s\(([^)]*)\)|,gzip\(gfe\))?/
const DEFAULT_USER_AGENT = 'Mozilla/4.0 (compatible)'
// A header is read up to this many products; real ones have about ten.
const MAX_PRODUCTS = 64

export function products(header: string): Product[] {
  let rest = header.trim() === '' ? DEFAULT_USER_AGENT : header
  const found: Product[] = []
  for (let match = PRODUCT.exec(rest); match && found.length < MAX_PRODUCTS; match = PRODUCT.exec(rest)) {
    found.push({ product: match[1]!, version: match[2] ?? '', comment: match[4] === undefined ? null : match[4].split('; ') })
    rest = rest.slice(match[0].length).trim()
  }
  return found
}

const find = (agents: Product[], name: string) => agents.find((a) => a.product.toLowerCase() === name.toLowerCase())
const withComment = (agents: Product[]) => agents.find((a) => a.comment !== null && a.comment.length > 0)

// The gem's Browsers::Base#bot?: no application, a comment mentioning "bot", Lighthouse, or an
// application product with "bot" in its name.
function isBot(agents: Product[], application: Product | undefined): boolean {
  if (!application) return true
  if (agents.some((a) => a.comment?.some((c) => /bot/i.test(c)))) return true
  if (find(agents, 'Chrome-Lighthouse')) return true
  return application.product.includes('bot')
}

const IOS_VERSION = /CPU (?:iPhone |iPod )?OS ([\d_]+) like Mac OS X/

function normalizeOs(os: string | undefined): string | undefined {
  const ios = os?.match(IOS_VERSION)
  return ios ? `iOS ${ios[1]!.replace(/_/g, '.')}` : os
}

// Browsers::Webkit#os, for what the version and the family need: Android, or iOS and its version.
function webkitOs(application: Product | undefined): string | undefined {
  const comment = application?.comment
  if (!comment) return undefined
  if (/Windows NT/.test(comment[0] ?? '')) return comment[0]
  if (comment[2] === undefined) return normalizeOs(comment[1])
  if (/Android/.test(comment[1] ?? '')) return comment[1]
  return normalizeOs(comment.find((c) => IOS_VERSION.test(c)) ?? comment[2])
}

// Safari 1 and 2 reported only their WebKit build (Browsers::Webkit::BuildVersions).
const WEBKIT_BUILDS: Record<string, string> = {
  '85.7': '1.0', '85.8.5': '1.0.3', '85.8.2': '1.0.3', '124': '1.2', '125.2': '1.2.2', '125.4': '1.2.3', '125.5.5': '1.2.4', '125.5.6': '1.2.4',
  '125.5.7': '1.2.4', '312.1.1': '1.3', '312.1': '1.3', '312.5': '1.3.1', '312.5.1': '1.3.1', '312.5.2': '1.3.1', '312.8': '1.3.2', '312.8.1': '1.3.2',
  '412': '2.0', '412.6': '2.0', '412.6.2': '2.0', '412.7': '2.0.1', '416.11': '2.0.2', '416.12': '2.0.2', '417.9': '2.0.3', '418': '2.0.3',
  '418.8': '2.0.4', '418.9': '2.0.4', '418.9.1': '2.0.4', '419': '2.0.4', '425.13': '2.2', '534.52.7': '5.1.2',
}

const WEBKIT_COMMENT = /^AppleWebKit\/([\d.]+)/i
const GECKO_BROWSERS = ['PaleMoon', 'Firefox', 'Camino', 'Iceweasel', 'Seamonkey']
const MEDIA_PLAYERS = new Set(['NSPlayer', 'Windows-Media-Player', 'WMFSDK'])

function isInternetExplorer(first: Product | undefined): boolean {
  const comment = first?.comment
  return !!comment && (/MSIE/.test(comment[1] ?? '') || /Trident.+rv:/.test(comment.join('; ')))
}

function isPlayStation(application: Product | undefined): boolean {
  const first = application?.comment?.[0]
  return !!first && /PLAYSTATION 3|PlayStation Vita|PlayStation 4/.test(first)
}

// Browsers.extend: the first family whose rule matches, in the gem's order.
export function parseUserAgent(header: string): ParsedUserAgent {
  const agents = products(header)
  const first = agents[0]
  const last = agents.at(-1)
  const commented = withComment(agents)
  const result = (browser: string, version: string | undefined, application: Product | undefined): ParsedUserAgent => ({ browser, version: version ?? '', bot: isBot(agents, application) })

  if (last?.product === 'Edge') return result('Edge', last.version, first)
  if (isInternetExplorer(first)) return result('Internet Explorer', first!.comment!.join('; ').match(/(MSIE\s|rv:)([\d.]+)/)?.[2], first)
  if (first?.product === 'Opera' || last?.product === 'OPR') {
    const mini = first && /Opera Mini/.test(toText(first))
    const version = mini ? first.comment?.find((c) => /Opera Mini/.test(c))?.match(/Opera Mini\/([\d.]+)/)?.[1] : (find(agents, 'Version') ?? find(agents, 'OPR') ?? first)?.version
    return result('Opera', version, first)
  }
  if (agents.some((a) => /MicroMessenger/i.test(a.product))) return result('Wechat Browser', find(agents, 'MicroMessenger')?.version, first)
  if (agents.some((a) => a.product === 'Vivaldi')) return result('Vivaldi', last?.version, commented)
  if (agents.some((a) => a.product === 'Chrome' || a.product === 'CriOS')) {
    const browser = find(agents, 'Iron') ? 'Iron' : 'Chrome'
    return result(browser, (find(agents, 'CriOS') ?? find(agents, 'Chrome'))?.version, commented)
  }
  if (agents.some((a) => a.product === 'iTunes')) return result('iTunes', find(agents, 'iTunes')?.version, first)
  if (isPlayStation(first)) return playStation(first!, last!, (browser, version) => result(browser, version, first))
  if (agents.length >= 3 && first?.product === 'Podcast' && agents[1]!.product === 'Addict' && agents[2]!.product === '-') return result('Podcast Addict', undefined, first)
  const webkitProduct = agents.find((a) => /^AppleWebKit$/i.test(a.product))
  const webkitComment = agents.flatMap((a) => a.comment ?? []).find((c) => WEBKIT_COMMENT.test(c))
  if (webkitProduct || webkitComment) {
    const os = webkitOs(commented)
    const browser = /Android/.test(os ?? '') ? 'Android' : commented?.comment?.[0] === 'BB10' ? 'BlackBerry' : 'Safari'
    const build = webkitProduct?.version ?? webkitComment?.match(WEBKIT_COMMENT)?.[1] ?? ''
    const ios = browser === 'Safari' ? os?.match(/iOS ([\d.]+)/)?.[1] : undefined
    return result(browser, find(agents, 'Version')?.version ?? ios ?? WEBKIT_BUILDS[build], commented)
  }
  if (first?.product === 'Mozilla') {
    const gecko = GECKO_BROWSERS.map((name) => find(agents, name)).find((a) => a !== undefined)
    return result(gecko ? GECKO_BROWSERS.find((name) => name.toLowerCase() === gecko.product.toLowerCase())! : first.product, gecko?.version || first.version, first)
  }
  if (agents.some((a) => MEDIA_PLAYERS.has(a.product))) return result('Windows Media Player', first?.version, first)
  if (agents.some((a) => a.product === 'AppleCoreMedia')) return result('AppleCoreMedia', commented?.version, commented)
  if (agents.some((a) => a.product === 'Lavf')) return result('libavformat', first?.version, first)
  return result(first?.product ?? '', first?.version, first)
}

// Browsers::PlayStation: the console's browser, and the system version from the comment.
function playStation(first: Product, last: Product, result: (browser: string, version: string | undefined) => ParsedUserAgent): ParsedUserAgent {
  const os = first.comment!.join(' ')
  const after = (marker: string) => os.split(marker).at(-1)
  if (os.includes('PLAYSTATION 3')) return result('PS3 Internet Browser', after('PLAYSTATION 3 '))
  if (last.product === 'Silk') return result('Silk', last.version)
  if (os.includes('PlayStation 4')) return result('PS4 Internet Browser', after('PlayStation 4 '))
  return result('', after('PlayStation Vita '))
}

function toText(agent: Product): string {
  return agent.comment ? `${agent.product}/${agent.version} (${agent.comment.join('; ')})` : `${agent.product}/${agent.version}`
}

type Part = number | string

// UserAgent::Version#<=>: dotted numbers compare part by part over the first six parts (a
// missing part is 0, a letter suffix sorts below any number); a version that does not start with a
// number only equals the same text and is otherwise lower.
export function compareVersions(a: string, b: string): number {
  if (!/^\d+$/.test(a) && !/^\d+\./.test(a)) return a === b ? 0 : -1
  const partsA = versionParts(a)
  const partsB = versionParts(b)
  for (let i = 0; i < 6; i++) {
    const x: Part = partsA[i] ?? 0
    const y: Part = partsB[i] ?? 0
    if (typeof x === 'string' && typeof y === 'number') return -1
    if (typeof x === 'number' && typeof y === 'string') return 1
    if (x === y) continue
    return x < y ? -1 : 1
  }
  return 0
}

function versionParts(version: string): Part[] {
  if (!/^\d+$/.test(version) && !/^\d+\./.test(version)) return [version]
  return (version.match(/\d+|[A-Za-z][0-9A-Za-z-]*$/g) ?? []).map((part) => (/^\d+$/.test(part) ? Number(part) : part))
}
