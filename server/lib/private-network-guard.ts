import { lookup as dnsLookup } from 'node:dns/promises'
import { BlockList, isIP, isIPv4 } from 'node:net'

// The SSRF guard for fetching URLs a member pasted: only http(s) URLs without credentials,
// and only hosts whose every resolved address is public. The vetted address is returned so the
// caller can connect to exactly it (pinning), which DNS rebinding then cannot redirect.

export class GuardError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'GuardError'
  }
}

const blockedV4 = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including 255.255.255.255
] as const) {
  blockedV4.addSubnet(network, prefix, 'ipv4')
}

export function isPublicIPv4(address: string): boolean {
  return isIPv4(address) && !blockedV4.check(address, 'ipv4')
}

// Eight 16-bit groups of an IPv6 address (zone id dropped, a dotted-quad tail expanded), or null.
export function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase()
  const zone = text.indexOf('%')
  if (zone >= 0) text = text.slice(0, zone)
  if (isIP(text) !== 6) return null
  const tail = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/)
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number]
    text = text.slice(0, tail.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = text.split('::')
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : [])
  const head = parse(halves[0])
  const rest = parse(halves[1])
  const groups = halves.length === 2 ? [...head, ...new Array(8 - head.length - rest.length).fill(0), ...rest] : head
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null
}

function v4From(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`
}

// The IPv4 address an IPv6 address carries, for the forms that route to it.
function embeddedIPv4(g: number[]): string | null {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  if (zeros(0, 5) && g[5] === 0xffff) return v4From(g[6]!, g[7]!) // IPv4-mapped ::ffff:0:0/96
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4From(g[6]!, g[7]!) // SIIT ::ffff:0:0:0/96
  if (zeros(0, 6)) return v4From(g[6]!, g[7]!) // IPv4-compatible ::/96
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4From(g[6]!, g[7]!) // NAT64 64:ff9b::/96
  if (g[0] === 0x2002) return v4From(g[1]!, g[2]!) // 6to4 2002::/16
  return null
}

export function isPublicIPv6(address: string): boolean {
  const g = ipv6Groups(address)
  if (!g) return false
  if (g.every((x) => x === 0)) return false // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return false // ::1
  const v4 = embeddedIPv4(g)
  if (v4 !== null) return isPublicIPv4(v4)
  if (g[0] === 0x64 && g[1] === 0xff9b) return false // 64:ff9b:1::/48 local-use NAT64 and the rest of 64:ff9b::/32
  if ((g[0]! & 0xe000) !== 0x2000) return false // only global unicast 2000::/3 (drops fc00::/7, fe80::/10, ff00::/8, 100::/64, ...)
  if (g[0] === 0x2001 && g[1] === 0) return false // Teredo 2001::/32
  if (g[0] === 0x2001 && g[1] === 0xdb8) return false // documentation 2001:db8::/32
  if (g[0] === 0x2001 && g[1]! < 0x200) return false // the rest of 2001::/23, IETF protocol assignments (ORCHID, benchmarking 2001:2::/48, ...)
  if (g[0] === 0x3fff && g[1]! < 0x1000) return false // documentation 3fff::/20
  return true
}

export function isPublicAddress(address: string): boolean {
  if (isIPv4(address)) return isPublicIPv4(address)
  return isPublicIPv6(address)
}

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

export type LookupAll = (host: string) => Promise<ResolvedAddress[]>

export interface GuardPolicy {
  // Which resolved addresses may be connected to; public ones only unless a test says otherwise.
  isAllowed?: (address: string) => boolean
  lookup?: LookupAll
}

const systemLookup: LookupAll = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))

// An http(s) URL without credentials, or a GuardError.
export function parsePublicUrl(raw: string, base?: string | URL): URL {
  let url: URL
  try {
    url = new URL(raw, base)
  } catch {
    throw new GuardError('not a URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new GuardError(`scheme ${url.protocol} refused`)
  if (url.username !== '' || url.password !== '') throw new GuardError('credentials in URL refused')
  if (url.hostname === '') throw new GuardError('no host')
  return url
}

// Resolves a host and returns an address to connect to, refusing if any address is not allowed.
export async function resolveAllowed(hostname: string, policy: GuardPolicy = {}): Promise<ResolvedAddress> {
  const isAllowed = policy.isAllowed ?? isPublicAddress
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
  let addresses: ResolvedAddress[]
  const literal = isIP(host)
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }]
  } else {
    try {
      addresses = await (policy.lookup ?? systemLookup)(host)
    } catch (err) {
      throw new GuardError(`${host} did not resolve (${(err as Error).message})`)
    }
  }
  if (addresses.length === 0) throw new GuardError(`${host} did not resolve`)
  const refused = addresses.find((a) => !isAllowed(a.address))
  if (refused) throw new GuardError(`${host} resolves to non-public ${refused.address}`)
  return addresses[0]!
}
