import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { botCookie, get, memberIds, newestRoomId, restrictRoomCreation, roomCount, roomRow, send } from './support.ts'

const everyone = Object.values(users).map((user) => user.id)

test('GET /rooms/opens/:id redirects to the room and remembers it as the last one visited', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'david'), `/rooms/opens/${rooms.pets.id}`)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${rooms.pets.id}`)
  assert.equal(response.cookies.find((c) => c.name === 'last_room')?.value, String(rooms.pets.id))
})

test('GET /rooms/opens/new shows a form for a room named "New room" listing every active person', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'jz'), '/rooms/opens/new')
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<form action="\/rooms\/opens" accept-charset="UTF-8" method="post">/)
  assert.match(response.body, /<input type="text" name="room\[name\]" id="room_name" value="New room"/)
  assert.match(response.body, /href="\/rooms\/closeds\/new"/, 'the Everyone switch leads to the closed-room form')
  assert.match(response.body, /Give only some access to this room/)
  for (const user of Object.values(users)) assert.ok(response.body.includes(`<strong class="room-access__name">${user.name}</strong>`), user.name)
  assert.ok(!response.body.includes('_method'), 'a new room is created with POST')
})

test('POST /rooms/opens creates an open room for every active user and redirects to it', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'david'), 'POST', '/rooms/opens', [['room[name]', 'My New Room']])
  const id = newestRoomId(app)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${id}`)
  assert.deepEqual(roomRow(app, id), { name: 'My New Room', type: 'Rooms::Open', creator_id: users.david.id })
  assert.deepEqual(memberIds(app, id), everyone)
})

test('a member may create an open room while the account leaves room creation to everyone', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'jz'), 'POST', '/rooms/opens', [['room[name]', 'Pets too']])
  assert.equal(response.statusCode, 302)
  assert.equal(roomRow(app, newestRoomId(app))?.creator_id, users.jz.id)
})

test('when the account restricts room creation to administrators, members and bots get 403 for new and create', async (t) => {
  const { app } = await buildTestApp(t)
  await restrictRoomCreation(app)
  const before = roomCount(app)
  for (const cookie of [await signIn(app, 'jz'), await botCookie(app)]) {
    assert.equal((await get(app, cookie, '/rooms/opens/new')).statusCode, 403)
    assert.equal((await send(app, cookie, 'POST', '/rooms/opens', [['room[name]', 'My New Room']])).statusCode, 403)
  }
  assert.equal(roomCount(app), before)
})

test('when the account restricts room creation, administrators still create open rooms', async (t) => {
  const { app } = await buildTestApp(t)
  await restrictRoomCreation(app)
  const cookie = await signIn(app, 'jason')
  assert.equal((await get(app, cookie, '/rooms/opens/new')).statusCode, 200)
  assert.equal((await send(app, cookie, 'POST', '/rooms/opens', [['room[name]', 'Admins only']])).statusCode, 302)
  assert.equal(roomRow(app, newestRoomId(app))?.name, 'Admins only')
})

for (const [label, fields] of [
  ['a blank name', [['room[name]', '   ']]],
  ['a name over 255 characters', [['room[name]', 'x'.repeat(256)]]],
  ['no name at all', []],
  ['a name sent as a list', [['room[name][]', 'Pets']]],
] as [string, [string, string][]][]) {
  test(`POST /rooms/opens with ${label} answers 422 with the form and creates nothing`, async (t) => {
    const { app } = await buildTestApp(t)
    const before = roomCount(app)
    const response = await send(app, await signIn(app, 'david'), 'POST', '/rooms/opens', fields)
    assert.equal(response.statusCode, 422)
    assert.match(response.body, /role="alert"/)
    assert.equal(roomCount(app), before)
  })
}

test('PUT /rooms/opens/:id lets an administrator who did not create the room rename it', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'jason'), 'PUT', `/rooms/opens/${rooms.pets.id}`, [['room[name]', 'New Name']])
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${rooms.pets.id}`)
  assert.equal(roomRow(app, rooms.pets.id)?.name, 'New Name')
})

test('the member who created an open room may rename it, through a form posting _method=patch', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  await send(app, cookie, 'POST', '/rooms/opens', [['room[name]', 'Mine']])
  const id = newestRoomId(app)
  const response = await send(app, cookie, 'POST', `/rooms/opens/${id}`, [['_method', 'patch'], ['room[name]', 'Still mine']])
  assert.equal(response.statusCode, 302)
  assert.equal(roomRow(app, id)?.name, 'Still mine')
})

test('a member who neither administers nor created the room gets 403 and the name stays', async (t) => {
  const { app } = await buildTestApp(t)
  for (const cookie of [await signIn(app, 'jz'), await botCookie(app)]) {
    const response = await send(app, cookie, 'PUT', `/rooms/opens/${rooms.hq.id}`, [['room[name]', 'New Name']])
    assert.equal(response.statusCode, 403)
  }
  assert.equal(roomRow(app, rooms.hq.id)?.name, 'HQ')
})

test('updating a closed room through /rooms/opens makes it open and grants everyone access', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'david'), 'PATCH', `/rooms/opens/${rooms.designers.id}`, [['room[name]', "Doesn't matter"]])
  assert.equal(response.statusCode, 302)
  assert.equal(roomRow(app, rooms.designers.id)?.type, 'Rooms::Open')
  assert.deepEqual(memberIds(app, rooms.designers.id), everyone)
})

test('a direct room cannot be promoted to open, by its creator or by an administrator', async (t) => {
  const { app } = await buildTestApp(t)
  for (const [name, room] of [['kevin', rooms.bender_and_kevin], ['david', rooms.david_and_kevin]] as const) {
    const cookie = await signIn(app, name)
    assert.equal((await send(app, cookie, 'PUT', `/rooms/opens/${room.id}`, [['room[name]', 'Watercooler']])).statusCode, 404)
    assert.equal((await get(app, cookie, `/rooms/opens/${room.id}/edit`)).statusCode, 404)
    assert.deepEqual(roomRow(app, room.id), { name: null, type: 'Rooms::Direct', creator_id: room.creator.id })
    assert.deepEqual(memberIds(app, room.id), room.members.map((member) => users[member].id).sort())
  }
})

test('rooms the person is not in, unknown ids and malformed ids are all 404', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  for (const id of [String(rooms.watercooler.id), '999', 'abc', '0', '1e3']) {
    assert.equal((await get(app, cookie, `/rooms/opens/${id}`)).statusCode, 404, id)
    assert.equal((await get(app, cookie, `/rooms/opens/${id}/edit`)).statusCode, 404, id)
  }
  assert.equal((await send(app, cookie, 'PUT', `/rooms/opens/${rooms.watercooler.id}`, [['room[name]', 'Mine now']])).statusCode, 404)
  assert.equal((await send(app, await signIn(app, 'david'), 'PUT', '/rooms/opens/999', [['room[name]', 'Nowhere']])).statusCode, 404)
  assert.equal(roomRow(app, rooms.watercooler.id)?.name, 'Water Cooler')
})

test('an update with a blank name answers 422 and leaves the room as it was', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'david'), 'PUT', `/rooms/opens/${rooms.designers.id}`, [['room[name]', '']])
  assert.equal(response.statusCode, 422)
  assert.deepEqual(roomRow(app, rooms.designers.id), { name: 'Designers', type: 'Rooms::Closed', creator_id: users.jason.id })
})

test('the edit page gives administrators the name field, the save button and the delete button', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'david'), `/rooms/opens/${rooms.hq.id}/edit`)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<form action="\/rooms\/opens\/2" accept-charset="UTF-8" method="post">\s*<input type="hidden" name="_method" value="patch"/)
  assert.match(response.body, /name="room\[name\]" id="room_name" value="HQ"/)
  assert.match(response.body, /<span class="for-screen-reader">Save<\/span>/)
  assert.match(response.body, /<form class="button_to room-settings__delete" method="post" action="\/rooms\/2">\s*<input type="hidden" name="_method" value="delete"/)
  assert.match(response.body, /<span>Delete this room<\/span><span class="for-screen-reader"> \(HQ\)<\/span>/)
  assert.match(response.body, /href="\/rooms\/closeds\/2\/edit"/)
  assert.match(response.body, /<title>Edit settings for HQ<\/title>/)
})

test('other members see the edit page read-only: the name as a heading, the people, nothing to submit and no delete, and their room page links to it', async (t) => {
  const { app } = await buildTestApp(t)
  const jz = await signIn(app, 'jz')
  const response = await get(app, jz, `/rooms/opens/${rooms.hq.id}/edit`)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<h1 class="txt-x-large overflow-wrap">HQ<\/h1>/)
  assert.match(response.body, /<strong class="room-access__name">Kevin McConnell<\/strong>/)
  assert.doesNotMatch(response.body, /room\[name\]|Delete this room|id="room_type"|_method|type="submit"|action="\/rooms\/opens/)
  assert.match((await get(app, jz, `/rooms/${rooms.hq.id}`)).body, /href="\/rooms\/opens\/2\/edit"/)
})

test('DELETE /rooms/opens/:id deletes the room for an administrator and answers 403 to other members', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal((await send(app, await signIn(app, 'kevin'), 'DELETE', `/rooms/opens/${rooms.hq.id}`)).statusCode, 403)
  assert.ok(roomRow(app, rooms.hq.id))
  const response = await send(app, await signIn(app, 'jason'), 'DELETE', `/rooms/opens/${rooms.hq.id}`)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
  assert.equal(roomRow(app, rooms.hq.id), undefined)
})

test('signed-out visitors are sent to sign in', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/rooms/opens/new' })
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/session/new')
})

test('room names are escaped wherever the edit page shows them', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  await send(app, cookie, 'POST', '/rooms/opens', [['room[name]', '<b>"Loud"</b>']])
  const response = await get(app, cookie, `/rooms/opens/${newestRoomId(app)}/edit`)
  assert.equal(response.statusCode, 200)
  assert.doesNotMatch(response.body, /<b>/)
  assert.match(response.body, /value="&lt;b&gt;&quot;Loud&quot;&lt;\/b&gt;"/)
  assert.match(response.body, /<span class="for-screen-reader"> \(&lt;b&gt;&quot;Loud&quot;&lt;\/b&gt;\)<\/span>/)
})
