import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { get, messageIdsInDivs, post, seed, send, sleep, value } from '../messages/support.ts'

const hq = rooms.hq.id

function streams(body: string): { action: string; target: string; content: string }[] {
  return [...body.matchAll(/<turbo-stream action="([^"]+)" target="([^"]+)"[^>]*>(?:<template>([\s\S]*?)<\/template>)?<\/turbo-stream>/g)].map((m) => ({
    action: m[1]!,
    target: m[2]!,
    content: m[3] ?? '',
  }))
}

test('since=<ms> appends the messages created after it and replaces those updated after it but created before', async (t) => {
  const { app } = await buildTestApp(t)
  const [old1, old2, untouched] = await seed(app, hq, users.jason.id, 3, 'before')
  await sleep(3)
  const since = Date.now()
  await sleep(3)
  const jason = await signIn(app, 'jason')
  await send(app, jason, 'PATCH', `/rooms/${hq}/messages/${old1!.id}`, { 'message[body]': 'edited after since' })
  await send(app, await signIn(app, 'kevin'), 'POST', `/messages/${old2!.id}/boosts`, { 'boost[content]': '🎉' })
  const fresh = await seed(app, hq, users.jz.id, 2, 'after')

  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/refresh?since=${since}&reason=reconnect`)
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'text/vnd.turbo-stream.html; charset=utf-8')
  const parts = streams(response.body)
  assert.equal(parts.map((p) => `<turbo-stream action="${p.action}" target="${p.target}">`).join(''), response.body.match(/<turbo-stream [^>]*>/g)!.join(''))

  const appends = parts.filter((p) => p.action === 'append')
  assert.equal(appends.length, 1)
  assert.equal(appends[0]!.target, `messages_rooms_open_${hq}`)
  assert.deepEqual(messageIdsInDivs(appends[0]!.content), fresh.map((m) => m.id))

  const replaces = parts.filter((p) => p.action === 'replace')
  assert.deepEqual(replaces.map((p) => p.target).sort(), [`message_${old1!.client_message_id}`, `message_${old2!.client_message_id}`].sort())
  const edited = replaces.find((p) => p.target === `message_${old1!.client_message_id}`)!
  assert.deepEqual(messageIdsInDivs(edited.content), [old1!.id], 'the whole message partial')
  assert.match(edited.content, /edited after since/)
  assert.match(replaces.find((p) => p.target === `message_${old2!.client_message_id}`)!.content, /🎉/)
  assert.ok(!response.body.includes(`message_${untouched!.client_message_id}"`), 'an untouched message is not sent')
  assert.equal(parts.length, 3)
})

test('a message created after since is only appended, never also replaced', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, hq, users.jason.id, 1, 'before')
  await sleep(3)
  const since = Date.now()
  await sleep(3)
  const cookie = await signIn(app, 'jz')
  await post(app, cookie, hq, 'new and then edited', 'newedit1')
  const id = value<number>(app, "SELECT id FROM messages WHERE client_message_id = 'newedit1'")!
  await send(app, cookie, 'PATCH', `/rooms/${hq}/messages/${id}`, { 'message[body]': 'edited twice' })
  const response = await get(app, cookie, `/rooms/${hq}/refresh?since=${since}`)
  const parts = streams(response.body)
  assert.deepEqual(parts.map((p) => p.action), ['append'])
  assert.deepEqual(messageIdsInDivs(parts[0]!.content), [id])
})

test('at most 40 new messages are appended, the oldest 40 after since', async (t) => {
  const { app } = await buildTestApp(t)
  await sleep(2)
  const since = Date.now()
  await sleep(2)
  const fresh = await seed(app, hq, users.jason.id, 45, 'burst')
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/refresh?since=${since}`)
  const parts = streams(response.body)
  const appends = parts.filter((p) => p.action === 'append')
  assert.equal(appends.length, 1)
  assert.deepEqual(messageIdsInDivs(appends[0]!.content), fresh.slice(0, 40).map((m) => m.id))
  const appended = new Set(fresh.slice(0, 40).map((m) => `message_${m.client_message_id}`))
  assert.ok(parts.every((p) => p.action === 'append' || !appended.has(p.target)), 'no appended message is also replaced')
})

test('edits made after since are replaced even when more than 40 messages were posted after them', async (t) => {
  const { app } = await buildTestApp(t)
  const old = await seed(app, hq, users.jason.id, 3, 'before')
  await sleep(3)
  const since = Date.now()
  await sleep(3)
  const jason = await signIn(app, 'jason')
  for (const message of old) {
    const edit = await send(app, jason, 'PATCH', `/rooms/${hq}/messages/${message.id}`, { 'message[body]': `edited ${message.id}` })
    assert.equal(edit.statusCode, 303)
  }
  await seed(app, hq, users.jz.id, 40, 'flood')
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/refresh?since=${since}`)
  const replaced = streams(response.body).filter((p) => p.action === 'replace').map((p) => p.target)
  // §5.6: the updated set excludes the new messages and then takes up to 40, so all three edits come back.
  assert.deepEqual(replaced.sort(), old.map((m) => `message_${m.client_message_id}`).sort())
})

test('nothing new answers 200 with an empty stream', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, hq, users.jason.id, 3)
  await sleep(3)
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/refresh?since=${Date.now()}`)
  assert.ok(response.statusCode === 200 || response.statusCode === 204, String(response.statusCode))
  assert.equal(response.body.trim(), '')
})

test('garbage in since answers 400, never 500', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, hq, users.jason.id, 3)
  const cookie = await signIn(app, 'kevin')
  for (const since of ['abc', '12abc', '-5', 'Infinity', 'NaN', '1e400', '9'.repeat(40), '%00']) {
    const response = await get(app, cookie, `/rooms/${hq}/refresh?since=${since}`)
    assert.equal(response.statusCode, 400, since)
  }
  for (const query of ['since[]=1', 'since[a]=1', 'since=1&since=2', 'since=8.64e15', 'since=8640000000000001']) {
    const response = await get(app, cookie, `/rooms/${hq}/refresh?${query}`)
    assert.ok(response.statusCode < 500, `${query} → ${response.statusCode}`)
  }
})

test('the refresh of a room you are not in answers 404 and shows none of its messages', async (t) => {
  const { app } = await buildTestApp(t)
  await seed(app, rooms.watercooler.id, users.jason.id, 2, 'secret')
  const cookie = await signIn(app, 'jz')
  for (const url of [`/rooms/${rooms.watercooler.id}/refresh?since=0`, '/rooms/999/refresh?since=0', '/rooms/abc/refresh?since=0']) {
    const response = await get(app, cookie, url)
    assert.equal(response.statusCode, 404, url)
    assert.ok(!response.body.includes('secret'))
  }
})
