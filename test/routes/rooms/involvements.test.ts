import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { get, query, send } from './support.ts'

const involvementOf = (app: FastifyInstance, roomId: number, userId: number) =>
  query<string | undefined>(app, 'SELECT involvement FROM memberships WHERE room_id = ? AND user_id = ?', roomId, userId)

test('GET /rooms/:room_id/involvement renders the bell in its frame, pointing at the next level', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'david'), `/rooms/${rooms.designers.id}/involvement`, { 'turbo-frame': 'involvement_rooms_closed_4' })
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<turbo-frame id="involvement_rooms_closed_4" data-controller="turbo-frame" data-action="notifications:ready@window->turbo-frame#load" data-turbo-frame-url-param="\/rooms\/4\/involvement">/)
  assert.match(response.body, /<form class="button_to" method="post" action="\/rooms\/4\/involvement\?involvement=everything">\s*<input type="hidden" name="_method" value="put"/)
  assert.match(response.body, /<button aria-labelledby="involvement_label_rooms_closed_4" aria-describedby="involvement_next_rooms_closed_4" class="btn mentions" type="submit">/)
  assert.match(response.body, /<span class="for-screen-reader" id="involvement_label_rooms_closed_4">Notifying about @ mentions<\/span>/)
  assert.match(response.body, /<span class="for-screen-reader" id="involvement_next_rooms_closed_4">Press to notify about all messages<\/span>/)
  assert.doesNotMatch(response.body, /role="checkbox"|aria-checked/, 'four levels are not a checked checkbox')
  assert.doesNotMatch(response.body, /<nav id="nav">/)
})

test('without a Turbo-Frame header the bell comes inside the full page', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'david'), `/rooms/${rooms.pets.id}/involvement`)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, /<nav id="nav">/)
  assert.match(response.body, /id="involvement_rooms_open_1"/)
})

test('clicking through a shared room’s bell cycles mentions, everything, nothing, invisible and back', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  const labels = ['Notifying about @ mentions', 'Notifying about all messages', 'Notifications are off', 'Notifications are off and room invisible in sidebar']
  const levels = ['mentions', 'everything', 'nothing', 'invisible']
  for (let n = 0; n < 4; n++) {
    const page = await get(app, cookie, `/rooms/${rooms.hq.id}/involvement`)
    assert.ok(page.body.includes(`class="btn ${levels[n]}"`) && page.body.includes(labels[n]!), levels[n])
    const next = /action="(\/rooms\/2\/involvement\?involvement=\w+)"/.exec(page.body)![1]!
    const response = await send(app, cookie, 'POST', next, [['_method', 'put']])
    assert.equal(response.statusCode, 302)
    assert.equal(response.headers.location, `/rooms/${rooms.hq.id}/involvement`)
    assert.equal(involvementOf(app, rooms.hq.id, users.jz.id), levels[(n + 1) % 4])
  }
})

test('a ping’s bell toggles between everything and nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const url = `/rooms/${rooms.david_and_jason.id}/involvement`
  assert.match((await get(app, cookie, url)).body, /action="\/rooms\/5\/involvement\?involvement=nothing"/)
  await send(app, cookie, 'PUT', `${url}?involvement=nothing`)
  assert.equal(involvementOf(app, rooms.david_and_jason.id, users.david.id), 'nothing')
  assert.match((await get(app, cookie, url)).body, /action="\/rooms\/5\/involvement\?involvement=everything"/)
  assert.equal(involvementOf(app, rooms.david_and_jason.id, users.jason.id), 'everything', 'the other person’s bell is untouched')
})

test('going invisible and coming back are stored for that person only', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  const response = await send(app, cookie, 'PATCH', `/rooms/${rooms.watercooler.id}/involvement?involvement=invisible`)
  assert.equal(response.statusCode, 302)
  assert.equal(involvementOf(app, rooms.watercooler.id, users.david.id), 'invisible')
  assert.equal(involvementOf(app, rooms.watercooler.id, users.kevin.id), 'mentions')
  await send(app, cookie, 'PUT', `/rooms/${rooms.watercooler.id}/involvement`, [['involvement', 'everything']])
  assert.equal(involvementOf(app, rooms.watercooler.id, users.david.id), 'everything')
})

test('a member who is not an administrator can set their own bell', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await send(app, await signIn(app, 'jz'), 'PUT', `/rooms/${rooms.designers.id}/involvement?involvement=everything`)
  assert.equal(response.statusCode, 302)
  assert.equal(involvementOf(app, rooms.designers.id, users.jz.id), 'everything')
})

for (const value of ['', 'loud', 'Everything', 'invisible&involvement=nothing']) {
  test(`an unknown level (${JSON.stringify(value)}) answers 422 and leaves the bell alone`, async (t) => {
    const { app } = await buildTestApp(t)
    const response = await send(app, await signIn(app, 'david'), 'PUT', `/rooms/${rooms.pets.id}/involvement?involvement=${value}`)
    assert.equal(response.statusCode, 422)
    assert.equal(involvementOf(app, rooms.pets.id, users.david.id), 'mentions')
  })
}

test('no level at all answers 422', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal((await send(app, await signIn(app, 'david'), 'PUT', `/rooms/${rooms.pets.id}/involvement`)).statusCode, 422)
})

test('the bell of a room the person is not in, or of no room at all, is 404', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'jz')
  for (const id of [String(rooms.watercooler.id), String(rooms.david_and_kevin.id), '999', 'abc']) {
    assert.equal((await get(app, cookie, `/rooms/${id}/involvement`)).statusCode, 404, id)
    assert.equal((await send(app, cookie, 'PUT', `/rooms/${id}/involvement?involvement=invisible`)).statusCode, 404, id)
  }
  assert.equal(involvementOf(app, rooms.watercooler.id, users.jz.id), undefined)
})
