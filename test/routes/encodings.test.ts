import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, cookieHeader, form, inject, signIn } from '../helper.ts'
import { rooms } from '../fixtures.ts'
import { getInEveryEncoding } from '../support/encodings.ts'
import { post } from './messages/support.ts'

const PERSON = { 'user[name]': 'Ada Lovelace', 'user[email_address]': 'ada@example.com', 'user[password]': 'analytical-engine' }

test('a fresh install’s first room, still empty, decompresses strictly, for its first viewer and from the cache', async (t) => {
  const { app } = await buildTestApp(t, { fixtures: false })
  const firstRun = await app.inject({ method: 'POST', url: '/first_run', ...form(PERSON) })
  assert.equal(firstRun.statusCode, 302)
  const cookie = cookieHeader(firstRun)
  const room = app.store.read((m) => m.db.prepare("SELECT id FROM rooms WHERE name = 'All Talk'").pluck().get()) as number
  for (const round of ['miss', 'hit']) {
    const html = await getInEveryEncoding(app, cookie, `/rooms/${room}`)
    assert.match(html, /All Talk/, round)
  }
  await getInEveryEncoding(app, cookie, '/users/me/sidebar')
  await getInEveryEncoding(app, cookie, `/rooms/${room}/messages`, 204)
  await getInEveryEncoding(app, cookie, '/searches?q=nothing')
})

test('empty and nearly empty pages decompress strictly for each viewer: a new room, one message, no search results, no history', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const jason = await signIn(app, 'jason')
  const created = await inject(app, david, { method: 'POST', url: '/rooms/opens', ...form({ 'room[name]': 'Empty for now' }) })
  assert.equal(created.statusCode, 302)
  const empty = app.store.read((m) => m.db.prepare("SELECT id FROM rooms WHERE name = 'Empty for now'").pluck().get()) as number
  for (const cookie of [david, jason, david]) {
    await getInEveryEncoding(app, cookie, `/rooms/${empty}`)
    await getInEveryEncoding(app, cookie, `/rooms/${empty}/messages`, 204)
    await getInEveryEncoding(app, cookie, '/searches?q=zzzznothingmatches')
    await getInEveryEncoding(app, cookie, '/users/me/sidebar')
  }
  assert.ok((await post(app, david, empty, 'The only message')).statusCode < 300)
  const only = app.store.read((m) => m.db.prepare('SELECT id FROM messages WHERE room_id = ?').pluck().get(empty)) as number
  for (const cookie of [david, jason]) {
    assert.match(await getInEveryEncoding(app, cookie, `/rooms/${empty}`), /The only message/)
    assert.match(await getInEveryEncoding(app, cookie, `/rooms/${empty}/messages`), /The only message/)
    await getInEveryEncoding(app, cookie, `/rooms/${empty}/messages?before=${only}`, 204)
    await getInEveryEncoding(app, cookie, `/rooms/${empty}/messages?after=${only}`, 204)
  }
  await getInEveryEncoding(app, david, `/rooms/${rooms.hq.id}`)
})

test('a room whose only message was deleted decompresses strictly', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const room = rooms.designers.id
  await getInEveryEncoding(app, david, `/rooms/${room}`)
  assert.ok((await post(app, david, room, 'Soon gone')).statusCode < 300)
  await getInEveryEncoding(app, david, `/rooms/${room}`)
  const id = app.store.read((m) => m.db.prepare('SELECT id FROM messages WHERE room_id = ?').pluck().get(room)) as number
  const removed = await inject(app, david, { method: 'DELETE', url: `/rooms/${room}/messages/${id}`, headers: { 'sec-fetch-site': 'same-origin', accept: 'text/vnd.turbo-stream.html' } })
  assert.ok(removed.statusCode < 400, `deleted: ${removed.statusCode}`)
  await getInEveryEncoding(app, david, `/rooms/${room}`)
  await getInEveryEncoding(app, david, `/rooms/${room}`)
})

test('every page a signed-in person opens, and the sign-in page, decompresses strictly in every encoding', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  for (const text of ['Something earlier', 'Something to find and boost']) assert.ok((await post(app, david, rooms.hq.id, text)).statusCode < 300)
  const message = app.store.read((m) => m.db.prepare('SELECT MAX(id) FROM messages WHERE room_id = ?').pluck().get(rooms.hq.id)) as number
  const pages = [
    `/rooms/${rooms.hq.id}`, `/rooms/${rooms.watercooler.id}`, `/rooms/${rooms.david_and_jason.id}`, `/rooms/${rooms.hq.id}/@${message}`,
    `/rooms/${rooms.hq.id}/messages`, `/rooms/${rooms.hq.id}/messages?before=${message}`, `/rooms/${rooms.hq.id}/messages/${message}/edit`,
    `/rooms/${rooms.hq.id}/involvement`, `/messages/${message}/boosts/new`, `/messages/${message}/boosts`,
    '/users/me/sidebar', '/searches', '/searches?q=find', '/rooms/opens/new', '/rooms/closeds/new', '/rooms/directs/new',
    `/rooms/opens/${rooms.hq.id}/edit`, `/rooms/closeds/${rooms.watercooler.id}/edit`, '/autocompletable/users?query=j', '/webmanifest.json',
  ]
  for (const url of pages) await getInEveryEncoding(app, david, url)
  for (const url of pages.slice(0, 6)) await getInEveryEncoding(app, david, url)
  await getInEveryEncoding(app, '', '/session/new')
})
