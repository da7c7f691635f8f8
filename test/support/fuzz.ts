import type { FastifyInstance } from 'fastify'

// Generated malformed input for every route the app has registered: the routes are read from
// the app's own router (printRoutes), so a new route is fuzzed without anyone listing it.

export interface RoutePattern {
  method: string
  // The path with its parameters as :name and its wildcard as *.
  path: string
}

// printRoutes() draws the router's radix tree: one node a line, "├── " or "└── " after four
// columns a level, the node's label (a slice of the path: "rooms", "/", ":id|:room_id", "*")
// and, where a route ends, its methods in parentheses. A path is its nodes' labels joined.
const TREE_LINE = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z]+(?:, [A-Z]+)*)\))?$/

export function parseRouteTree(tree: string): RoutePattern[] {
  const labels: string[] = []
  const routes: RoutePattern[] = []
  for (const line of tree.split('\n')) {
    if (line.trim() === '') continue
    const match = TREE_LINE.exec(line)
    if (!match) throw new Error(`unreadable route tree line: ${JSON.stringify(line)}`)
    const depth = match[1]!.length / 4
    // Routes naming one parameter differently share the node: ":id|:room_id" is one parameter.
    labels.length = depth
    labels.push(match[2]!.replace(/^(:[^|/]+)(?:\|:[^|/]+)+/, '$1'))
    if (match[3]) for (const method of match[3].split(', ')) routes.push({ method, path: labels.join('') })
  }
  return routes
}

export function registeredRoutes(app: FastifyInstance): RoutePattern[] {
  return parseRouteTree(app.printRoutes())
}

// A path's parts: literal text, a :parameter or the * wildcard.
export type PathPart = { literal: string } | { param: string } | { wildcard: true }

export function pathParts(path: string): PathPart[] {
  return path.split(/(:[A-Za-z_][\w]*(?:\([^)]*\))?|\*)/).filter((part) => part !== '').map((part) => {
    if (part === '*') return { wildcard: true as const }
    if (part.startsWith(':')) return { param: part.slice(1).replace(/\(.*$/, '') }
    return { literal: part }
  })
}

// The static segment just before a parameter ("rooms" in /rooms/:id), which says what it is.
export function paramOwner(parts: PathPart[], index: number): string {
  for (let i = index - 1; i >= 0; i--) {
    const part = parts[i]!
    if ('literal' in part) {
      const segments = part.literal.split('/').filter((segment) => segment !== '' && segment !== '@')
      if (segments.length > 0) return segments[segments.length - 1]!
    }
  }
  return ''
}

export function fillPath(parts: PathPart[], value: (index: number) => string): string {
  return parts.map((part, index) => ('literal' in part ? part.literal : value(index))).join('')
}

export const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

export interface FuzzCase {
  family: 'param' | 'query' | 'header' | 'body' | 'string' | 'not a form'
  // What was malformed, for the failure report.
  input: string
  method: string
  url: string
  headers: Record<string, string>
  payload?: string | Buffer
}

// Ids and path segments a parameter should refuse without falling over (already
// percent-encoded where the URL needs it).
export const HOSTILE_SEGMENTS: readonly string[] = [
  '0',
  '-1',
  '99999999999999999999',
  '9007199254740993',
  '00001',
  '1e3',
  '1.5',
  '0x10',
  '%201',
  '1%20',
  '%C3%A9',
  '%E2%98%83',
  '%F0%9F%94%A5',
  '%00',
  '1%00',
  '..%2F..',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '..',
  '%2E%2E',
  '%20',
  '%09',
  '%25',
  '%ZZ',
  '%E0%A4%A',
  '%FF%FE',
  '%5B%5D',
  '%7B%7D',
  '1%3B%20DROP%20TABLE%20users',
  "1'",
  '%0D%0ASet-Cookie%3A%20x%3D1',
  '%3Cscript%3E',
  'x'.repeat(999),
  'x'.repeat(1001),
]

const FORM = 'application/x-www-form-urlencoded'
const JSON_TYPE = 'application/json'
const BOUNDARY = '----fuzzBoundary7MA4YWxk'

function multipart(parts: string[], close = true): string {
  return parts.map((part) => `--${BOUNDARY}\r\n${part}\r\n`).join('') + (close ? `--${BOUNDARY}--\r\n` : '')
}

const UPLOAD_PARTS = [
  'Content-Disposition: form-data; name="message[body]"\r\n\r\nhello',
  `Content-Disposition: form-data; name="message[attachment]"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${'a'.repeat(3000)}`,
]
const UPLOAD = multipart(UPLOAD_PARTS)

// An upload of one file with these bytes, claimed to be of this type.
function fileUpload(filename: string, type: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="message[attachment]"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`, 'latin1'),
    data,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ])
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

// Files whose first bytes say image but whose headers are cut short or lie.
const BROKEN_IMAGES: ReadonlyArray<readonly [string, Buffer]> = [
  ['png magic only', PNG_MAGIC],
  ['png with a huge IHDR', Buffer.concat([PNG_MAGIC, Buffer.from('0000000dIHDR', 'latin1'), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])])],
  ['jpeg of zero-length segments', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(4000, 0xff)])],
  ['jpeg with a segment past the end', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff, 0x00])],
  ['gif header only', Buffer.from('GIF89a', 'latin1')],
  ['webp VP8X cut short', Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8X', 'latin1')],
]

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth)
}

// Bodies for the unsafe methods: [content-type (undefined: none), payload, label].
export const HOSTILE_BODIES: ReadonlyArray<readonly [string | undefined, string | Buffer, string]> = [
  [FORM, 'message[body][x]=1', 'message[body] as an object'],
  [FORM, 'message[body][]=a&message[body][]=b', 'message[body] as an array'],
  [FORM, 'message[body]=hi&message[client_message_id][a]=1', 'client_message_id as an object'],
  [FORM, 'message=hi', 'message as a string'],
  [FORM, 'email_address[]=a&password[]=b', 'sign-in fields as arrays'],
  [FORM, 'email_address[a]=1&password=secret123456', 'email_address as an object'],
  [FORM, '_method[]=delete', '_method as an array'],
  [FORM, '_method[a]=1', '_method as an object'],
  [FORM, '_method=delete&_method=patch', '_method twice'],
  [FORM, '_method=%00', '_method NUL'],
  [FORM, '_method=get', '_method get'],
  [FORM, '__proto__[x]=1', '__proto__ key'],
  [FORM, '__proto__=1&message[__proto__][body]=x', 'nested __proto__ key'],
  [FORM, 'constructor[prototype][x]=1', 'constructor[prototype] key'],
  [FORM, 'hasOwnProperty=1&toString=1&valueOf[]=1', 'Object.prototype names'],
  [FORM, 'user[name][a]=1&user[email_address][]=x&user[password][x]=1&user[bio][]=1&user[avatar]=x', 'user fields as objects'],
  [FORM, 'user=1&room=1&message=1&boost=1', 'resources as strings'],
  [FORM, 'room[name][]=x&user_ids[a][b]=1', 'room fields as objects'],
  [FORM, 'user_ids=1&user_ids[]=2&user_ids[x]=0', 'user_ids mixed'],
  [FORM, `user_ids[]=${Array.from({ length: 300 }, (_, i) => i).join('&user_ids[]=')}`, '300 user_ids'],
  [FORM, 'room[name]=%00%00&user_ids[]=-1&user_ids[]=99999999999999999999', 'room name NUL, hostile user ids'],
  [FORM, 'q[]=x&q[a]=y', 'q as an array and object'],
  [FORM, 'url[]=x&url[a]=1', 'url as an array'],
  [FORM, 'boost[content][a]=1', 'boost content as an object'],
  [FORM, 'involvement[]=everything', 'involvement as an array'],
  [FORM, 'a[[[[[[[[[[[[=1&b]]]]=2', 'unbalanced brackets'],
  [FORM, `a${'[b]'.repeat(60)}=1`, 'deep nesting'],
  [FORM, '%=%&%E0%A4%A=%ZZ&=', 'bad percent-encoding'],
  [FORM, Array.from({ length: 1500 }, (_, i) => `p${i}=1`).join('&'), '1,500 parameters'],
  [FORM, '', 'empty form'],
  [FORM, '&&&===&=&', 'only separators'],
  [FORM, `message[body]=${'x'.repeat(150_000)}`, 'a 150 KB body'],
  [`${FORM}; charset=iso-8859-1`, 'message[body]=%E9t%E9', 'latin-1 form'],
  [JSON_TYPE, '{"message":{"body":{"a":1}}}', 'JSON body as an object'],
  [JSON_TYPE, '{"message":{"body":["a"],"client_message_id":{"a":1}},"_method":"patch"}', 'JSON body as an array'],
  [JSON_TYPE, '{"message":"hi"}', 'JSON message as a string'],
  [JSON_TYPE, '{"email_address":["a"],"password":{"a":1}}', 'JSON sign-in fields as array/object'],
  [JSON_TYPE, '{"_method":{"toString":1}}', 'JSON _method object'],
  [JSON_TYPE, '{"_method":["delete"]}', 'JSON _method array'],
  [JSON_TYPE, '{"_method":null}', 'JSON _method null'],
  [JSON_TYPE, '{"__proto__":{"x":1}}', 'JSON __proto__'],
  [JSON_TYPE, '{"constructor":{"prototype":{"x":1}}}', 'JSON constructor.prototype'],
  [JSON_TYPE, '{"user":{"name":{"a":1},"email_address":[1],"password":true},"room":{"name":7},"user_ids":{"a":1}}', 'JSON resources of the wrong shape'],
  [JSON_TYPE, '{"user":null,"room":null,"message":null,"boost":null,"q":null,"url":null}', 'JSON nulls'],
  [JSON_TYPE, '[]', 'JSON array'],
  [JSON_TYPE, '"string"', 'JSON string'],
  [JSON_TYPE, 'null', 'JSON null'],
  [JSON_TYPE, '12', 'JSON number'],
  [JSON_TYPE, nested(5000), 'JSON nested 5,000 deep'],
  [JSON_TYPE, '{', 'invalid JSON'],
  [JSON_TYPE, '{"a":}', 'invalid JSON value'],
  [JSON_TYPE, '', 'empty JSON'],
  [JSON_TYPE, '\uFEFF{}', 'JSON with a BOM'],
  [`${JSON_TYPE}; charset=utf-16`, '{}', 'JSON in UTF-16'],
  ['text/plain', 'a=1', 'text/plain'],
  ['text/xml', '<a/>', 'XML'],
  ['application/octet-stream', Buffer.from([0, 1, 2, 255]), 'octet-stream'],
  [undefined, 'message[body]=hi', 'no content type'],
  [';;;', 'x', 'content type ;;;'],
  ['application/x-www-form-urlencoded-ish', 'a=1', 'content type look-alike'],
  ['multipart/form-data', UPLOAD, 'multipart without a boundary'],
  ['multipart/form-data; boundary=', UPLOAD, 'multipart with an empty boundary'],
  [`multipart/form-data; boundary=${BOUNDARY}`, UPLOAD.slice(0, 100), 'multipart cut in the first part'],
  [`multipart/form-data; boundary=${BOUNDARY}`, UPLOAD.slice(0, UPLOAD.length - 1500), 'multipart cut inside the file'],
  [`multipart/form-data; boundary=${BOUNDARY}`, multipart(UPLOAD_PARTS, false), 'multipart without its closing boundary'],
  [`multipart/form-data; boundary=${BOUNDARY}`, 'not multipart at all', 'multipart of junk'],
  [`multipart/form-data; boundary=${BOUNDARY}`, '', 'empty multipart'],
  [`multipart/form-data; boundary=${BOUNDARY}`, multipart(['Content-Disposition: form-data; name="__proto__"\r\n\r\nx']), 'multipart __proto__ field'],
  [`multipart/form-data; boundary=${BOUNDARY}`, multipart(Array.from({ length: 20 }, (_, i) => `Content-Disposition: form-data; name="f${i}"\r\n\r\nx`)), 'multipart with 20 fields'],
  [`multipart/form-data; boundary=${BOUNDARY}`, multipart(['Content-Disposition: form-data; name="message[attachment]"; filename="../../x"\r\n\r\n', 'Content-Disposition: form-data; name="message[attachment]"; filename="b"\r\n\r\nbb']), 'multipart with an empty file and a second file'],
  [`multipart/form-data; boundary=${BOUNDARY}`, multipart(['Content-Type: text/plain\r\n\r\nno disposition', 'Content-Disposition: form-data\r\n\r\nno name']), 'multipart parts without names'],
  ...BROKEN_IMAGES.map(([label, data]) => [`multipart/form-data; boundary=${BOUNDARY}`, fileUpload('image.png', 'image/png', data), `upload: ${label}`] as const),
  [`multipart/form-data; boundary=${BOUNDARY}`, fileUpload(`${'../'.repeat(100)}\u0000${'n'.repeat(400)}.txt`, ';;;', Buffer.from('x')), 'upload with a hostile filename and type'],
  [`multipart/form-data; boundary=${BOUNDARY}`, fileUpload('é😀.txt', 'text/plain; charset="', Buffer.from('x')), 'upload with a non-ASCII filename'],
  [FORM, 'x='.padEnd(2 * 1024 * 1024 + 10, 'x'), 'a form over the 2 MiB limit'],
]

// Bodies that are not readable forms: every form route refuses them with 400 or 415 before it
// reads them (server/plugins/body.ts), never acting on them as an empty or literal form.
export const NOT_FORM_BODIES: ReadonlyArray<readonly [string | undefined, string, string]> = [
  ['text/plain', 'user[webhook_url]=&message[body]=hi', 'text/plain'],
  ['text/plain; charset=utf-8', '_method=delete', 'text/plain saying _method=delete'],
  [JSON_TYPE, '[{"message":{"body":"hi"}}]', 'a JSON array'],
  [JSON_TYPE, '"message[body]=hi"', 'a JSON string'],
  [undefined, 'message[body]=hi&user[name]=x', 'no Content-Type'],
  [`${FORM}; charset=utf-9999`, 'message[body]=hi&user[name]=x', 'a made-up charset'],
  [`${FORM}; x=${'y'.repeat(9000)}`, 'message[body]=hi&user[name]=x', 'a 9,000-character Content-Type'],
  [FORM, 'message[body]=%E0%A4%A&user[name]=%E0%A4%A&room[name]=%E0%A4%A&_method=%E0%A4%A', 'undecodable percent-escapes'],
]

// Query strings, appended to a path with every parameter valid.
export const HOSTILE_QUERIES: readonly string[] = [
  `?q=${'x'.repeat(100_000)}`,
  `?${Array.from({ length: 2000 }, (_, i) => `p${i}=1`).join('&')}`,
  '?before[]=1',
  '?before[a]=1&after=2',
  '?before=1&after=1',
  '?before=-1',
  '?after=99999999999999999999',
  '?q[]=x&q[]=y',
  '?q[a]=1',
  '?__proto__[x]=1&__proto__=1',
  '?constructor[prototype][x]=1',
  '?page=-1&room_id=0&query[]=a',
  '?page=99999999999999999999&room_id=%00',
  '?since=1e400',
  '?since=-1&since=2',
  '?disposition[]=attachment',
  '?involvement[]=x&involvement=everything',
  '?%=&%E0%A4%A=1&%ZZ',
  '?&&&==',
  '?q=%00%0D%0A',
]

// Headers, each set on a request with every parameter valid.
export const HOSTILE_HEADERS: ReadonlyArray<Record<string, string>> = [
  { accept: '' },
  { accept: '*/*' },
  { accept: 'application/json' },
  { accept: 'application/json, text/html' },
  { accept: 'text/vnd.turbo-stream.html' },
  { accept: 'image/png' },
  { accept: ';;;,,,' },
  { accept: 'text/html;q=abc, */*;q=-1' },
  { accept: 'application/json;'.repeat(2000) },
  { range: 'bytes=abc' },
  { range: 'bytes=0-0,1-1,2-2,0-' },
  { range: 'bytes=99999999999999999999-' },
  { range: 'bytes=-99999999999999999999' },
  { range: 'bytes=-0' },
  { range: 'bytes=5-1' },
  { range: 'items=0-1' },
  { range: `bytes=${Array.from({ length: 500 }, (_, i) => `${i}-${i}`).join(',')}` },
  { range: 'bytes=0-1', 'if-range': 'garbage' },
  { 'accept-encoding': 'gzip;q=0, *;q=0' },
  { 'accept-encoding': 'x'.repeat(10_000) },
  { 'if-none-match': '*' },
  { 'if-none-match': '"'.repeat(1000) },
  { 'if-modified-since': 'not a date' },
  { 'x-oversized': 'x'.repeat(64 * 1024) },
  { 'user-agent': 'u'.repeat(20_000) },
  { host: 'x'.repeat(300) },
  { host: '"><script>alert(1)</script>' },
  { host: 'localhost:99999' },
  { 'x-forwarded-proto': 'https, http' },
  { 'x-forwarded-for': 'not-an-ip, ::::, 999.999.999.999' },
  { origin: 'null' },
  { origin: 'http://evil.example' },
  { 'sec-fetch-site': 'garbage' },
  { 'turbo-frame': '%00<>' },
  { 'content-type': 'application/json' },
  { connection: 'upgrade', upgrade: 'websocket' },
  { authorization: 'Bearer ' + 'x'.repeat(5000) },
]

// Cookies that are not ours or are broken; sent in place of (or beside) the session.
export const HOSTILE_COOKIES: readonly string[] = [
  'session_token=',
  'session_token=%E0%A4%A',
  `session_token=${'a'.repeat(5000)}`,
  'session_token=abc.def.ghi--xyz',
  'session_token=1; session_token=2',
  'return_to=%00; session_token=x',
  ';;;==;',
]

// Strings where strings belong, but hostile ones: search and LIKE syntax, markup the sanitizer
// must survive, odd code points, numbers out of range, URLs the unfurler must refuse without
// a DNS lookup (IP literals only), and sheer size.
export const HOSTILE_STRINGS: readonly string[] = [
  '"',
  "'",
  '*',
  'NEAR(a b',
  'a OR',
  'a AND NOT',
  '-x',
  '^x',
  'col:x',
  '(',
  '{a}',
  '%_\\%',
  '\u0000',
  'a\u0000b',
  '\uFFFE\uFFFF',
  '\uD800',
  '\u202Eevil',
  '\r\n\r\nX-Injected: 1',
  ' '.repeat(1000),
  '-1',
  '0',
  '99999999999999999999',
  '1e400',
  'NaN',
  '1.5',
  '<b>'.repeat(20_000),
  `${'<div>'.repeat(5000)}x`,
  '<script>alert(1)</script><img src=x onerror=alert(1)>',
  '<action-text-attachment sgid="bogus" content-type="application/vnd.actiontext.mention"></action-text-attachment>',
  `<action-text-attachment sgid="${'A'.repeat(5000)}" content-type="image/png" url="javascript:x" width="-1" height="1e400"></action-text-attachment>`,
  '<a href="javascript:alert(1)">x</a>',
  '<!--',
  '<svg><foreignObject><math><mi><style><img src=x>',
  'http://127.0.0.1:1/',
  'http://[::1]/',
  'http://0x7f.1/',
  'http://user:pass@10.0.0.1/',
  'file:///etc/passwd',
  'javascript:alert(1)',
  'data:text/html,x',
  '😀'.repeat(1000),
  'e\u0301'.repeat(500),
  'x'.repeat(150_000),
]

// The fields the routes read from a form, every one set to the hostile string at once.
export const STRING_FIELDS: readonly string[] = ['message[body]', 'email_address', 'password', 'user[name]', 'user[email_address]', 'user[password]', 'room[name]', 'user_ids[]', 'q', 'url', 'boost[content]', 'involvement']
export const STRING_QUERY_KEYS: readonly string[] = ['q', 'query', 'page', 'room_id', 'before', 'after', 'since', 'disposition', 'involvement']

// Percent-encoding that also takes a lone surrogate, as its WTF-8 bytes (invalid UTF-8).
function percentEncode(value: string): string {
  let encoded = ''
  for (const char of value) {
    const code = char.charCodeAt(0)
    const lone = char.length === 1 && code >= 0xd800 && code <= 0xdfff
    encoded += lone ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('') : encodeURIComponent(char)
  }
  return encoded
}

function encodedPairs(keys: readonly string[], value: string): string {
  return keys.map((key) => `${encodeURIComponent(key)}=${percentEncode(value)}`).join('&')
}

const STRING_BODIES = HOSTILE_STRINGS.map((value) => [encodedPairs(STRING_FIELDS, value), value] as const)
// (A long value goes in the free-text keys only: nine copies of it make a megabyte of URL.)
const STRING_QUERIES = HOSTILE_STRINGS.map((value) => [`?${encodedPairs(value.length > 1000 ? ['q', 'query'] : STRING_QUERY_KEYS, value)}`, value] as const)

function describe(value: string): string {
  const shown = JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
  return value.length > 40 ? `${shown} (${value.length} chars)` : shown
}

export interface FuzzOptions {
  // A value the route accepts for a parameter (e.g. a real room id), by the segment before it.
  validParam(owner: string, param: string): string
  // The wildcard's value when it is not the one being fuzzed.
  validWildcard?: string
}

// Every malformed request for one route: each parameter in turn hostile (the others valid),
// then with valid parameters the hostile queries, headers, cookies and, for unsafe methods,
// bodies. Headers are the request's own; the caller adds the session and Sec-Fetch-Site.
export function* fuzzCases(route: RoutePattern, options: FuzzOptions): Generator<FuzzCase> {
  const parts = pathParts(route.path)
  const valid = (index: number): string => {
    const part = parts[index]!
    if ('wildcard' in part) return options.validWildcard ?? 'file.txt'
    return 'param' in part ? options.validParam(paramOwner(parts, index), part.param) : ''
  }
  const validUrl = fillPath(parts, valid)
  const bodyless = { method: route.method, headers: {} }
  for (let index = 0; index < parts.length; index++) {
    const part = parts[index]!
    if ('literal' in part) continue
    const name = 'param' in part ? `:${part.param}` : '*'
    for (const segment of HOSTILE_SEGMENTS) {
      yield { ...bodyless, family: 'param', input: `${name}=${segment.slice(0, 40)}`, url: fillPath(parts, (i) => (i === index ? segment : valid(i))) }
    }
  }
  for (const query of HOSTILE_QUERIES) yield { ...bodyless, family: 'query', input: query.slice(0, 60), url: validUrl + query }
  for (const headers of HOSTILE_HEADERS) {
    yield { ...bodyless, family: 'header', input: Object.entries(headers).map(([k, v]) => `${k}: ${v.slice(0, 40)}`).join(', '), url: validUrl, headers }
  }
  for (const cookie of HOSTILE_COOKIES) yield { ...bodyless, family: 'header', input: `cookie: ${cookie.slice(0, 40)}`, url: validUrl, headers: { cookie } }
  if (route.method === 'GET') {
    for (const [query, value] of STRING_QUERIES) yield { ...bodyless, family: 'string', input: `every query key = ${describe(value)}`, url: validUrl + query }
  }
  if (!UNSAFE_METHODS.has(route.method)) return
  for (const [payload, value] of STRING_BODIES) {
    yield { family: 'string', input: `every form field = ${describe(value)}`, method: route.method, url: validUrl, headers: { 'content-type': FORM }, payload }
  }
  for (const [type, payload, label] of HOSTILE_BODIES) {
    yield { family: 'body', input: label, method: route.method, url: validUrl, headers: type === undefined ? {} : { 'content-type': type }, payload }
  }
  for (const [type, payload, label] of NOT_FORM_BODIES) {
    yield { family: 'not a form', input: label, method: route.method, url: validUrl, headers: type === undefined ? {} : { 'content-type': type }, payload }
  }
}
