import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { get, post, seed } from './support.ts'

const hq = rooms.hq.id

test('a history page carries a weak ETag and its newest message as Last-Modified, as upstream’s fresh_when', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 60)
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/messages?before=${seeded[50]!.id}`)
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers.etag), /^W\/"[0-9a-f]{32}"$/)
  const newest = seeded.slice(10, 50).map((m) => m.updated_at).sort().at(-1)!
  assert.equal(response.headers['last-modified'], new Date(`${newest.replace(' ', 'T')}Z`).toUTCString())
})

test('a matching If-None-Match, with or without If-Modified-Since, gets 304 with no body', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 60)
  const cookie = await signIn(app, 'kevin')
  const url = `/rooms/${hq}/messages?before=${seeded[50]!.id}`
  const first = await get(app, cookie, url)
  const etag = String(first.headers.etag)
  const lastModified = String(first.headers['last-modified'])
  const conditional: Record<string, string>[] = [{ 'if-none-match': etag }, { 'if-none-match': etag, 'if-modified-since': lastModified }, { 'if-modified-since': lastModified }]
  for (const headers of conditional) {
    const again = await get(app, cookie, url, headers)
    assert.equal(again.statusCode, 304, JSON.stringify(headers))
    assert.equal(again.body, '')
    assert.equal(again.headers.etag, etag)
  }
  assert.equal((await get(app, cookie, url, { 'if-none-match': 'W/"something-else"' })).statusCode, 200)
  assert.equal((await get(app, cookie, url, { 'if-none-match': etag, 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).statusCode, 200, 'both validators must match')
})

test('the latest page answers 200 again once a new message changes it', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, hq, users.jason.id, 5)
  const cookie = await signIn(app, 'kevin')
  const url = `/rooms/${hq}/messages`
  const first = await get(app, cookie, url)
  assert.equal(first.statusCode, 200)
  assert.equal((await get(app, cookie, url, { 'if-none-match': String(first.headers.etag) })).statusCode, 304)
  assert.equal((await post(app, cookie, hq, 'Something new', 'fresh1')).statusCode, 200)
  const after = await get(app, cookie, url, { 'if-none-match': String(first.headers.etag) })
  assert.equal(after.statusCode, 200)
  assert.match(after.body, /Something new/)
  assert.notEqual(after.headers.etag, first.headers.etag)
})

test('a room the viewer is not in stays 404 whatever validators the request sends', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, rooms.watercooler.id, users.jason.id, 5)
  const member = await get(app, await signIn(app, 'kevin'), `/rooms/${rooms.watercooler.id}/messages`)
  assert.ok(member.headers.etag)
  const outsider = await get(app, await signIn(app, 'jz'), `/rooms/${rooms.watercooler.id}/messages`, { 'if-none-match': String(member.headers.etag) })
  assert.equal(outsider.statusCode, 404)
})
