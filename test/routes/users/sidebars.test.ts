import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { exec, get, gidParam, htmlUnescape, post, seed } from '../messages/support.ts'

const sidebar = (app: Parameters<typeof get>[0], cookie: string) => get(app, cookie, '/users/me/sidebar')

// The opening tag of a sidebar tile: shared rooms are list_rooms_open_<id> / list_rooms_closed_<id>.
function tile(body: string, domId: string): string | undefined {
  return new RegExp(`<a id="${domId}"[^>]*>`).exec(body)?.[0]
}

function classes(tag: string | undefined): string[] {
  assert.ok(tag, 'the tile is there')
  return (/\sclass="([^"]*)"/.exec(tag)?.[1] ?? '').split(/\s+/)
}

function sharedSection(body: string): string {
  const start = body.indexOf('id="shared_rooms"')
  assert.ok(start > 0, 'a #shared_rooms list')
  return body.slice(start, body.indexOf('</div>', start))
}

test('the sidebar is a full document even without a Turbo-Frame header', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await sidebar(app, await signIn(app, 'david'))
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.match(response.body.trim().slice(0, 15), /^<!doctype html>/i)
  assert.ok(response.body.trim().endsWith('</html>'))
  assert.ok(response.body.includes('shared_rooms'))
  assert.match(response.body, /<turbo-frame id="user_sidebar"/)
  const framed = await get(app, await signIn(app, 'david'), '/users/me/sidebar', { 'turbo-frame': 'user_sidebar' })
  assert.equal(framed.statusCode, 200)
  assert.match(framed.body, /<turbo-frame id="user_sidebar"/)
})

test('the sidebar lists the names of your visible shared rooms, sorted by name, and the watercooler id', async (t) => {
  const { app } = await buildTestApp(t)
  const body = (await sidebar(app, await signIn(app, 'david'))).body
  const shared = sharedSection(body)
  const names = [...shared.matchAll(/<span class="overflow-ellipsis">([^<]*)<\/span>/g)].map((m) => m[1])
  assert.deepEqual(names, ['All Pets', 'Designers', 'HQ', 'Water Cooler'])
  assert.ok(body.includes(String(rooms.watercooler.id)))
  assert.ok(tile(body, `list_rooms_closed_${rooms.watercooler.id}`)?.includes(`href="/rooms/${rooms.watercooler.id}"`))
})

test('the sidebar leaves out rooms you are not in and rooms you made invisible', async (t) => {
  const { app } = await buildTestApp(t)
  await exec(app, "UPDATE memberships SET involvement = 'invisible' WHERE room_id = ? AND user_id = ?", rooms.hq.id, users.jz.id)
  const body = (await sidebar(app, await signIn(app, 'jz'))).body
  assert.ok(tile(body, `list_rooms_open_${rooms.pets.id}`))
  assert.ok(tile(body, `list_rooms_closed_${rooms.designers.id}`))
  assert.equal(tile(body, `list_rooms_open_${rooms.hq.id}`), undefined, 'invisible')
  assert.equal(tile(body, `list_rooms_closed_${rooms.watercooler.id}`), undefined, 'not a member')
  assert.ok(!body.includes('Water Cooler'))
  assert.ok(!sharedSection(body).includes('HQ'))
  assert.ok(!body.includes(`href="/rooms/${rooms.hq.id}"`))
})

test('shared room names are HTML-escaped in the sidebar', async (t) => {
  const { app } = await buildTestApp(t)
  await exec(app, 'UPDATE rooms SET name = ? WHERE id = ?', 'Tom & <Jerry>', rooms.hq.id)
  const body = (await sidebar(app, await signIn(app, 'kevin'))).body
  assert.ok(body.includes('Tom &amp; &lt;Jerry&gt;'))
  assert.ok(!body.includes('<Jerry>'))
})

test('direct rooms are listed newest first, by the room’s last activity', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const order = (body: string) => [...body.matchAll(/<a id="list_rooms_direct_(\d+)"/g)].map((m) => Number(m[1]))
  assert.deepEqual(order((await sidebar(app, cookie)).body), [rooms.david_and_kevin.id, rooms.david_and_jason.id], 'created later is newer')
  await post(app, cookie, rooms.david_and_jason.id, 'ping jason', 'pj1')
  assert.deepEqual(order((await sidebar(app, cookie)).body), [rooms.david_and_jason.id, rooms.david_and_kevin.id])
  await post(app, await signIn(app, 'kevin'), rooms.david_and_kevin.id, 'ping david', 'pk1')
  assert.deepEqual(order((await sidebar(app, cookie)).body), [rooms.david_and_kevin.id, rooms.david_and_jason.id])
  const body = (await sidebar(app, cookie)).body
  assert.match(tile(body, `list_rooms_direct_${rooms.david_and_kevin.id}`)!, /href="\/rooms\/6"/)
  assert.ok(!body.includes(`list_rooms_direct_${rooms.bender_and_kevin.id}`), 'not a direct room of mine')
})

test('rooms with unread messages carry the unread class, others do not', async (t) => {
  const { app } = await buildTestApp(t)
  await post(app, await signIn(app, 'jason'), rooms.hq.id, 'news in hq', 'hq1')
  await post(app, await signIn(app, 'jason'), rooms.david_and_jason.id, 'psst', 'dm1')
  const body = (await sidebar(app, await signIn(app, 'david'))).body
  assert.ok(classes(tile(body, `list_rooms_open_${rooms.hq.id}`)).includes('unread'))
  assert.ok(classes(tile(body, `list_rooms_direct_${rooms.david_and_jason.id}`)).includes('unread'))
  assert.ok(!classes(tile(body, `list_rooms_open_${rooms.pets.id}`)).includes('unread'))
  assert.ok(!classes(tile(body, `list_rooms_direct_${rooms.david_and_kevin.id}`)).includes('unread'))
  // The sender's own sidebar does not show its room unread.
  const jason = (await sidebar(app, await signIn(app, 'jason'))).body
  assert.ok(!classes(tile(jason, `list_rooms_open_${rooms.hq.id}`)).includes('unread'))
})

test('the sidebar subscribes to the "rooms" and "<user gid>:rooms" Turbo streams', async (t) => {
  const { app } = await buildTestApp(t)
  const body = (await sidebar(app, await signIn(app, 'kevin'))).body
  const sources = [...body.matchAll(/<turbo-cable-stream-source\s[^>]*?channel="Turbo::StreamsChannel"[^>]*?\ssigned-stream-name="([^"]+)"/g)]
  const names = sources.map((m) => app.signing.verifyStreamName(htmlUnescape(m[1]!)))
  assert.deepEqual(names.sort(), ['rooms', `${gidParam('User', users.kevin.id)}:rooms`].sort())
})

test('placeholders offer a ping to the people you have no direct room with, and not to yourself', async (t) => {
  const { app } = await buildTestApp(t)
  const body = (await sidebar(app, await signIn(app, 'david'))).body
  const offered = [...body.matchAll(/action="\/rooms\/directs\?user_ids%5B%5D=(\d+)"/g)].map((m) => Number(m[1]))
  assert.ok(offered.includes(users.jz.id), 'JZ has no direct room with David')
  for (const id of [users.david.id, users.jason.id, users.kevin.id]) assert.ok(!offered.includes(id), String(id))
  const kevin = (await sidebar(app, await signIn(app, 'kevin'))).body
  const offeredToKevin = [...kevin.matchAll(/action="\/rooms\/directs\?user_ids%5B%5D=(\d+)"/g)].map((m) => Number(m[1]))
  assert.ok(offeredToKevin.includes(users.jason.id) && offeredToKevin.includes(users.jz.id))
  for (const id of [users.kevin.id, users.david.id, users.bender.id]) assert.ok(!offeredToKevin.includes(id), String(id))
})

test('the new-room link is hidden from members when the account restricts room creation to administrators', async (t) => {
  const { app } = await buildTestApp(t)
  const newRoom = /href="\/rooms\/opens\/new"/
  assert.match((await sidebar(app, await signIn(app, 'jz'))).body, newRoom, 'unrestricted: members see it')
  await exec(app, `UPDATE accounts SET settings = '{"restrict_room_creation_to_administrators":true}'`)
  assert.doesNotMatch((await sidebar(app, await signIn(app, 'jz'))).body, newRoom, 'restricted: members do not')
  assert.match((await sidebar(app, await signIn(app, 'david'))).body, newRoom, 'restricted: administrators still do')
})

test('a room whose unread_at is cleared loses the unread class on the next sidebar load', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, rooms.hq.id, users.jason.id, 1, 'unread')
  await exec(app, "UPDATE memberships SET unread_at = '2026-03-01 13:00:00.000000' WHERE room_id = ? AND user_id = ?", rooms.hq.id, users.kevin.id)
  const cookie = await signIn(app, 'kevin')
  assert.ok(classes(tile((await sidebar(app, cookie)).body, `list_rooms_open_${rooms.hq.id}`)).includes('unread'))
  await exec(app, 'UPDATE memberships SET unread_at = NULL WHERE room_id = ? AND user_id = ?', rooms.hq.id, users.kevin.id)
  assert.ok(!classes(tile((await sidebar(app, cookie)).body, `list_rooms_open_${rooms.hq.id}`)).includes('unread'))
})
