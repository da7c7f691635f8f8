import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { all, get, one, seed, send, sleep, value } from './support.ts'

const hq = rooms.hq.id

type BoostRecord = { id: number; message_id: number; booster_id: number; content: string }

const boostsOf = (app: Parameters<typeof all>[0], messageId: number) =>
  all<BoostRecord>(app, 'SELECT id, message_id, booster_id, content FROM boosts WHERE message_id = ? ORDER BY id', messageId)

function boost(app: Parameters<typeof all>[0], cookie: string, messageId: number, content: string) {
  return send(app, cookie, 'POST', `/messages/${messageId}/boosts`, { 'boost[content]': content })
}

test('creating a boost stores it and redirects to the message’s boosts frame', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jason.id, 1, 'boostable')
  const response = await boost(app, await signIn(app, 'kevin'), message!.id, '🔥')
  assert.ok([302, 303].includes(response.statusCode), String(response.statusCode))
  assert.equal(response.headers.location, `/messages/${message!.id}/boosts`)
  assert.deepEqual(boostsOf(app, message!.id).map(({ booster_id, content }) => ({ booster_id, content })), [{ booster_id: users.kevin.id, content: '🔥' }])
})

test('a boost of exactly 16 characters is accepted, 17 is refused with 422', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jason.id, 1, 'boostable')
  const cookie = await signIn(app, 'kevin')
  assert.equal((await boost(app, cookie, message!.id, 'x'.repeat(17))).statusCode, 422)
  assert.equal((await boost(app, cookie, message!.id, '🎉'.repeat(17))).statusCode, 422, '17 emoji')
  assert.equal(boostsOf(app, message!.id).length, 0)
  assert.ok([302, 303].includes((await boost(app, cookie, message!.id, 'x'.repeat(16))).statusCode))
  assert.ok([302, 303].includes((await boost(app, cookie, message!.id, '🎉'.repeat(16))).statusCode), '16 emoji are 16 characters')
  assert.deepEqual(boostsOf(app, message!.id).map((b) => b.content), ['x'.repeat(16), '🎉'.repeat(16)])
})

test('a blank or missing boost is refused with 422', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jason.id, 1, 'boostable')
  const cookie = await signIn(app, 'kevin')
  for (const content of ['', '   ', '\n\t']) assert.equal((await boost(app, cookie, message!.id, content)).statusCode, 422, JSON.stringify(content))
  assert.equal((await send(app, cookie, 'POST', `/messages/${message!.id}/boosts`, {})).statusCode, 422, 'no boost[content] at all')
  assert.equal(boostsOf(app, message!.id).length, 0)
})

test('the boosts frame lists each boost with its booster, HTML-escaped', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jason.id, 1, 'boostable')
  await boost(app, await signIn(app, 'kevin'), message!.id, '👍')
  await boost(app, await signIn(app, 'jz'), message!.id, '<b>&lol</b>')
  const [first, second] = boostsOf(app, message!.id)
  const response = await get(app, await signIn(app, 'david'), `/messages/${message!.id}/boosts`)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, new RegExp(`<turbo-frame id="boosting_message_${message!.client_message_id}">`))
  assert.match(response.body, new RegExp(`id="boosts_message_${message!.client_message_id}"`))
  assert.match(response.body, new RegExp(`<div id="boost_${first!.id}"[^>]*data-boost-delete-booster-id-value="${users.kevin.id}"`))
  assert.match(response.body, new RegExp(`<div id="boost_${second!.id}"[^>]*data-boost-delete-booster-id-value="${users.jz.id}"`))
  assert.ok(response.body.indexOf(`boost_${first!.id}`) < response.body.indexOf(`boost_${second!.id}`), 'oldest first')
  assert.ok(response.body.includes('👍'))
  assert.ok(response.body.includes('&lt;b&gt;&amp;lol&lt;/b&gt;'))
  assert.ok(!response.body.includes('<b>&lol</b>'))
  assert.ok(response.body.includes(`Kevin McConnell boosted 👍`) || response.body.includes(users.kevin.name))
})

test('a boost moves the message’s updated_at, and the room’s', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jason.id, 1, 'boostable')
  await sleep(2)
  await boost(app, await signIn(app, 'kevin'), message!.id, '👏')
  const after = one<{ created_at: string; updated_at: string }>(app, 'SELECT created_at, updated_at FROM messages WHERE id = ?', message!.id)!
  assert.ok(after.updated_at > message!.updated_at, `${after.updated_at} > ${message!.updated_at}`)
  assert.equal(after.created_at, message!.created_at)
  assert.ok(value<string>(app, 'SELECT updated_at FROM rooms WHERE id = ?', hq)! >= after.updated_at)
})

test('deleting your own boost answers 204, removes it and touches the message', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jason.id, 1, 'boostable')
  const cookie = await signIn(app, 'kevin')
  await boost(app, cookie, message!.id, '💪')
  const [mine] = boostsOf(app, message!.id)
  const touched = value<string>(app, 'SELECT updated_at FROM messages WHERE id = ?', message!.id)!
  await sleep(2)
  const response = await send(app, cookie, 'DELETE', `/messages/${message!.id}/boosts/${mine!.id}`)
  assert.equal(response.statusCode, 204)
  assert.equal(response.body, '')
  assert.equal(boostsOf(app, message!.id).length, 0)
  assert.ok(value<string>(app, 'SELECT updated_at FROM messages WHERE id = ?', message!.id)! > touched)
})

test('a form POST with _method=delete removes your own boost too', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jason.id, 1, 'boostable')
  const cookie = await signIn(app, 'kevin')
  await boost(app, cookie, message!.id, '💪')
  const [mine] = boostsOf(app, message!.id)
  assert.equal((await send(app, cookie, 'POST', `/messages/${message!.id}/boosts/${mine!.id}`, { _method: 'delete' })).statusCode, 204)
  assert.equal(boostsOf(app, message!.id).length, 0)
})

test('deleting someone else’s boost answers 404 and keeps it, even for an administrator', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jason.id, 1, 'boostable')
  await boost(app, await signIn(app, 'kevin'), message!.id, '❤️')
  const [kevins] = boostsOf(app, message!.id)
  for (const name of ['jz', 'david'] as const) {
    const response = await send(app, await signIn(app, name), 'DELETE', `/messages/${message!.id}/boosts/${kevins!.id}`)
    assert.equal(response.statusCode, 404, name)
  }
  assert.equal(boostsOf(app, message!.id).length, 1)
})

test('a boost addressed through another message answers 404 and is kept', async (t) => {
  const { app } = await buildTestApp(t)
  const [one_, two] = await seed(app, hq, users.jason.id, 2, 'boostable')
  const cookie = await signIn(app, 'kevin')
  await boost(app, cookie, one_!.id, '😂')
  const [mine] = boostsOf(app, one_!.id)
  assert.equal((await send(app, cookie, 'DELETE', `/messages/${two!.id}/boosts/${mine!.id}`)).statusCode, 404)
  assert.equal((await send(app, cookie, 'DELETE', `/messages/${one_!.id}/boosts/abc`)).statusCode, 404)
  assert.equal(boostsOf(app, one_!.id).length, 1)
})

test('boosting, listing or unboosting a message in a room you are not in answers 404', async (t) => {
  const { app } = await buildTestApp(t)
  const [secret] = await seed(app, rooms.watercooler.id, users.jason.id, 1, 'secret')
  await boost(app, await signIn(app, 'kevin'), secret!.id, '👋')
  const [kevins] = boostsOf(app, secret!.id)
  const jz = await signIn(app, 'jz')
  assert.equal((await boost(app, jz, secret!.id, '👋')).statusCode, 404)
  assert.equal((await get(app, jz, `/messages/${secret!.id}/boosts`)).statusCode, 404)
  assert.equal((await get(app, jz, `/messages/${secret!.id}/boosts/new`)).statusCode, 404)
  assert.equal((await send(app, jz, 'DELETE', `/messages/${secret!.id}/boosts/${kevins!.id}`)).statusCode, 404)
  assert.equal(boostsOf(app, secret!.id).length, 1)
  for (const id of ['999999', 'abc', '0']) assert.equal((await boost(app, jz, id as unknown as number, '👋')).statusCode, 404, id)
})

test('the new boost form posts boost[content] into the boosting frame', async (t) => {
  const { app } = await buildTestApp(t)
  const [message] = await seed(app, hq, users.jason.id, 1, 'boostable')
  const response = await get(app, await signIn(app, 'kevin'), `/messages/${message!.id}/boosts/new`)
  assert.equal(response.statusCode, 200)
  assert.match(response.body, new RegExp(`<turbo-frame id="new_boost_message_${message!.client_message_id}">`))
  assert.match(response.body, new RegExp(`<form[^>]*action="/messages/${message!.id}/boosts"[^>]*method="post"[^>]*data-turbo-frame="boosting_message_${message!.client_message_id}"`))
  assert.match(response.body, /name="boost\[content\]"[^>]*maxlength="16"/)
})
