import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildTestApp, capturedLog, sameOrigin } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { fuzzCases, registeredRoutes, UNSAFE_METHODS, type FuzzCase, type RoutePattern } from '../support/fuzz.ts'
import { postMessage, boostMessage } from '../../server/models/message/posting.ts'
import { BLOB_MODEL, BLOB_PURPOSE } from '../../server/rendering/helpers/attachments.ts'
import { SESSION_COOKIE } from '../../server/plugins/auth.ts'
import { startTestProvider } from '../support/oidc-provider.ts'

// Every route the router has (read from the app, so a new route is covered without being
// listed), sent families of malformed input (test/support/fuzz.ts) by people signed in and
// out: no answer may be a 5xx, no request may hang and nothing may be logged at error level.

const TIMEOUT_MS = 10_000
// The work is bounded by count, not by time: each route is sent one in STRIDE of each family's
// cases, a different one for each route (the offset turns with the route's index), so every
// case still reaches about one route in STRIDE of each kind. FUZZ_STRIDE=1 sends them all
// (about 100,000 requests).
const STRIDE = Math.max(1, Number(process.env.FUZZ_STRIDE ?? 8))
// Bodies that are not forms are sent to every route: each form route must refuse them.
const EVERY_ROUTE = new Set(['not a form'])
// The bot API reads raw bodies of any type (routes/messages/bot-api.ts): it is no form route.
const isFormRoute = (route: RoutePattern) => UNSAFE_METHODS.has(route.method) && !route.path.includes(':bot_key')
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

// A session made directly, so the sign-in rate limit doesn't get in the way; alive() says
// whether a request (DELETE /session, say) has ended it.
async function session(app: FastifyInstance, userId: number): Promise<{ cookie: string; alive(): boolean }> {
  const token = await app.store.write((m) => m.sessions.start(userId, '127.0.0.1', 'fuzz'))
  return {
    cookie: `${SESSION_COOKIE}=${encodeURIComponent(app.signing.signCookie(SESSION_COOKIE, token))}`,
    alive: () => app.store.read((m) => m.sessions.findByToken(token)) !== undefined,
  }
}

// Rooms of each kind with a message and a boost of their own for each route, so a route
// that deletes one leaves the next route something to find.
async function freshTargets(app: FastifyInstance, n: number) {
  return app.store.write((m) => {
    const room = (type: 'Rooms::Open' | 'Rooms::Closed' | 'Rooms::Direct', name: string | null, members: number[]) => {
      const id = m.rooms.create(name, type, users.david.id)
      for (const member of members) m.memberships.grant(id, member)
      return id
    }
    const open = room('Rooms::Open', `Fuzz open ${n}`, [users.david.id, users.kevin.id])
    const closed = room('Rooms::Closed', `Fuzz closed ${n}`, [users.david.id, users.jz.id, users.kevin.id])
    const direct = room('Rooms::Direct', null, [users.david.id, users.kevin.id])
    const message = postMessage(m, { roomId: open, creatorId: users.david.id, clientMessageId: `fuzz-${n}`, body: `fuzz ${n}`, plainText: `fuzz ${n}` })
    const boost = boostMessage(m, message, users.david.id, '👍') as { id: number }
    return { open, closed, direct, messageId: message.id, boostId: boost.id }
  })
}

async function uploadedBlob(app: FastifyInstance, cookie: string): Promise<string> {
  const boundary = 'fuzzSetup'
  const payload = `--${boundary}\r\nContent-Disposition: form-data; name="message[attachment]"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`
  const response = await app.inject({ method: 'POST', url: `/rooms/${rooms.hq.id}/messages`, payload, headers: { cookie, 'content-type': `multipart/form-data; boundary=${boundary}`, ...sameOrigin } })
  assert.equal(response.statusCode, 303, response.body)
  const blobId = app.store.read((m) => m.db.prepare('SELECT id FROM active_storage_blobs').pluck().get()) as number
  return app.signing.signedId(BLOB_MODEL, blobId, BLOB_PURPOSE)
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

// Who sends a case: David (an administrator, who may reach every route's deepest path) and
// Kevin (a member of the fuzzed rooms, whom some routes refuse) same-origin, as a browser
// would, and someone signed out; for the unsafe methods' bodies also David without
// Sec-Fetch-Site (a script) and cross-site (a forgery).
type Sender = { name: string; user?: 'david' | 'kevin'; site?: string }
const SENDERS: Sender[] = [
  { name: 'David, same-origin', user: 'david', site: 'same-origin' },
  { name: 'Kevin, same-origin', user: 'kevin', site: 'same-origin' },
  { name: 'signed out, same-origin', site: 'same-origin' },
]
const UNSAFE_SENDERS: Sender[] = [
  { name: 'David, no Sec-Fetch-Site', user: 'david' },
  { name: 'David, cross-site', user: 'david', site: 'cross-site' },
]

function requestFor(fuzz: FuzzCase, sender: Sender, cookie: string | undefined): InjectOptions {
  const headers: Record<string, string> = {}
  if (sender.site) headers['sec-fetch-site'] = sender.site
  if (cookie) headers.cookie = cookie
  for (const [name, value] of Object.entries(fuzz.headers)) {
    headers[name] = name === 'cookie' && cookie ? `${value}; ${cookie}` : value
  }
  return { method: fuzz.method as InjectOptions['method'], url: fuzz.url, headers, ...(fuzz.payload === undefined ? {} : { payload: fuzz.payload }) }
}

// FUZZ_STATS=1 reports how the answers spread over sender, method and status, the time each
// family took and the slowest requests.
class FuzzStats {
  requests = 0
  private readonly statuses = new Map<string, number>()
  private readonly time = new Map<string, { count: number; ms: number }>()
  private readonly slowest: Array<{ ms: number; where: string }> = []

  record(route: RoutePattern, fuzz: FuzzCase, sender: Sender, status: number | 'timeout', ms: number, where: string) {
    this.requests++
    const statusKey = `${sender.name} ${route.method} ${status}`
    this.statuses.set(statusKey, (this.statuses.get(statusKey) ?? 0) + 1)
    const timeKey = `${UNSAFE_METHODS.has(route.method) ? 'unsafe' : route.method} ${fuzz.family}`
    const spent = this.time.get(timeKey) ?? { count: 0, ms: 0 }
    this.time.set(timeKey, { count: spent.count + 1, ms: spent.ms + ms })
    if (this.slowest.length < 10 || ms > this.slowest.at(-1)!.ms) {
      this.slowest.push({ ms, where })
      this.slowest.sort((a, b) => b.ms - a.ms)
      this.slowest.length = Math.min(this.slowest.length, 10)
    }
  }

  report(): string[] {
    return [
      ...[...this.statuses].sort().map(([key, count]) => `${key}: ${count}`),
      ...[...this.time].sort().map(([key, { count, ms }]) => `${key}: ${count} requests in ${(ms / 1000).toFixed(1)} s`),
      ...this.slowest.map(({ ms, where }) => `${ms.toFixed(0)} ms: ${where}`),
    ]
  }
}

test('fuzz: no route answers 5xx, logs an error or hangs, whatever malformed input it is sent', { timeout: 240_000 }, async (t) => {
  const log = capturedLog()
  // Single sign-on is configured, against a real provider, so its routes are among them.
  const provider = await startTestProvider(t)
  provider.allowRedirects(['http://localhost/session/oidc/callback'])
  const { app, signInLimit } = await buildTestApp(t, { logger: { level: 'warn', stream: log.stream }, env: provider.env({ OIDC_ALLOWED_DOMAINS: 'example.com' }) })
  const routes: RoutePattern[] = registeredRoutes(app)
  // The route list is the router's own: each entry is a route it has, and a few known routes
  // show it was read whole.
  for (const route of routes) assert.ok(app.hasRoute({ method: route.method as 'GET', url: route.path }), `${route.method} ${route.path} is a route`)
  // (Routes sharing a parameter's node share its first name, so names are not compared.)
  const shape = (text: string) => text.replace(/:\w+/g, ':')
  for (const known of ['GET /rooms/:id', 'POST /rooms/:room_id/messages', 'DELETE /messages/:message_id/boosts/:id', 'GET /rails/active_storage/blobs/redirect/:signed_id/*', 'POST /session', 'GET /up', 'POST /session/oidc/start', 'GET /session/oidc/callback', 'PUT /account/single_sign_on', 'DELETE /users/me/oidc_identity']) {
    assert.ok(routes.some((route) => shape(`${route.method} ${route.path}`) === shape(known)), `${known} is among the ${routes.length} routes read from the router`)
  }
  // Safe methods first, then the ones that change and delete things.
  routes.sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method) || a.path.localeCompare(b.path))

  const signedBlob = await uploadedBlob(app, (await session(app, users.david.id)).cookie)
  const failures: string[] = []
  const stats = new FuzzStats()
  const started = performance.now()
  for (const [n, route] of routes.entries()) {
    signInLimit.reset()
    const signedIn = { david: await session(app, users.david.id), kevin: await session(app, users.kevin.id) }
    const { open, closed, direct, messageId, boostId } = await freshTargets(app, n)
    // A valid value for each parameter, by the path segment before it; '1' for one not known.
    const valid: Record<string, string> = {
      rooms: String(open),
      opens: String(open),
      closeds: String(closed),
      directs: String(direct),
      messages: String(messageId),
      '@': String(messageId),
      boosts: String(boostId),
      users: String(users.david.id),
      join: 'Ab12-Cd34-Ef56',
      redirect: signedBlob,
      blobs: signedBlob,
      representations: signedBlob,
    }
    const sent = new Map<string, number>()
    for (const fuzz of fuzzCases(route, { validParam: (owner) => valid[owner] ?? '1', validWildcard: 'a.txt' })) {
      const index = sent.get(fuzz.family) ?? 0
      sent.set(fuzz.family, index + 1)
      if (!EVERY_ROUTE.has(fuzz.family) && (index + n) % STRIDE !== 0) continue
      const senders = UNSAFE_METHODS.has(route.method) && fuzz.family === 'body' ? [...SENDERS, ...UNSAFE_SENDERS] : SENDERS
      for (const sender of senders) {
        const errorsBefore = log.errors.length
        const sentAt = performance.now()
        const response = await withTimeout(app.inject(requestFor(fuzz, sender, sender.user && signedIn[sender.user].cookie)), TIMEOUT_MS)
        if (sender.user && !signedIn[sender.user].alive()) signedIn[sender.user] = await session(app, users[sender.user].id)
        const where = `${route.method} ${route.path} [${sender.name}] ${fuzz.family}: ${fuzz.input} (${fuzz.url.slice(0, 80)})`
        stats.record(route, fuzz, sender, response === 'timeout' ? 'timeout' : response.statusCode, performance.now() - sentAt, where)
        if (response === 'timeout') failures.push(`${where}: no answer in ${TIMEOUT_MS} ms`)
        else if (response.statusCode >= 500) failures.push(`${where}: ${response.statusCode}`)
        else if (fuzz.family === 'not a form' && sender.user === 'david' && sender.site === 'same-origin' && isFormRoute(route) && ![400, 415].includes(response.statusCode)) {
          failures.push(`${where}: ${response.statusCode}, not 400 or 415`)
        }
        const logged = log.errors.slice(errorsBefore)
        if (logged.length > 0) failures.push(`${where}: logged ${logged.map((line) => `${line.msg} ${JSON.stringify((line.err as { message?: string })?.message ?? '')}`).join('; ')}`)
      }
    }
  }
  const seconds = (performance.now() - started) / 1000
  if (process.env.FUZZ_STATS) for (const line of stats.report()) t.diagnostic(line)
  t.diagnostic(`${stats.requests} requests to ${routes.length} routes in ${seconds.toFixed(1)} s`)
  assert.deepEqual(failures.slice(0, 60), [], `${failures.length} failures`)
  assert.ok(stats.requests >= 5000 / STRIDE, `at least ${5000 / STRIDE} requests (sent ${stats.requests})`)
  assert.deepEqual(log.errors, [], 'no error-level log line')
})
