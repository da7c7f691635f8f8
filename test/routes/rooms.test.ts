import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp, signIn } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { exec, get, gidParam, htmlUnescape, messageIdsInAnyTag, messageIdsInDivs, seed, settle, value } from './messages/support.ts'

const pets = rooms.pets.id
const hq = rooms.hq.id

test('the room page is a full document showing the 40 newest messages by created_at, oldest first', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 45)
  // Make creation order disagree with id order: swap the creation times of the oldest and the newest.
  await app.store.write((m) => {
    const update = m.db.prepare('UPDATE messages SET created_at = ? WHERE id = ?')
    update.run(seeded[44]!.created_at, seeded[0]!.id)
    update.run(seeded[0]!.created_at, seeded[44]!.id)
  })
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}`)
  assert.equal(response.statusCode, 200)
  assert.match(String(response.headers['content-type']), /^text\/html/)
  assert.match(response.body.trim().slice(0, 15), /^<!doctype html>/i)
  assert.ok(response.body.trim().endsWith('</html>'))
  // By creation time the order is now seeded[44], seeded[1..43], seeded[0]: the newest 40 are
  // seeded[5..43] followed by seeded[0].
  assert.deepEqual(messageIdsInDivs(response.body), [...seeded.slice(5, 44), seeded[0]!].map((m) => m.id))
  assert.deepEqual(messageIdsInAnyTag(response.body), messageIdsInDivs(response.body), 'no other tag carries data-message-id')
  for (const message of seeded.slice(5, 44)) assert.ok(response.body.includes(`id="message_${message.client_message_id}"`))
})

test('the room page holds the messages container, the RoomMessagesChannel stream source and the composer', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'jz'), `/rooms/${pets}`)
  assert.equal(response.statusCode, 200)
  const containers = [...response.body.matchAll(/\sid="(messages_rooms?_[a-z]*_?\d+)"/g)].map((match) => match[1])
  assert.deepEqual(containers, [`messages_rooms_open_${pets}`], 'exactly one messages container')

  const source = /<turbo-cable-stream-source\s[^>]*?channel="RoomMessagesChannel"[^>]*?\ssigned-stream-name="([^"]+)"/.exec(response.body)
  assert.ok(source, 'a RoomMessagesChannel source with channel written before signed-stream-name')
  assert.equal(app.signing.verifyStreamName(htmlUnescape(source[1]!)), `${gidParam('Rooms::Open', pets)}:messages`)

  assert.match(response.body, new RegExp(`<form id="composer"[^>]*\\saction="/rooms/${pets}/messages"[^>]*\\smethod="post"`))
  const composer = response.body.slice(response.body.indexOf('<form id="composer"'))
  assert.match(composer.slice(0, composer.indexOf('</form>')), /<lexxy-editor id="message_body"[^>]*\sname="message\[body\]"/)
  assert.match(composer.slice(0, composer.indexOf('</form>')), /name="message\[client_message_id\]"/)
  assert.match(response.body, /<turbo-frame id="user_sidebar"[^>]*\ssrc="\/users\/me\/sidebar"/)
  const updatedAt = value<string>(app, 'SELECT updated_at FROM rooms WHERE id = ?', pets)!
  const loadedAt = Date.parse(`${updatedAt.replace(' ', 'T').slice(0, 23)}Z`)
  assert.match(response.body, new RegExp(`<div id="messages_rooms_open_${pets}"[^\\n]*?data-refresh-room-loaded-at-value="${loadedAt}"`))
  assert.match(response.body, new RegExp(`data-refresh-room-url-value="[^"]*/rooms/${pets}/refresh"`))
})

test('a closed room’s stream is signed for Rooms::Closed and its container is messages_rooms_closed_<id>', async (t) => {
  const { app } = await buildTestApp(t)
  const id = rooms.watercooler.id
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${id}`)
  assert.match(response.body, new RegExp(`id="messages_rooms_closed_${id}"`))
  const source = /<turbo-cable-stream-source\s[^>]*?channel="RoomMessagesChannel"[^>]*?\ssigned-stream-name="([^"]+)"/.exec(response.body)
  assert.equal(app.signing.verifyStreamName(htmlUnescape(source![1]!)), `${gidParam('Rooms::Closed', id)}:messages`)
})

test('visiting a room sets the last_room cookie to it', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await get(app, await signIn(app, 'david'), `/rooms/${hq}`)
  const cookie = response.cookies.find((c) => c.name === 'last_room')
  assert.equal(cookie?.value, String(hq))
  assert.equal(cookie?.path, '/')
})

test('the last_room cookie is sent only when it names another room', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  assert.equal((await get(app, `${david}; last_room=${hq}`, `/rooms/${hq}`)).cookies.find((c) => c.name === 'last_room'), undefined)
  assert.equal((await get(app, `${david}; last_room=${rooms.pets.id}`, `/rooms/${hq}`)).cookies.find((c) => c.name === 'last_room')?.value, String(hq))
})

test('visiting a room clears your unread_at there, and no one else’s', async (t) => {
  const { app } = await buildTestApp(t)
  await exec(app, "UPDATE memberships SET unread_at = '2026-03-01 13:00:00.000000' WHERE room_id IN (?, ?)", hq, pets)
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}`)
  assert.equal(response.statusCode, 200)
  await settle(app)
  assert.equal(value(app, 'SELECT unread_at FROM memberships WHERE room_id = ? AND user_id = ?', hq, users.kevin.id), null)
  assert.equal(value(app, 'SELECT count(*) FROM memberships WHERE room_id = ? AND unread_at IS NOT NULL', hq), 4, 'the others stay unread')
  assert.equal(value(app, 'SELECT unread_at FROM memberships WHERE room_id = ? AND user_id = ?', pets, users.kevin.id), '2026-03-01 13:00:00.000000')
})

test('a room you are not in redirects to / with the alert "Room not found or inaccessible"', async (t) => {
  const { app } = await buildTestApp(t)
  const [secret] = await seed(app, rooms.watercooler.id, users.jason.id, 1, 'secret')
  const cookie = await signIn(app, 'jz')
  for (const url of [`/rooms/${rooms.watercooler.id}`, `/rooms/${rooms.watercooler.id}/@${secret!.id}`, '/rooms/999', '/rooms/abc']) {
    const response = await get(app, cookie, url)
    assert.equal(response.statusCode, 302, url)
    assert.equal(response.headers.location, '/', url)
    assert.ok(!response.body.includes('secret 1'))
    const flash = response.cookies.find((c) => c.name === 'flash')
    assert.ok(flash && decodeURIComponent(flash.value).includes('Room not found or inaccessible'), url)
    assert.equal(response.cookies.find((c) => c.name === 'last_room'), undefined, 'not remembered')
  }
  // The alert shows on the next page.
  const flash = (await get(app, cookie, `/rooms/${rooms.watercooler.id}`)).cookies.find((c) => c.name === 'flash')!
  const next = await get(app, `${cookie}; flash=${flash.value}`, `/rooms/${pets}`)
  assert.match(next.body, /Room not found or inaccessible/)
})

test('/rooms/:room_id/@:message_id shows the 40 before, the message and the 40 after it', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 100)
  const target = seeded[49]!
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/@${target.id}`)
  assert.equal(response.statusCode, 200)
  assert.match(response.body.trim().slice(0, 15), /^<!doctype html>/i)
  assert.deepEqual(messageIdsInDivs(response.body), seeded.slice(9, 90).map((m) => m.id))
  const marked = response.body.includes(`data-messages-highlight-value="${target.id}"`) || new RegExp(`id="message_${target.client_message_id}" class="[^"]*search-highlight`).test(response.body)
  assert.ok(marked, 'the target is marked for highlighting')
  assert.equal(response.cookies.find((c) => c.name === 'last_room')?.value, String(hq))
})

test('near the start of the history the deep link shows what there is before the message', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 100)
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/@${seeded[2]!.id}`)
  assert.deepEqual(messageIdsInDivs(response.body), seeded.slice(0, 43).map((m) => m.id))
})

test('a deep link to a message of another room shows the room’s newest page and nothing of the other room', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 50)
  const [secret] = await seed(app, rooms.designers.id, users.jason.id, 1, 'secret')
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}/@${secret!.id}`)
  assert.equal(response.statusCode, 200)
  assert.deepEqual(messageIdsInDivs(response.body), seeded.slice(10).map((m) => m.id))
  assert.ok(!response.body.includes('secret 1'))
})

test('a deep link with a malformed message id shows the newest page rather than an error', async (t) => {
  const { app } = await buildTestApp(t)
  const seeded = await seed(app, hq, users.jason.id, 45)
  const cookie = await signIn(app, 'kevin')
  for (const id of ['abc', '0', '-1', '99999999999999999999999', '1e3']) {
    const response = await get(app, cookie, `/rooms/${hq}/@${id}`)
    assert.equal(response.statusCode, 200, id)
    assert.deepEqual(messageIdsInDivs(response.body), seeded.slice(5).map((m) => m.id), id)
  }
})

test('GET /rooms redirects to one of your rooms', async (t) => {
  const { app } = await buildTestApp(t)
  for (const name of ['jz', 'kevin', 'david'] as const) {
    const response = await get(app, await signIn(app, name), '/rooms')
    assert.equal(response.statusCode, 302)
    const match = /^\/rooms\/(\d+)$/.exec(String(response.headers.location))
    assert.ok(match, String(response.headers.location))
    const mine = Object.values(rooms).filter((room) => (room.members as readonly string[]).includes(name)).map((room) => room.id)
    assert.ok(mine.includes(Number(match[1]) as never), `${name} → ${match[1]}`)
  }
})

test('the invitation shows in the first room while it has at most 40 messages, and not after', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'kevin')
  const invitation = /id="system_welcome"/
  assert.match((await get(app, cookie, `/rooms/${pets}`)).body, invitation, 'an empty first room')
  assert.match((await get(app, cookie, `/rooms/${pets}`)).body, /\/join\/Ab12-Cd34-Ef56/, 'with the join link')
  await seed(app, pets, users.jason.id, 40)
  assert.match((await get(app, cookie, `/rooms/${pets}`)).body, invitation, '40 messages')
  await seed(app, pets, users.jason.id, 1, 'forty-first')
  assert.doesNotMatch((await get(app, cookie, `/rooms/${pets}`)).body, invitation, '41 messages')
})

test('the invitation never shows in a room other than the first', async (t) => {
  const { app } = await buildTestApp(t)
  const cookie = await signIn(app, 'david')
  for (const room of [hq, rooms.watercooler.id, rooms.david_and_jason.id]) {
    assert.doesNotMatch((await get(app, cookie, `/rooms/${room}`)).body, /id="system_welcome"/, String(room))
  }
})

test('a direct room is titled with the other person’s name', async (t) => {
  const { app } = await buildTestApp(t)
  const id = rooms.david_and_jason.id
  const david = await get(app, await signIn(app, 'david'), `/rooms/${id}`)
  assert.match(david.body, /<title>Jason Fried<\/title>/)
  const h1 = /<h1[^>]*>([\s\S]*?)<\/h1>/.exec(david.body)![1]!
  assert.match(h1, /Jason Fried/)
  assert.doesNotMatch(h1, /David/)
  const jason = await get(app, await signIn(app, 'jason'), `/rooms/${id}`)
  assert.match(jason.body, /<title>David Heinemeier Hansson<\/title>/)
  assert.match(/<h1[^>]*>([\s\S]*?)<\/h1>/.exec(jason.body)![1]!, /David Heinemeier Hansson/)
  assert.match(david.body, new RegExp(`id="messages_rooms_direct_${id}"`))
})

test('a shared room is titled with its name, HTML-escaped', async (t) => {
  const { app } = await buildTestApp(t)
  await exec(app, 'UPDATE rooms SET name = ? WHERE id = ?', 'Tom & <Jerry>', hq)
  const response = await get(app, await signIn(app, 'kevin'), `/rooms/${hq}`)
  assert.match(response.body, /<title>Tom &amp; &lt;Jerry&gt;<\/title>/)
  assert.ok(!response.body.includes('<Jerry>'))
})
