import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildTestApp, form, inject, sameOrigin, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { postMessage } from '../../server/models/message/posting.ts'

let counter = 0
async function post(app: FastifyInstance, roomId: number, creatorId: number, text: string): Promise<{ id: number; cmid: string }> {
  const cmid = `searched-${++counter}`
  const message = await app.store.write((m) => postMessage(m, { roomId, creatorId, clientMessageId: cmid, body: `<div>${text}</div>`, plainText: text }))
  return { id: message.id, cmid }
}

function get(app: FastifyInstance, cookie: string, url: string): Promise<LightMyRequestResponse> {
  return inject(app, cookie, { method: 'GET', url })
}

function submit(app: FastifyInstance, cookie: string, url: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
  const request = form(fields)
  return inject(app, cookie, { method: 'POST', url, payload: request.payload, headers: request.headers })
}

function messageIds(html: string): number[] {
  return [...html.matchAll(/<div\s[^>]*data-message-id="(\d+)"/g)].map((match) => Number(match[1]))
}

function recentQueries(app: FastifyInstance, userId: number): string[] {
  return app.store.read((m) => m.searches.recent(userId).map((search) => search.query))
}

function assertFullDocument(body: string): void {
  assert.match(body.trim().slice(0, 15), /^<!doctype html>/i)
  assert.ok(body.trim().endsWith('</html>'))
}

test('GET /searches without a query shows recent searches and no results', async (t) => {
  const { app } = await buildTestApp(t)
  await post(app, rooms.hq.id, users.jason.id, 'hello there')
  await app.store.write((m) => m.searches.record(users.david.id, 'pizza'))
  const cookie = await signIn(app, 'david')
  const response = await get(app, cookie, '/searches')
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assertFullDocument(response.body)
  assert.deepEqual(messageIds(response.body), [])
  assert.ok(!response.body.includes('searches__query'), 'no query pill')
  assert.ok(response.body.includes('<title>Search</title>'))
  assert.ok(response.body.includes('class="sidebar searches'))
  assert.ok(response.body.includes('href="/searches?q=pizza"'))
  assert.ok(response.body.includes('&#8220;pizza&#8221;'))
  assert.ok(response.body.includes('<div id="message-area" class="message-area">'))
  assert.ok(response.body.includes('<div id="search-results" class="messages searches__results" data-controller="search-results"'))
  assert.match(response.body, /<input [^>]*role="searchbox" aria-label="search"[^>]*name="q"/)
  assert.ok(response.body.includes('Clear recent searches'))
})

test('GET /searches?q= shows reachable matches rendered with the message partial', async (t) => {
  const { app } = await buildTestApp(t)
  const hello = await post(app, rooms.designers.id, users.david.id, 'Hello world!')
  await post(app, rooms.designers.id, users.david.id, 'Goodbye')
  const cookie = await signIn(app, 'david')
  const response = await get(app, cookie, '/searches?q=hello')
  assert.equal(response.statusCode, 200)
  assertFullDocument(response.body)
  assert.deepEqual(messageIds(response.body), [hello.id])
  assert.ok(response.body.includes(`id="message_${hello.cmid}"`))
  assert.match(response.body, new RegExp(`<div id="presentation_message_${hello.cmid}"[^>]*>\\s*<div class="trix-content">\\s*<div>Hello world!</div>`))
  assert.match(response.body, /<span class="message__room">\s*<a [^>]*href="\/rooms\/4\/@\d+">Designers<\/a>/, 'the room name is shown')
  assert.match(response.body, /<span class="overflow-ellipsis">&#8220;hello&#8221;<\/span>\s*<span class="flex-item-no-shrink">1<\/span>/, 'the query pill with the count')
  assert.ok(response.body.includes('value="hello" name="q"'), 'the query stays in the search field')
})

test('messages in rooms without a membership never appear', async (t) => {
  const { app } = await buildTestApp(t)
  const secret = await post(app, rooms.designers.id, users.jason.id, 'secret coffee')
  const open = await post(app, rooms.hq.id, users.jason.id, 'open coffee')
  const ping = await post(app, rooms.david_and_jason.id, users.jason.id, 'private coffee')
  const kevin = await signIn(app, 'kevin')
  const response = await get(app, kevin, '/searches?q=coffee')
  assert.deepEqual(messageIds(response.body), [open.id])
  assert.ok(!response.body.includes('secret coffee') && !response.body.includes('private coffee'))
  assert.ok(!response.body.includes(secret.cmid) && !response.body.includes(ping.cmid))

  const david = await signIn(app, 'david')
  assert.deepEqual(messageIds((await get(app, david, '/searches?q=coffee')).body), [secret.id, open.id, ping.id])
  await app.store.write((m) => m.db.prepare('DELETE FROM memberships WHERE room_id = ? AND user_id = ?').run(rooms.designers.id, users.david.id))
  assert.deepEqual(messageIds((await get(app, david, '/searches?q=coffee')).body), [open.id, ping.id], 'unreachable after leaving')
})

test('shows the newest 100 matches by id, oldest first, with the count', async (t) => {
  const { app } = await buildTestApp(t)
  const ids: number[] = []
  for (let i = 0; i < 105; i++) ids.push((await post(app, i % 3 === 0 ? rooms.pets.id : rooms.hq.id, users.jason.id, `coffee break ${i}`)).id)
  const cookie = await signIn(app, 'kevin')
  const response = await get(app, cookie, '/searches?q=coffee')
  assert.equal(response.statusCode, 200)
  assert.deepEqual(messageIds(response.body), ids.slice(-100))
  assert.match(response.body, /&#8220;coffee&#8221;<\/span>\s*<span class="flex-item-no-shrink">100<\/span>/)
})

test('porter stemming: running finds run', async (t) => {
  const { app } = await buildTestApp(t)
  const run = await post(app, rooms.hq.id, users.jason.id, 'I run in the morning')
  const cookie = await signIn(app, 'kevin')
  assert.deepEqual(messageIds((await get(app, cookie, '/searches?q=running')).body), [run.id])
})

test('hostile queries answer 200, never 500', async (t) => {
  const { app } = await buildTestApp(t)
  const target = await post(app, rooms.hq.id, users.jason.id, 'NOT AND OR NEAR coffee col x')
  const cookie = await signIn(app, 'kevin')
  const queries = ['NOT', 'AND OR', 'OR', 'NEAR', 'NEAR(', 'NEAR(coffee x, 2)', '"', '"coffee', '*', 'coff*', 'col:x', 'body:coffee', '^x', '-x', '(', ')',
    '{body}:x', 'coffee AND', 'NOT coffee', "'; DROP TABLE messages; --", '\\', '_', '\u0301', 'café ☕ 東京 😀', 'a'.repeat(10_000), 'x '.repeat(5_000), '%_%', '   ', '']
  for (const query of queries) {
    const response = await get(app, cookie, `/searches?q=${encodeURIComponent(query)}`)
    assert.equal(response.statusCode, 200, `GET ${JSON.stringify(query.slice(0, 30))}`)
    assertFullDocument(response.body)
  }
  for (const url of ['/searches?q=%ED%A0%80', '/searches?q=%E0%A4%A', '/searches?q=%', '/searches?q[]=x', '/searches?q[x]=1', '/searches?q=NOT&q=coffee', '/searches?q=%00']) {
    const response = await get(app, cookie, url)
    assert.ok(response.statusCode < 500, `GET ${url} answered ${response.statusCode}`)
  }
  assert.deepEqual(messageIds((await get(app, cookie, '/searches?q=NOT')).body), [target.id], 'a lone NOT is a word')
  assert.deepEqual(messageIds((await get(app, cookie, `/searches?q=${encodeURIComponent('NEAR(coffee')}`)).body), [target.id])
  for (const query of ['NOT', 'NEAR(', 'a'.repeat(10_000), '"']) {
    const response = await submit(app, cookie, '/searches', { q: query })
    assert.equal(response.statusCode, 303, `POST ${JSON.stringify(query.slice(0, 30))}`)
  }
})

test('a query is shown escaped', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await get(app, cookie, `/searches?q=${encodeURIComponent('"><script>alert(1)</script>')}`)
  assert.equal(response.statusCode, 200)
  assert.ok(!response.body.includes('<script>alert(1)'))
  assert.ok(response.body.includes('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"'))
})

test('POST /searches records the sanitised query and redirects to its results', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await submit(app, cookie, '/searches', { q: 'hello' })
  assert.equal(response.statusCode, 303)
  assert.equal(response.headers.location, '/searches?q=hello')
  assert.deepEqual(recentQueries(app, users.david.id), ['hello'])

  const punctuated = await submit(app, cookie, '/searches', { q: 'hello, world!' })
  assert.equal(punctuated.headers.location, '/searches?q=hello++world+')
  assert.deepEqual(recentQueries(app, users.david.id), ['hello  world ', 'hello'])

  const blank = await submit(app, cookie, '/searches', { q: '?!' })
  assert.equal(blank.statusCode, 303)
  assert.equal(blank.headers.location, '/searches')
  assert.deepEqual(recentQueries(app, users.david.id), ['hello  world ', 'hello'], 'nothing to search for is not recorded')
})

test('recent searches are deduplicated and capped at ten, newest first', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  for (let i = 1; i <= 12; i++) await submit(app, cookie, '/searches', { q: `word${i}` })
  await submit(app, cookie, '/searches', { q: 'word5' })
  const expected = ['word5', 'word12', 'word11', 'word10', 'word9', 'word8', 'word7', 'word6', 'word4', 'word3']
  assert.deepEqual(recentQueries(app, users.david.id), expected)
  const page = await get(app, cookie, '/searches')
  const links = [...page.body.matchAll(/<nav id="nav">[\s\S]*?<\/nav>/g)][0]![0]
  assert.deepEqual([...links.matchAll(/href="\/searches\?q=(\w+)"/g)].map((match) => match[1]), expected)
})

test('DELETE /searches/clear forgets the recent searches, also as POST with _method=delete', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.searches.record(users.jason.id, 'kept'))
  const cookie = await signIn(app, 'david')
  await submit(app, cookie, '/searches', { q: 'pizza' })
  const response = await inject(app, cookie, { method: 'DELETE', url: '/searches/clear', headers: sameOrigin })
  assert.equal(response.statusCode, 303)
  assert.equal(response.headers.location, '/searches')
  assert.deepEqual(recentQueries(app, users.david.id), [])

  await submit(app, cookie, '/searches', { q: 'pizza' })
  const overridden = await submit(app, cookie, '/searches/clear', { _method: 'delete' })
  assert.equal(overridden.statusCode, 303)
  assert.deepEqual(recentQueries(app, users.david.id), [])
  assert.deepEqual(recentQueries(app, users.jason.id), ['kept'])
  const page = await get(app, cookie, '/searches')
  assert.ok(!page.body.includes('Clear recent searches'), 'no clear button without recent searches')
})

test('the exit link goes back to the last room visited, else the first room', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  const exit = (body: string) => /<a class="btn flex-item-no-shrink margin-block-end"[^>]*href="([^"]*)"><span class="icon icon--arrow-left"/.exec(body)?.[1]
  assert.equal(exit((await get(app, `${kevin}; last_room=${rooms.watercooler.id}`, '/searches')).body), `/rooms/${rooms.watercooler.id}`)
  assert.equal(exit((await get(app, `${kevin}; last_room=${rooms.designers.id}`, '/searches')).body), `/rooms/${rooms.pets.id}`, 'not a room Kevin is in')
  assert.equal(exit((await get(app, `${kevin}; last_room=nonsense`, '/searches')).body), `/rooms/${rooms.pets.id}`)
  await app.store.write((m) => m.db.prepare('DELETE FROM memberships WHERE user_id = ?').run(users.kevin.id))
  assert.equal(exit((await get(app, kevin, '/searches')).body), '/')
})

test('searching requires signing in', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/searches?q=coffee' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/session/new')
  const created = await app.inject({ method: 'POST', url: '/searches', ...form({ q: 'coffee' }) })
  assert.equal(created.statusCode, 401)
})
