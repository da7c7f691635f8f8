import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { get, memberIds, newestRoomId, query, roomCount, roomRow, send } from './support.ts'

const { david, jason, jz, kevin } = users

test('POST /rooms/directs creates a ping with the chosen people and the creator, and redirects to it', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'david'), 'POST', '/rooms/directs', [['user_ids[]', jz.id]])
  const id = newestRoomId(app)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${id}`)
  assert.deepEqual(roomRow(app, id), { name: null, type: 'Rooms::Direct', creator_id: david.id })
  assert.deepEqual(memberIds(app, id), [david.id, jz.id])
  assert.equal(query(app, "SELECT COUNT(*) FROM memberships WHERE room_id = ? AND involvement = 'everything'", id), 2)
})

test('pinging the same people twice makes only one room', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const before = roomCount(app)
  const first = await send(app, cookie, 'POST', '/rooms/directs', [['user_ids[]', jz.id]])
  const second = await send(app, cookie, 'POST', '/rooms/directs', [['user_ids[]', jz.id], ['user_ids[]', david.id]])
  assert.equal(roomCount(app), before + 1)
  assert.equal(second.headers.location, first.headers.location)
})

test('the other person pinging back finds the same room', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'jason'), 'POST', '/rooms/directs', [['user_ids[]', david.id]])
  assert.equal(response.headers.location, `/rooms/${rooms.david_and_jason.id}`)
})

test('a different set of people gets a new room', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'david'), 'POST', '/rooms/directs', [['user_ids[]', jason.id], ['user_ids[]', kevin.id]])
  const id = newestRoomId(app)
  assert.equal(response.headers.location, `/rooms/${id}`)
  assert.ok(![rooms.david_and_jason.id, rooms.david_and_kevin.id].includes(id as never))
  assert.deepEqual(memberIds(app, id), [david.id, jason.id, kevin.id])
})

test('any member may delete a ping, which takes the room away for everyone', async (t) => {
  const { app } = await buildTestApp(t)
  const before = roomCount(app)
  const response = await send(app, await signIn(app, 'kevin'), 'DELETE', `/rooms/directs/${rooms.david_and_kevin.id}`)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, '/')
  assert.equal(roomCount(app), before - 1)
  assert.deepEqual(memberIds(app, rooms.david_and_kevin.id), [])
})

test('the same works from an HTML form posting _method=delete', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'jason'), 'POST', `/rooms/directs/${rooms.david_and_jason.id}`, [['_method', 'delete']])
  assert.equal(response.statusCode, 302)
  assert.equal(roomRow(app, rooms.david_and_jason.id), undefined)
})

for (const [label, name, room] of [
  ['a closed room the member did not create', 'kevin', rooms.watercooler],
  ['an open room the member did not create', 'kevin', rooms.hq],
  ['a ping the member is not in at all', 'jz', rooms.david_and_kevin],
] as const) {
  test(`deleting through /rooms/directs cannot reach ${label}`, async (t) => {
    const { app } = await buildTestApp(t)
    const before = roomCount(app)
    const response = await send(app, await signIn(app, name), 'DELETE', `/rooms/directs/${room.id}`)
    assert.equal(response.statusCode, 404)
    assert.equal(roomCount(app), before)
    assert.ok(roomRow(app, room.id))
  })
}

test('GET /rooms/directs/new renders the ping picker inside the direct_rooms_control frame', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'jz'), '/rooms/directs/new', { 'turbo-frame': 'direct_rooms_control' })
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<turbo-frame id="direct_rooms_control" target="_top">/)
  assert.match(response.body, /<form class="directs__form flex gap flex-item-grow" data-controller="form" data-action="keydown.esc->form#cancel" action="\/rooms\/directs" accept-charset="UTF-8" method="post">/)
  assert.match(response.body, /<select name="user_ids\[\]" data-autocomplete-target="select" data-template-id="autocompletable-user" multiple hidden required aria-hidden="true" tabindex="-1"><\/select>/)
  assert.match(response.body, /<template id="autocompletable-user">/)
  assert.match(response.body, /data-autocomplete-url-value="\/autocompletable\/users"/)
  assert.match(response.body, /<span class="for-screen-reader">Start Ping<\/span>/)
  assert.doesNotMatch(response.body, /<nav id="nav">/, 'a frame request gets no page chrome')
})

test('the edit page shows the other people in the ping and a delete button', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'david'), `/rooms/directs/${rooms.david_and_kevin.id}/edit`)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<title>Edit settings for Kevin McConnell<\/title>/)
  assert.match(response.body, /<h1 class="txt-large overflow-wrap">Ping with Kevin McConnell<\/h1>/)
  assert.match(response.body, /<strong class="ping-member__name">Kevin McConnell<\/strong>/)
  assert.doesNotMatch(response.body, /<strong class="ping-member__name">David Heinemeier Hansson<\/strong>/)
  assert.match(response.body, /<form class="button_to" method="post" action="\/rooms\/directs\/6">\s*<input type="hidden" name="_method" value="delete"/)
  assert.match(response.body, /<span>Delete this Ping<\/span>/)
})

test('the edit page of a ping with yourself alone shows you', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  await send(app, cookie, 'POST', '/rooms/directs', [])
  const response = await get(app, cookie, `/rooms/directs/${newestRoomId(app)}/edit`)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<strong class="ping-member__name">Jason Zimdars<\/strong>/)
  assert.match(response.body, /<title>Edit settings for Jason Zimdars<\/title>/)
})

test('GET /rooms/directs/:id redirects to the room instead of failing as upstream does', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/directs/${rooms.bender_and_kevin.id}`)
  assert.equal(response.statusCode, 302)
  assert.equal(response.headers.location, `/rooms/${rooms.bender_and_kevin.id}`)
})

test('the directs namespace shows only pings: shared rooms, foreign pings and unknown ids are 404', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  for (const id of [rooms.pets.id, rooms.watercooler.id, rooms.bender_and_kevin.id, 999]) {
    assert.equal((await get(app, cookie, `/rooms/directs/${id}/edit`)).statusCode, 404, String(id))
    assert.equal((await get(app, cookie, `/rooms/directs/${id}`)).statusCode, 404, String(id))
  }
})

test('pings cannot be renamed: there is no update', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await send(app, cookie, 'POST', `/rooms/directs/${rooms.david_and_jason.id}`, [['_method', 'patch'], ['room[name]', 'Renamed']])
  assert.equal(response.statusCode, 405)
  assert.equal(roomRow(app, rooms.david_and_jason.id)?.name, null)
})
