import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { transferId } from '../../server/models/user/transferable.ts'
import { postMessage } from '../../server/models/message/posting.ts'
import { buildTestApp } from '../helper.ts'
import { rooms, users, type UserName } from '../fixtures.ts'

// Who may do what on every route of issue 14: each row is a route, each column someone asking,
// and each cell the status they get (with the redirect's path where there is one). Each row gets
// a fresh app, and the whole row is compared at once, so a failure shows every cell of that row
// that differs.
//
// Routes about a person act on JZ (a member), except in the "admin on self" column, where David
// (an administrator) acts on himself. "—" marks a cell that means nothing for the row.
//
//   anonymous      no cookie
//   member         Kevin, a member: on JZ, another person
//   admin          David, an administrator: on JZ
//   self           JZ, on himself
//   admin on self  David, on himself
//   bot            Bender, a bot, with a session cookie (bots have no password: the session row is
//                  made here); bots get 403 on everything but the bot API and the public endpoints

const SIGN_IN = '302 /session/new'
type Cell = number | string // 403, or '302 /path'; '—' for a cell that does not apply
type Row = [route: string, cells: [anonymous: Cell, member: Cell, admin: Cell, self: Cell, adminOnSelf: Cell, bot: Cell]]
const COLUMNS = ['anonymous', 'member', 'admin', 'self', 'admin on self', 'bot'] as const

// prettier-ignore
const MATRIX: Row[] = [
  //  route                                         anonymous   member            admin             self              admin on self     bot
  ['GET /users/me/profile',                        [SIGN_IN,    200,              200,              200,              200,              403]],
  ['GET /users/:id/profile',                       [SIGN_IN,    200,              200,              200,              200,              403]],
  ['PATCH /users/:id/profile',                     [401,        '302 /users/me/profile', '302 /users/me/profile', '302 /users/me/profile', '302 /users/me/profile', 403]],
  ['PUT /users/:id/profile',                       [401,        '302 /users/me/profile', '302 /users/me/profile', '302 /users/me/profile', '302 /users/me/profile', 403]],
  ['POST /users/:id/profile _method=patch',        [401,        '302 /users/me/profile', '302 /users/me/profile', '302 /users/me/profile', '302 /users/me/profile', 403]],
  // The inbox is always the asker's own, whatever the :id (test/routes/users/mentions.test.ts checks whose).
  ['GET /users/me/mentions',                       [SIGN_IN,    200,              200,              200,              200,              403]],
  ['GET /users/:id/mentions',                      [SIGN_IN,    200,              200,              200,              200,              403]],
  ['GET /users/:id',                               [SIGN_IN,    200,              200,              200,              200,              403]],
  ['GET /users/:avatar_token/avatar',              [SIGN_IN,    200,              200,              200,              200,              403]],
  ['DELETE /users/:id/avatar',                     [401,        '302 /users/me/profile', '302 /users/me/profile', '302 /users/me/profile', '302 /users/me/profile', 403]],
  ['POST /users/:id/avatar _method=delete',        [401,        '302 /users/me/profile', '302 /users/me/profile', '302 /users/me/profile', '302 /users/me/profile', 403]],
  ['GET /session/transfers/:id',                   [200,        200,              200,              200,              200,              200]],
  ['PUT /session/transfers/:id',                   ['302 /',    '302 /',          '302 /',          '302 /',          '302 /',          '302 /']],
  ['PATCH /session/transfers/:id',                 ['302 /',    '302 /',          '302 /',          '302 /',          '302 /',          '302 /']],
  ['POST /session/transfers/:id _method=put',      ['302 /',    '302 /',          '302 /',          '302 /',          '302 /',          '302 /']],
  ['PUT /session/transfers/:forged',               [400,        400,              400,              400,              400,              400]],
  ['GET /qr_code/:id',                             [200,        200,              200,              '—',              '—',              200]],
  ['GET /account/edit',                            [SIGN_IN,    200,              200,              '—',              '—',              403]],
  ['PATCH /account',                               [401,        403,              '302 /account/edit', '—',           '—',              403]],
  ['PUT /account',                                 [401,        403,              '302 /account/edit', '—',           '—',              403]],
  ['PATCH /account.1',                             [401,        403,              '302 /account/edit', '—',           '—',              403]],
  ['POST /account _method=patch',                  [401,        403,              '302 /account/edit', '—',           '—',              403]],
  ['GET /account/logo',                            [200,        200,              200,              '—',              '—',              200]],
  ['DELETE /account/logo',                         [401,        403,              '302 /account/edit', '—',           '—',              403]],
  ['POST /account/logo _method=delete',            [401,        403,              '302 /account/edit', '—',           '—',              403]],
  ['POST /account/join_code',                      [401,        403,              '302 /account/edit', '—',           '—',              403]],
  ['GET /account/custom_styles/edit',              [SIGN_IN,    403,              200,              '—',              '—',              403]],
  ['PATCH /account/custom_styles',                 [401,        403,              '302 /account/custom_styles/edit', '—', '—',          403]],
  ['PUT /account/custom_styles',                   [401,        403,              '302 /account/custom_styles/edit', '—', '—',          403]],
  ['POST /account/custom_styles _method=patch',    [401,        403,              '302 /account/custom_styles/edit', '—', '—',          403]],
  ['GET /account/users.turbo_stream',              [SIGN_IN,    200,              200,              '—',              '—',              403]],
  ['GET /account/users',                           [SIGN_IN,    200,              200,              '—',              '—',              403]],
  ['PATCH /account/users/:id',                     [401,        403,              '302 /account/edit', 403,           403,              403]],
  ['PUT /account/users/:id',                       [401,        403,              '302 /account/edit', 403,           403,              403]],
  ['DELETE /account/users/:id',                    [401,        403,              '302 /account/edit', 403,           403,              403]],
  ['POST /account/users/:id _method=delete',       [401,        403,              '302 /account/edit', 403,           403,              403]],
  ['POST /users/:id/ban',                          [401,        403,              '302 /users/:id', 403,              403,              403]],
  // JZ is banned for these two rows, so he cannot be signed in to ask.
  ['DELETE /users/:id/ban',                        [401,        403,              '302 /users/:id', '—',              403,              403]],
  ['POST /users/:id/ban _method=delete',           [401,        403,              '302 /users/:id', '—',              403,              403]],
  // Issue 15's bots page acts on Bender (the only bot); the bot API itself is tested in test/routes/messages/by-bots.test.ts.
  // Room settings (HQ is open, Water Cooler closed, both made by others than Kevin): every member sees
  // the page, read-only unless they may change the room; only administrators and the creator change
  // or delete it.
  ['GET /rooms/opens/:hq/edit',                    [SIGN_IN,    200,              200,              '—',              '—',              403]],
  ['PATCH /rooms/opens/:hq',                       [401,        403,              '302 /rooms/2',   '—',              '—',              403]],
  ['DELETE /rooms/opens/:hq',                      [401,        403,              '302 /',          '—',              '—',              403]],
  ['GET /rooms/closeds/:watercooler/edit',         [SIGN_IN,    200,              200,              '—',              '—',              403]],
  ['PUT /rooms/closeds/:watercooler',              [401,        403,              '302 /rooms/3',   '—',              '—',              403]],
  ['DELETE /rooms/closeds/:watercooler',           [401,        403,              '302 /',          '—',              '—',              403]],
  ['GET /account/bots',                            [SIGN_IN,    403,              200,              '—',              '—',              403]],
  ['GET /account/bots/new',                        [SIGN_IN,    403,              200,              '—',              '—',              403]],
  ['POST /account/bots',                           [401,        403,              '302 /account/bots', '—',           '—',              403]],
  ['GET /account/bots/:bot/edit',                  [SIGN_IN,    403,              200,              '—',              '—',              403]],
  ['PATCH /account/bots/:bot',                     [401,        403,              '302 /account/bots', '—',           '—',              403]],
  ['PUT /account/bots/:bot',                       [401,        403,              '302 /account/bots', '—',           '—',              403]],
  ['DELETE /account/bots/:bot',                    [401,        403,              '302 /account/bots', '—',           '—',              403]],
  ['POST /account/bots/:bot _method=delete',       [401,        403,              '302 /account/bots', '—',           '—',              403]],
  ['PATCH /account/bots/:bot/key',                 [401,        403,              '302 /account/bots', '—',           '—',              403]],
  ['PUT /account/bots/:bot/key',                   [401,        403,              '302 /account/bots', '—',           '—',              403]],
  ['POST /account/bots/:bot/key _method=patch',    [401,        403,              '302 /account/bots', '—',           '—',              403]],
  // Saved messages and mark as unread act on a message in Designers (David, Jason and JZ; not
  // Kevin). A saved list is only ever its own person's: another person's is 404, even to an administrator.
  ['GET /users/me/saves',                          [SIGN_IN,    200,              200,              200,              200,              403]],
  ['GET /users/:id/saves',                         [SIGN_IN,    404,              404,              200,              200,              403]],
  ['GET /users/:forged/saves',                     [SIGN_IN,    404,              404,              404,              404,              403]],
  ['GET /messages/:designers/save',                [SIGN_IN,    404,              200,              200,              200,              403]],
  ['POST /messages/:designers/save',               [401,        404,              200,              200,              200,              403]],
  ['DELETE /messages/:designers/save',             [401,        404,              200,              200,              200,              403]],
  ['POST /messages/:designers/save _method=delete', [401,       404,              200,              200,              200,              403]],
  ['POST /messages/:forged/save',                  [401,        404,              404,              404,              404,              403]],
  ['POST /messages/:designers/unread',             [401,        404,              204,              204,              204,              403]],
  ['POST /messages/:forged/unread',                [401,        404,              404,              404,              404,              403]],
  // Exports: the account's for administrators (404 for the zip until one is ready); a person's own
  // under their own id or "me" (anyone else's is not found). One export runs at a time on the
  // server, so the POST row leaves out the second person who would start one.
  ['GET /account/export',                          [SIGN_IN,    403,              200,              '—',              '—',              403]],
  ['POST /account/export',                         [401,        403,              '302 /account/export', '—',         '—',              403]],
  ['GET /account/export.zip',                      [SIGN_IN,    403,              404,              '—',              '—',              403]],
  ['GET /users/:id/export',                        [SIGN_IN,    404,              404,              200,              200,              403]],
  ['POST /users/:id/export',                       [401,        404,              404,              '302 /users/me/export', '—',        403]],
  ['GET /users/:id/export.zip',                    [SIGN_IN,    404,              404,              404,              404,              403]],
  // Erasing a person: administrators, on someone else.
  ['POST /users/:id/erasure',                      [401,        403,              '302 /account/edit', 403,           403,              403]],
]

const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }
const TURBO_STREAM = 'text/vnd.turbo-stream.html, text/html, application/xhtml+xml'

interface Target {
  id: number
  avatarToken: string
  transferId: string
}

// The one message a fresh app has, posted in Designers by Jason before a row that needs it.
const DESIGNERS_MESSAGE_ID = 1

const roomPath = (path: string) => path.replace(':hq', String(rooms.hq.id)).replace(':watercooler', String(rooms.watercooler.id))

// The request a row makes, for its target.
function requestFor(route: string, target: Target): InjectOptions {
  const [method, path] = route.split(' ') as [InjectOptions['method'], string]
  const form = (fields: Record<string, string>) => ({ method, headers: FORM, payload: new URLSearchParams(fields).toString() })
  switch (route) {
    case 'GET /users/me/profile':
    case 'GET /users/me/mentions':
      return { method, url: path }
    case 'GET /users/:id/mentions':
    case 'GET /users/:id/profile':
    case 'GET /users/:id':
      return { method, url: path.replace(':id', String(target.id)) }
    case 'PATCH /users/:id/profile':
    case 'PUT /users/:id/profile':
      return { ...form({ 'user[bio]': 'Changed by the matrix' }), url: path.replace(':id', String(target.id)) }
    case 'GET /users/:avatar_token/avatar':
      return { method, url: `/users/${target.avatarToken}/avatar` }
    case 'DELETE /users/:id/avatar':
      return { method, url: path.replace(':id', String(target.id)), headers: FORM }
    case 'GET /session/transfers/:id':
      return { method, url: `/session/transfers/${target.transferId}` }
    case 'PUT /session/transfers/:id':
    case 'PATCH /session/transfers/:id':
      return { method, url: `/session/transfers/${target.transferId}`, headers: FORM, payload: '' }
    case 'PUT /session/transfers/:forged':
      return { method, url: `/session/transfers/${target.transferId.slice(0, -4)}beef`, headers: FORM, payload: '' }
    case 'GET /qr_code/:id':
      return { method, url: `/qr_code/${Buffer.from('https://example.com/join/abc').toString('base64url')}` }
    case 'PATCH /account':
    case 'PUT /account':
    case 'PATCH /account.1':
      return { ...form({ 'account[name]': 'Renamed by the matrix' }), url: path }
    case 'GET /account/logo':
    case 'GET /account/edit':
    case 'GET /account/custom_styles/edit':
      return { method, url: path }
    case 'DELETE /account/logo':
    case 'POST /account/join_code':
      return { method, url: path, headers: FORM }
    case 'PATCH /account/custom_styles':
    case 'PUT /account/custom_styles':
      return { ...form({ 'account[custom_styles]': 'body { --matrix: 1; }' }), url: path }
    case 'GET /account/users.turbo_stream':
    case 'GET /account/users':
      return { method, url: path, headers: { accept: TURBO_STREAM } }
    case 'PATCH /account/users/:id':
    case 'PUT /account/users/:id':
      return { ...form({ 'user[role]': 'administrator' }), url: path.replace(':id', String(target.id)) }
    case 'GET /rooms/opens/:hq/edit':
    case 'GET /rooms/closeds/:watercooler/edit':
    case 'DELETE /rooms/opens/:hq':
    case 'DELETE /rooms/closeds/:watercooler':
      return { method, url: roomPath(path), headers: method === 'GET' ? {} : FORM }
    case 'PATCH /rooms/opens/:hq':
      return { ...form({ 'room[name]': 'Renamed by the matrix' }), url: roomPath(path) }
    case 'PUT /rooms/closeds/:watercooler':
      return { method, url: roomPath(path), headers: FORM, payload: `room%5Bname%5D=Renamed&user_ids%5B%5D=${users.kevin.id}` }
    case 'GET /account/bots':
    case 'GET /account/bots/new':
      return { method, url: path }
    case 'POST /account/bots':
      return { ...form({ 'user[name]': 'Matrix Bot' }), url: path }
    case 'GET /account/bots/:bot/edit':
      return { method, url: path.replace(':bot', String(users.bender.id)) }
    case 'PATCH /account/bots/:bot':
    case 'PUT /account/bots/:bot':
      return { ...form({ 'user[name]': 'Renamed by the matrix' }), url: path.replace(':bot', String(users.bender.id)) }
    case 'DELETE /account/bots/:bot':
    case 'PATCH /account/bots/:bot/key':
    case 'PUT /account/bots/:bot/key':
      return { method, url: path.replace(':bot', String(users.bender.id)), headers: FORM }
    case 'GET /account/export':
    case 'GET /account/export.zip':
      return { method, url: path }
    case 'POST /account/export':
      return { ...form({}), url: path }
    case 'GET /users/:id/export':
    case 'GET /users/:id/export.zip':
      return { method, url: path.replace(':id', String(target.id)) }
    case 'POST /users/:id/export':
      return { ...form({}), url: path.replace(':id', String(target.id)) }
    case 'POST /users/:id/erasure':
      return { ...form({ messages: 'delete' }), url: path.replace(':id', String(target.id)) }
    case 'GET /users/me/saves':
      return { method, url: path }
    case 'GET /users/:id/saves':
      return { method, url: path.replace(':id', String(target.id)) }
    case 'GET /users/:forged/saves':
      return { method, url: '/users/1e3/saves' }
    case 'GET /messages/:designers/save':
      return { method, url: path.replace(':designers', String(DESIGNERS_MESSAGE_ID)) }
    case 'POST /messages/:designers/save':
    case 'DELETE /messages/:designers/save':
    case 'POST /messages/:designers/unread':
      return { method, url: path.replace(':designers', String(DESIGNERS_MESSAGE_ID)), headers: FORM, payload: '' }
    case 'POST /messages/:forged/save':
    case 'POST /messages/:forged/unread':
      return { method, url: path.replace(':forged', `${DESIGNERS_MESSAGE_ID}%27`), headers: FORM, payload: '' }
    case 'DELETE /account/users/:id':
    case 'POST /users/:id/ban':
    case 'DELETE /users/:id/ban':
      return { method, url: path.replace(':id', String(target.id)), headers: FORM }
  }
  const override = /^POST (\S+) _method=(\w+)$/.exec(route)
  if (override) {
    const [, overridden, verb] = override as unknown as [string, string, string]
    const base = requestFor(`${verb.toUpperCase()} ${overridden}`, target)
    const fields = new URLSearchParams(typeof base.payload === 'string' ? base.payload : '')
    fields.set('_method', verb)
    return { ...base, method: 'POST', headers: FORM, payload: fields.toString() }
  }
  throw new Error(`no request for ${route}`)
}

// A signed session cookie for a fresh session row (so signing in, rate-limited, is not needed,
// and a bot, which has no password, can have one).
async function sessionCookie(app: FastifyInstance, name: UserName): Promise<string> {
  const token = await app.store.write((m) => m.sessions.start(users[name].id, '127.0.0.1', 'authorization matrix'))
  return `session_token=${app.signing.signCookie('session_token', token)}`
}

function targetOf(app: FastifyInstance, name: UserName): Target {
  const id = users[name].id
  return { id, avatarToken: app.signing.signedId('User', id, 'avatar'), transferId: transferId(app.signing, { id }) }
}

function cellOf(response: { statusCode: number; headers: Record<string, unknown> }): Cell {
  if (response.statusCode < 300 || response.statusCode >= 400) return response.statusCode
  const location = String(response.headers.location ?? '')
  return `${response.statusCode} ${location.startsWith('/') ? location.split('?')[0] : new URL(location).pathname}`
}

// Who asks in each column, and about whom. The columns run in this order so that a cell that
// changes something (a ban, a deactivation) comes after every cell that must not.
const ORDER = [0, 5, 1, 3, 4, 2] as const
// Lifting a ban needs someone banned: JZ is, before the row's first cell.
const STARTS_BANNED = new Set(['DELETE /users/:id/ban', 'POST /users/:id/ban _method=delete'])
const ASKER: (UserName | null)[] = [null, 'kevin', 'david', 'jz', 'david', 'bender']
const TARGET: UserName[] = ['jz', 'jz', 'jz', 'jz', 'david', 'jz']

for (const [route, expected] of MATRIX) {
  test(`authorization: ${route}`, async (t) => {
    const { app } = await buildTestApp(t)
    const cookies = new Map<UserName, string>()
    for (const name of ['kevin', 'david', 'jz', 'bender'] as const) cookies.set(name, await sessionCookie(app, name))
    if (route.includes(':designers')) {
      const message = await app.store.write((m) => postMessage(m, { roomId: rooms.designers.id, creatorId: users.jason.id, clientMessageId: 'matrix-1', body: '<div>design</div>', plainText: 'design' }))
      assert.equal(message.id, DESIGNERS_MESSAGE_ID)
    }
    if (STARTS_BANNED.has(route)) {
      await app.store.write((m) => m.db.prepare('UPDATE users SET status = 2 WHERE id = ?').run(users.jz.id))
    }

    const actual: Cell[] = [...expected]
    for (const column of ORDER) {
      if (expected[column] === '—') continue
      const asker = ASKER[column]!
      const target = targetOf(app, TARGET[column]!)
      const request = requestFor(route, target)
      const cookie = asker ? cookies.get(asker)! : undefined
      const response = await app.inject({ ...request, headers: { ...(request.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } })
      actual[column] = cellOf(response)
    }
    const wanted = expected.map((cell) => (typeof cell === 'string' ? cell.replace(':id', String(users.jz.id)) : cell))
    assert.deepEqual(
      Object.fromEntries(COLUMNS.map((name, i) => [name, actual[i]])),
      Object.fromEntries(COLUMNS.map((name, i) => [name, wanted[i]])),
    )
  })
}
