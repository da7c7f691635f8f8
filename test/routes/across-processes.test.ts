import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../server/app.ts'
import type { MessageRow } from '../../server/models/message.ts'
import { form, inject, sameOrigin, signIn, tempStorage, testConfig } from '../helper.ts'
import { loadFixtures, PASSWORD, rooms, users } from '../fixtures.ts'
import { decodeStrictly } from '../support/encodings.ts'
import { seed } from './messages/support.ts'
import { send } from './rooms/support.ts'
import { png, uploadAvatar } from './users/support.ts'

// Worker processes share one SQLite file and nothing else: each has its own store, page,
// shell and fragment caches, search memos and cable server. A write through worker A must
// change worker B's next answer, and B's cached answer must be what a worker with every cache
// off renders from the same file. The workers here share one Node process, which is the same
// thing for caching: what module scope holds (signatures, parsed times) never goes stale.

const hq = rooms.hq.id
const pets = rooms.pets.id
const watercooler = rooms.watercooler.id
const PUBLIC_IP = '8.8.8.8'

interface Workers {
  a: FastifyInstance
  b: FastifyInstance
  fresh: FastifyInstance
  history: MessageRow[]
}

async function workers(t: TestContext, env: Record<string, string> = {}): Promise<Workers> {
  const storage = tempStorage(t)
  const worker = async (extra: Record<string, string> = {}) => {
    const app = await buildApp({ config: testConfig(storage, { ...env, ...extra }), logger: false, passwordCost: 4 })
    t.after(() => app.close())
    return app
  }
  const a = await worker()
  a.store.writeNow((m) => loadFixtures(m.db))
  const b = await worker()
  const fresh = await worker({ CAMPFIRE_PAGE_CACHE: 'off', CAMPFIRE_FRAGMENT_CACHE_MB: '0' })
  await Promise.all([a.ready(), b.ready(), fresh.ready()])
  const history = await seed(a, hq, users.jz.id, 45, 'coffee talk')
  await seed(a, pets, users.kevin.id, 3, 'pets')
  await seed(a, watercooler, users.jason.id, 2, 'coffee by the watercooler')
  return { a, b, fresh, history }
}

interface Page {
  status: number
  location: string | undefined
  body: string
  cache: string | undefined
}

// A page as a browser gets it (gzip, decoded strictly), with what the caches did: 'hit' when the
// response memo or the page cache answered it.
async function page(app: FastifyInstance, cookie: string, url: string, encoding = 'gzip'): Promise<Page> {
  const response = await inject(app, cookie, { method: 'GET', url, headers: { 'accept-encoding': encoding } })
  const timing = String(response.headers['server-timing'] ?? '')
  const cache = /(?:^|, )memo;desc="hit"/.test(timing) ? 'hit' : /(?:^|, )page;desc="(\w+)"/.exec(timing)?.[1]
  return { status: response.statusCode, location: response.headers.location as string | undefined, body: decodeStrictly(response).toString('utf8'), cache }
}

// Worker B's answer, checked against what the uncached worker renders of the same state.
async function fromB(w: Workers, cookie: string, url: string): Promise<Page> {
  const cached = await page(w.b, cookie, url)
  const fresh = await page(w.fresh, cookie, url, 'identity')
  assert.equal(cached.status, 200, url)
  assert.equal(cached.body, fresh.body, `${url}: worker B's cached answer is what a fresh render gives`)
  return cached
}

// Asks for each page until worker B serves it from its cache (a search is stored when asked
// for a second time).
async function warm(w: Workers, cookie: string, urls: string[]): Promise<void> {
  for (const url of urls) {
    await page(w.b, cookie, url)
    await page(w.b, cookie, url)
    assert.equal((await page(w.b, cookie, url)).cache, 'hit', `${url} is cached on worker B`)
  }
}

const roomPage = `/rooms/${hq}`
const sidebar = '/users/me/sidebar'
const search = '/searches?q=coffee'
const historyPage = (w: Workers) => `/rooms/${hq}/messages?before=${w.history[42]!.id}`

// Each write goes through worker A's routes, as a browser would send it; `shows` is what B's
// next answer of each page must then hold.
interface Change {
  what: string
  as: keyof typeof users
  viewer?: keyof typeof users
  write: (w: Workers, cookie: string) => Promise<LightMyRequestResponse>
  shows: Record<string, RegExp>
}

const changes: Change[] = [
  {
    what: 'a post',
    as: 'jason',
    write: (w, cookie) => send(w.a, cookie, 'POST', `/rooms/${hq}/messages`, [['message[body]', 'coffee fresh from worker A']]),
    shows: { [roomPage]: /coffee fresh from worker A/, [search]: /coffee fresh from worker A/, [sidebar]: new RegExp(`id="list_rooms_\\w+_${hq}" class="[^"]* unread"`) },
  },
  {
    what: 'an edit',
    as: 'jz',
    write: (w, cookie) => send(w.a, cookie, 'PATCH', `/rooms/${hq}/messages/${w.history[10]!.id}`, [['message[body]', 'coffee rewritten on worker A']]),
    shows: { [roomPage]: /coffee rewritten on worker A/, history: /coffee rewritten on worker A/, [search]: /coffee rewritten on worker A/ },
  },
  {
    what: 'a boost',
    as: 'kevin',
    write: (w, cookie) => send(w.a, cookie, 'POST', `/messages/${w.history[44]!.id}/boosts`, [['boost[content]', 'boosted on A']]),
    shows: { [roomPage]: /boosted on A/, [search]: /boosted on A/ },
  },
  {
    what: 'a room’s new name',
    as: 'david',
    write: (w, cookie) => send(w.a, cookie, 'PUT', `/rooms/opens/${hq}`, [['room[name]', 'Headquarters']]),
    shows: { [roomPage]: /<h1[^>]*>Headquarters<\/h1>/, [sidebar]: /Headquarters/, [search]: /Headquarters/ },
  },
  {
    what: 'a person’s new name',
    as: 'jz',
    write: (w, cookie) => inject(w.a, cookie, { method: 'POST', url: '/users/me/profile', ...form({ _method: 'patch', 'user[name]': 'JZ Renamed' }) }),
    shows: { [roomPage]: /JZ Renamed/, history: /JZ Renamed/, [search]: /JZ Renamed/ },
  },
  {
    what: 'the viewer’s new name',
    as: 'david',
    write: (w, cookie) => inject(w.a, cookie, { method: 'POST', url: '/users/me/profile', ...form({ _method: 'patch', 'user[name]': 'David Renamed' }) }),
    shows: { [roomPage]: /<meta name="current-user-name" content="David Renamed">/, [search]: /<meta name="current-user-name" content="David Renamed">/ },
  },
  {
    what: 'a person’s new avatar',
    as: 'jz',
    write: async (w, cookie) => uploadAvatar(w.a, cookie, { bytes: await png(64, 64) }),
    shows: {},
  },
  {
    what: 'the account’s custom styles',
    as: 'david',
    write: (w, cookie) => send(w.a, cookie, 'PATCH', '/account/custom_styles', [['account[custom_styles]', ':root { --color-link: teal; }']]),
    shows: { [roomPage]: /--color-link: teal/, [sidebar]: /--color-link: teal/, [search]: /--color-link: teal/ },
  },
  {
    what: 'a new join code',
    as: 'david',
    write: (w, cookie) => inject(w.a, cookie, { method: 'POST', url: '/account/join_code', headers: sameOrigin }),
    shows: { [`/rooms/${pets}`]: /\/join\/(?!Ab12-Cd34-Ef56)/ },
  },
]

for (const change of changes) {
  test(`${change.what} through worker A shows on worker B’s next pages, as a fresh render does`, async (t) => {
    const w = await workers(t)
    const viewer = await signIn(w.a, change.viewer ?? 'david')
    // The sidebar first: opening the room marks it read.
    const urls = [sidebar, search, historyPage(w), roomPage, `/rooms/${pets}`]
    await warm(w, viewer, urls)
    const before = new Map<string, string>()
    for (const url of urls) before.set(url, (await fromB(w, viewer, url)).body)
    const { statusCode } = await change.write(w, await signIn(w.a, change.as))
    assert.ok([200, 302, 303].includes(statusCode), `the write went through (${statusCode})`)
    let changed = 0
    for (const url of urls) {
      const after = await fromB(w, viewer, url)
      const shows = change.shows[url === historyPage(w) ? 'history' : url]
      if (shows) assert.match(after.body, shows, url)
      if (after.body !== before.get(url)) changed++
    }
    assert.ok(changed > 0, 'at least one page changed')
  })
}

// Who may do what is read from the database on every request, on every worker: what a write on
// A takes away is gone on B at the next request, cached pages or not.
function signedOut(response: Page, url: string): void {
  assert.equal(response.status, 302, url)
  assert.equal(response.location, '/session/new', url)
}

test('a person deactivated through worker A is signed out on worker B at their next request', async (t) => {
  const w = await workers(t)
  const kevin = await signIn(w.a, 'kevin')
  await warm(w, kevin, [roomPage, sidebar])
  assert.equal((await send(w.a, await signIn(w.a, 'david'), 'DELETE', `/account/users/${users.kevin.id}`)).statusCode, 302)
  for (const url of [roomPage, sidebar, `/rooms/${hq}/messages`]) signedOut(await page(w.b, kevin, url), url)
  assert.equal((await send(w.b, kevin, 'POST', `/rooms/${hq}/messages`, [['message[body]', 'still here?']])).statusCode, 401)
})

test('a person banned through worker A is refused by worker B, their address too, and their messages leave B’s pages', async (t) => {
  const w = await workers(t)
  const signInFromPublicAddress = (app: FastifyInstance, email: string) =>
    app.inject({ method: 'POST', url: '/session', remoteAddress: PUBLIC_IP, ...form({ email_address: email, password: PASSWORD }) })
  const signedIn = await signInFromPublicAddress(w.a, users.kevin.email)
  const kevin = `session_token=${signedIn.cookies.find((c) => c.name === 'session_token')!.value}`
  const david = await signIn(w.a, 'david')
  await warm(w, kevin, [roomPage])
  await warm(w, david, [`/rooms/${pets}`])
  assert.match((await fromB(w, david, `/rooms/${pets}`)).body, /pets 1/)
  assert.equal((await inject(w.a, david, { method: 'POST', url: `/users/${users.kevin.id}/ban`, headers: sameOrigin })).statusCode, 302)
  await w.a.bannedContent.settled()
  signedOut(await page(w.b, kevin, roomPage), roomPage)
  assert.equal((await signInFromPublicAddress(w.b, users.jz.email)).statusCode, 429, 'worker B refuses the banned address')
  assert.doesNotMatch((await fromB(w, david, `/rooms/${pets}`)).body, /pets 1/)
})

test('a membership revoked through worker A closes the room to that person on worker B', async (t) => {
  const w = await workers(t)
  const kevin = await signIn(w.a, 'kevin')
  const room = `/rooms/${watercooler}`
  await warm(w, kevin, [sidebar, search, `${room}/messages`, room])
  assert.match((await fromB(w, kevin, search)).body, /coffee by the watercooler/)
  const fields: [string, number | string][] = [['room[name]', 'Water Cooler'], ['user_ids[]', users.david.id], ['user_ids[]', users.jason.id]]
  assert.equal((await send(w.a, await signIn(w.a, 'david'), 'PATCH', `/rooms/closeds/${watercooler}`, fields)).statusCode, 302)
  assert.doesNotMatch((await fromB(w, kevin, sidebar)).body, /Water Cooler/)
  assert.doesNotMatch((await fromB(w, kevin, search)).body, /coffee by the watercooler/)
  assert.equal((await page(w.b, kevin, `${room}/messages`)).status, 404)
  const refused = await page(w.b, kevin, room)
  assert.equal(refused.status, 302)
  assert.equal(refused.location, '/')
})

test('a session ended through worker A is refused by worker B', async (t) => {
  const w = await workers(t)
  const kevin = await signIn(w.a, 'kevin')
  await warm(w, kevin, [roomPage, sidebar])
  assert.equal((await inject(w.a, kevin, { method: 'DELETE', url: '/session', headers: sameOrigin })).statusCode, 302)
  for (const url of [roomPage, sidebar]) signedOut(await page(w.b, kevin, url), url)
})

test('a role changed through worker A holds on worker B at the next request', async (t) => {
  const w = await workers(t)
  const jason = await signIn(w.a, 'jason')
  await warm(w, jason, [roomPage])
  assert.equal((await page(w.b, jason, '/account/custom_styles/edit')).status, 200)
  assert.equal((await send(w.a, await signIn(w.a, 'david'), 'PATCH', `/account/users/${users.jason.id}`, [['user[role]', 'member']])).statusCode, 302)
  assert.equal((await page(w.b, jason, '/account/custom_styles/edit')).status, 403)
  assert.equal((await send(w.b, jason, 'PATCH', '/account/custom_styles', [['account[custom_styles]', 'body { color: red; }']])).statusCode, 403)
  await fromB(w, jason, roomPage)
})

test('with the naive commit invalidation, a post through worker A misses worker B’s cached pages and shows', async (t) => {
  const w = await workers(t, { CAMPFIRE_PAGE_CACHE_INVALIDATION: 'commit' })
  const david = await signIn(w.a, 'david')
  await warm(w, david, [roomPage, sidebar])
  await send(w.a, await signIn(w.a, 'jason'), 'POST', `/rooms/${hq}/messages`, [['message[body]', 'coffee fresh from worker A']])
  const sidebarAfter = await fromB(w, david, sidebar)
  assert.equal(sidebarAfter.cache, 'miss')
  const room = await fromB(w, david, roomPage)
  assert.equal(room.cache, 'miss')
  assert.match(room.body, /coffee fresh from worker A/)
})
