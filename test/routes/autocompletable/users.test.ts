import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildTestApp, inject, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'

interface Suggestion {
  name: string
  value: number
  avatar_url: string
  sgid: string
}

const JSON_ACCEPT = { accept: 'application/json' }

function get(app: FastifyInstance, cookie: string, url: string, headers: Record<string, string> = JSON_ACCEPT): Promise<LightMyRequestResponse> {
  return inject(app, cookie, { method: 'GET', url, headers })
}

function names(response: LightMyRequestResponse): string[] {
  return (response.json() as Suggestion[]).map((s) => s.name)
}

async function addUsers(app: FastifyInstance, list: { name: string; status?: number }[]): Promise<number[]> {
  return app.store.write((m) => {
    const insert = m.db.prepare("INSERT INTO users (name, role, status, created_at, updated_at) VALUES (?, 0, ?, '2026-03-01 12:00:00', '2026-03-01 12:00:00')")
    return list.map((user) => Number(insert.run(user.name, user.status ?? 0).lastInsertRowid))
  })
}

test('returns matching active users as JSON: name, value, avatar_url, sgid', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await get(app, cookie, '/autocompletable/users?query=da')
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  const body = response.json() as Suggestion[]
  assert.equal(body[0]!.name, users.david.name)
  assert.equal(body[0]!.value, users.david.id, 'value is the numeric id, as upstream renders user.id')
  assert.deepEqual(Object.keys(body[0]!), ['name', 'value', 'avatar_url', 'sgid'])
  assert.match(body[0]!.avatar_url, /^http:\/\/[^/]+\/users\/[^/]+\/avatar\?v=\d+$/)
  assert.equal(body[0]!.avatar_url, `http://localhost:80${app.helpers.avatarPath({ id: users.david.id, updated_at: '2026-03-01 12:00:00.000000' })}`)
  assert.equal(body[0]!.sgid, app.signing.signedGlobalId('User', users.david.id))
  assert.deepEqual(app.signing.verifySignedGlobalId(body[0]!.sgid), { model: 'User', id: String(users.david.id) })
})

test('answers JSON without an Accept header, and 406 for HTML only', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const bare = await get(app, cookie, '/autocompletable/users?query=da', {})
  assert.equal(bare.statusCode, 200)
  assert.equal(names(bare)[0], users.david.name)
  const any = await get(app, cookie, '/autocompletable/users?query=da', { accept: '*/*' })
  assert.equal(any.statusCode, 200)
  const html = await get(app, cookie, '/autocompletable/users?query=da', { accept: 'text/html' })
  assert.equal(html.statusCode, 406)
})

test('names are HTML-escaped', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.db.prepare('UPDATE users SET name = ? WHERE id = ?').run(`David <script>alert(123)</script> & 'co' "x"`, users.david.id))
  const cookie = await signIn(app, 'david')
  const response = await get(app, cookie, '/autocompletable/users?query=da')
  assert.equal(names(response)[0], 'David &lt;script&gt;alert(123)&lt;/script&gt; &amp; &#39;co&#39; &quot;x&quot;')
  assert.ok(!response.body.includes('<script>'))
})

test('without a query or room: every active user, ordered by lowercased name', async (t) => {
  const { app } = await buildTestApp(t)
  await addUsers(app, [{ name: 'aaron' }, { name: 'Zed' }, { name: 'Gone Person', status: 1 }, { name: 'Banned Person', status: 2 }])
  const cookie = await signIn(app, 'david')
  const response = await get(app, cookie, '/autocompletable/users')
  assert.deepEqual(names(response), ['aaron', 'Bender Bot', 'David Heinemeier Hansson', 'Jason Fried', 'Jason Zimdars', 'Kevin McConnell', 'Zed'])
  assert.equal(response.headers['x-total-count'], '7')
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?query=%20%20')), names(response), 'a blank query is no filter')
})

test('the query matches anywhere in the name, case-insensitively, with % and _ taken literally', async (t) => {
  const { app } = await buildTestApp(t)
  await addUsers(app, [{ name: '100% Sure' }, { name: 'under_score' }, { name: 'underXscore' }, { name: 'back\\slash' }])
  const cookie = await signIn(app, 'david')
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?query=ZIM')), ['Jason Zimdars'])
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?query=son')), ['David Heinemeier Hansson', 'Jason Fried', 'Jason Zimdars'])
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?query=%25')), ['100% Sure'])
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?query=_')), ['under_score'])
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?query=r_s')), ['under_score'])
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?query=%5C')), ['back\\slash'])
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?query=nobody')), [])
})

test('with room_id: only active members of that room', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  assert.deepEqual(names(await get(app, cookie, `/autocompletable/users?room_id=${rooms.hq.id}&query=da`)), ['David Heinemeier Hansson', 'Jason Zimdars'])
  assert.deepEqual(names(await get(app, cookie, `/autocompletable/users?room_id=${rooms.designers.id}`)), ['David Heinemeier Hansson', 'Jason Fried', 'Jason Zimdars'])
  assert.deepEqual(names(await get(app, cookie, `/autocompletable/users?room_id=${rooms.designers.id}&query=kev`)), [], 'Kevin is not in Designers')
  await app.store.write((m) => m.db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(users.jz.id))
  assert.deepEqual(names(await get(app, cookie, `/autocompletable/users?room_id=${rooms.designers.id}`)), ['David Heinemeier Hansson', 'Jason Fried'], 'deactivated members are left out')
  assert.equal((await get(app, cookie, '/autocompletable/users?room_id=&query=kev')).statusCode, 200, 'an empty room_id means everyone')
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?room_id=&query=kev')), ['Kevin McConnell'])
})

test('a room the requester is not a member of is 404', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  for (const roomId of [String(rooms.designers.id), String(rooms.david_and_jason.id), '999999', 'abc', '-1']) {
    const response = await get(app, kevin, `/autocompletable/users?room_id=${roomId}&query=da`)
    assert.equal(response.statusCode, 404, `room_id=${roomId}`)
    assert.ok(!response.body.includes('David'), 'nothing about the room leaks')
  }
  assert.equal((await get(app, kevin, `/autocompletable/users?room_id=${rooms.watercooler.id}&query=da`)).statusCode, 200)
})

test('pages of 20, with the page parameter read as upstream does', async (t) => {
  const { app } = await buildTestApp(t)
  const extra = Array.from({ length: 45 }, (_, i) => ({ name: `Member ${String(i).padStart(2, '0')}` }))
  await addUsers(app, extra)
  const cookie = await signIn(app, 'david')
  const first = await get(app, cookie, '/autocompletable/users?query=member')
  assert.deepEqual(names(first), extra.slice(0, 20).map((u) => u.name))
  assert.equal(first.headers['x-total-count'], '45')
  assert.equal(first.headers.link, '<http://localhost:80/autocompletable/users?page=2&query=member>; rel="next"')
  const second = await get(app, cookie, '/autocompletable/users?query=member&page=2')
  assert.deepEqual(names(second), extra.slice(20, 40).map((u) => u.name))
  const third = await get(app, cookie, '/autocompletable/users?query=member&page=3')
  assert.deepEqual(names(third), extra.slice(40).map((u) => u.name))
  assert.equal(third.headers.link, undefined, 'no next page after the last')
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?query=member&page=4')), [])
  for (const page of ['0', '-3', 'abc', '']) {
    assert.deepEqual(names(await get(app, cookie, `/autocompletable/users?query=member&page=${page}`)), names(first), `page=${page} is page 1`)
  }
  assert.deepEqual(names(await get(app, cookie, '/autocompletable/users?query=member&page=2abc')), names(second), 'leading digits count, like to_i')
  assert.equal((await get(app, cookie, '/autocompletable/users?query=member&page=99999999999999999999')).statusCode, 200)
})

test('requires signing in', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/autocompletable/users?query=da', headers: JSON_ACCEPT })
  assert.equal(response.statusCode, 401)
})

test('a query longer than SQLite takes in a LIKE pattern matches no one (200 and an empty list), not a 500', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  for (const query of ['x'.repeat(60_000), '%'.repeat(30_000), 'é'.repeat(30_000)]) {
    for (const room of ['', `&room_id=${rooms.hq.id}`]) {
      const response = await get(app, cookie, `/autocompletable/users?query=${encodeURIComponent(query)}${room}`)
      assert.equal(response.statusCode, 200, `${query.slice(0, 3)}… (${query.length})${room} answered ${response.statusCode}`)
      assert.deepEqual(response.json(), [])
      assert.equal(response.headers['x-total-count'], '0')
    }
  }
  // A long query that fits still searches.
  await addUsers(app, [{ name: 'A'.repeat(200) }])
  assert.deepEqual(names(await get(app, cookie, `/autocompletable/users?query=${'a'.repeat(200)}`)), ['A'.repeat(200)])
})
