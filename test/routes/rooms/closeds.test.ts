import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { botCookie, get, memberIds, newestRoomId, query, restrictRoomCreation, roomCount, roomRow, send } from './support.ts'

const { david, jason, jz, kevin, bender } = users
const ids = (...people: { id: number }[]) => people.map((person): [string, number] => ['user_ids[]', person.id])

test('GET /rooms/closeds/:id redirects to the room', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'david'), `/rooms/closeds/${rooms.designers.id}`)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${rooms.designers.id}`)
})

test('GET /rooms/closeds/new keeps the creator in through a hidden field and offers a switch for everyone else', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'kevin'), '/rooms/closeds/new')
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<form action="\/rooms\/closeds" accept-charset="UTF-8" method="post">/)
  assert.match(response.body, new RegExp(`<input type="hidden" name="user_ids\\[\\]" value="${kevin.id}"`))
  assert.doesNotMatch(response.body, new RegExp(`type="checkbox" name="user_ids\\[\\]" value="${kevin.id}"`))
  for (const other of [david, jason, jz, bender]) {
    assert.match(response.body, new RegExp(`<input type="checkbox" name="user_ids\\[\\]" value="${other.id}" class="switch__input">`))
    assert.ok(response.body.includes(`Give ${other.name} access to this room`), other.name)
  }
  assert.match(response.body, /href="\/rooms\/opens\/new"/)
  assert.match(response.body, /Give everyone access to this room/)
})

test('POST /rooms/closeds creates a closed room with exactly the chosen people and redirects to it', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'david'), 'POST', '/rooms/closeds', [['room[name]', 'My New Room'], ...ids(david, kevin, jason)])
  const id = newestRoomId(app)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${id}`)
  assert.deepEqual(roomRow(app, id), { name: 'My New Room', type: 'Rooms::Closed', creator_id: david.id })
  assert.deepEqual(memberIds(app, id), [david.id, jason.id, kevin.id])
})

test('the creator is always in a new closed room, and unknown or malformed ids are ignored', async (t) => {
  const { app } = await buildTestApp(t)
  const fields: [string, string | number][] = [['room[name]', 'Secret'], ['user_ids[]', jz.id], ['user_ids[]', 999], ['user_ids[]', 'abc'], ['user_ids[]', '-1']]
  assert.equal((await send(app, await signIn(app, 'kevin'), 'POST', '/rooms/closeds', fields)).statusCode, 302)
  assert.deepEqual(memberIds(app, newestRoomId(app)), [jz.id, kevin.id])
})

test('when the account restricts room creation to administrators, members get 403 for closed rooms too', async (t) => {
  const { app } = await buildTestApp(t)
  await restrictRoomCreation(app)
  const before = roomCount(app)
  const cookie = await signIn(app, 'jz')
  assert.equal((await get(app, cookie, '/rooms/closeds/new')).statusCode, 403)
  assert.equal((await send(app, cookie, 'POST', '/rooms/closeds', [['room[name]', 'My New Room'], ...ids(david, kevin, jason)])).statusCode, 403)
  assert.equal(roomCount(app), before)
})

test('updating revises the memberships: people left out lose access', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'david'), 'PUT', `/rooms/closeds/${rooms.designers.id}`, [['room[name]', 'New Name'], ...ids(david, jz)])
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${rooms.designers.id}`)
  assert.equal(roomRow(app, rooms.designers.id)?.name, 'New Name')
  assert.deepEqual(memberIds(app, rooms.designers.id), [david.id, jz.id])
})

test('updating can grant new people access without touching the others’ bells', async (t) => {
  const { app } = await buildTestApp(t)
  await app.store.write((m) => m.db.prepare("UPDATE memberships SET involvement = 'everything' WHERE room_id = ? AND user_id = ?").run(rooms.designers.id, jz.id))
  await send(app, await signIn(app, 'jason'), 'PATCH', `/rooms/closeds/${rooms.designers.id}`, [['room[name]', 'Designers'], ...ids(david, jason, jz, kevin)])
  assert.deepEqual(memberIds(app, rooms.designers.id), [david.id, jason.id, jz.id, kevin.id])
  assert.equal(query(app, 'SELECT involvement FROM memberships WHERE room_id = ? AND user_id = ?', rooms.designers.id, jz.id), 'everything')
  assert.equal(query(app, 'SELECT involvement FROM memberships WHERE room_id = ? AND user_id = ?', rooms.designers.id, kevin.id), 'mentions')
})

test('updating an open room through /rooms/closeds closes it to the chosen people', async (t) => {
  const { app } = await buildTestApp(t)
  await send(app, await signIn(app, 'david'), 'PUT', `/rooms/closeds/${rooms.pets.id}`, [['room[name]', "Doesn't matter"], ...ids(david, jason)])
  assert.equal(roomRow(app, rooms.pets.id)?.type, 'Rooms::Closed')
  assert.deepEqual(memberIds(app, rooms.pets.id), [david.id, jason.id])
})

test('only administrators and the creator can update; other members and bots get 403 and nothing changes', async (t) => {
  const { app } = await buildTestApp(t)
  const members = memberIds(app, rooms.pets.id)
  for (const cookie of [await signIn(app, 'jz'), await botCookie(app)]) {
    assert.equal((await send(app, cookie, 'PUT', `/rooms/closeds/${rooms.pets.id}`, [['room[name]', 'New Name'], ...ids(jz)])).statusCode, 403)
  }
  assert.deepEqual(roomRow(app, rooms.pets.id), { name: 'All Pets', type: 'Rooms::Open', creator_id: david.id })
  assert.deepEqual(memberIds(app, rooms.pets.id), members)
})

test('a member who created a closed room may revise who is in it', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  await send(app, cookie, 'POST', '/rooms/closeds', [['room[name]', 'Mine'], ...ids(kevin)])
  const id = newestRoomId(app)
  assert.equal((await send(app, cookie, 'PUT', `/rooms/closeds/${id}`, [['room[name]', 'Mine'], ...ids(jz, bender)])).statusCode, 302)
  assert.deepEqual(memberIds(app, id), [jz.id, bender.id])
})

test('a direct room cannot be converted to closed and have its people revised', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'kevin'), 'PUT', `/rooms/closeds/${rooms.bender_and_kevin.id}`, [['room[name]', 'Watercooler'], ...ids(kevin, jz)])
  assert.equal(response.statusCode, 404)
  assert.deepEqual(roomRow(app, rooms.bender_and_kevin.id), { name: null, type: 'Rooms::Direct', creator_id: kevin.id })
  assert.deepEqual(memberIds(app, rooms.bender_and_kevin.id), [kevin.id, bender.id])
})

test('an administrator can remove themselves, after which the room is out of their reach', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await send(app, cookie, 'PUT', `/rooms/closeds/${rooms.designers.id}`, [['room[name]', 'Designers'], ...ids(jason, jz)])
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${rooms.designers.id}`)
  assert.ok(!memberIds(app, rooms.designers.id).includes(david.id))
  assert.equal((await get(app, cookie, `/rooms/closeds/${rooms.designers.id}/edit`)).statusCode, 404)
})

test('a room the person is not in is 404, whatever the verb', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  assert.equal((await get(app, cookie, `/rooms/closeds/${rooms.designers.id}`)).statusCode, 404)
  assert.equal((await get(app, cookie, `/rooms/closeds/${rooms.designers.id}/edit`)).statusCode, 404)
  assert.equal((await send(app, cookie, 'PUT', `/rooms/closeds/${rooms.designers.id}`, [['room[name]', 'x'], ...ids(kevin)])).statusCode, 404)
  assert.deepEqual(memberIds(app, rooms.designers.id), [david.id, jason.id, jz.id])
})

test('an update with an oversized name answers 422 and keeps the members and the name', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'david'), 'PUT', `/rooms/closeds/${rooms.designers.id}`, [['room[name]', 'x'.repeat(300)], ...ids(david)])
  assert.equal(response.statusCode, 422)
  assert.match(response.body, /role="alert"/)
  assert.equal(roomRow(app, rooms.designers.id)?.name, 'Designers')
  assert.deepEqual(memberIds(app, rooms.designers.id), [david.id, jason.id, jz.id])
})

test('the edit page lists the members first, switched on, then everyone else, switched off', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'jason'), `/rooms/closeds/${rooms.watercooler.id}/edit`)
  assert.equal(response.statusCode, 200)
  const switches = [...response.body.matchAll(/name="user_ids\[\]" value="(\d+)" class="switch__input"( checked="checked")?/g)].map((m) => [Number(m[1]), Boolean(m[2])])
  assert.deepEqual(switches, [[david.id, true], [jason.id, true], [kevin.id, true], [bender.id, false], [jz.id, false]])
  assert.match(response.body, /href="\/rooms\/opens\/3\/edit"/)
  assert.match(response.body, /Delete this room<\/span><span class="for-screen-reader"> \(Water Cooler\)/)
})

test('members who cannot administer the room see who has access, read-only, and their room page links to the settings', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  const response = await get(app, kevin, `/rooms/closeds/${rooms.watercooler.id}/edit`)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<h1 class="txt-x-large overflow-wrap">Water Cooler<\/h1>/)
  const listed = [...response.body.matchAll(/<strong class="room-access__name">([^<]+)<\/strong>/g)].map((m) => m[1])
  assert.deepEqual(listed, ['David Heinemeier Hansson', 'Jason Fried', 'Kevin McConnell'])
  assert.doesNotMatch(response.body, /user_ids\[\]|id="room_type"|room\[name\]|Delete this room|type="submit"/)
  const room = await get(app, kevin, `/rooms/${rooms.watercooler.id}`)
  assert.match(room.body, /href="\/rooms\/closeds\/3\/edit"/)
  assert.equal((await send(app, kevin, 'DELETE', `/rooms/closeds/${rooms.watercooler.id}`)).statusCode, 403)
})

test('a filter box appears once there are more than 20 people to choose from', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  assert.doesNotMatch((await get(app, cookie, '/rooms/closeds/new')).body, /placeholder="Filter&#8230;"/)
  await app.store.write((m) => {
    const insert = m.db.prepare("INSERT INTO users (name, role, status, created_at, updated_at) VALUES (?, 0, 0, '2026-03-01', '2026-03-01')")
    for (let n = 0; n < 16; n++) insert.run(`Person ${n}`)
  })
  assert.match((await get(app, cookie, '/rooms/closeds/new')).body, /<input type="search" id="search"[^>]*placeholder="Filter&#8230;" data-filter-target="input" data-action="input->filter#filter">/)
})
