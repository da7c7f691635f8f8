import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildTestApp, inject, signIn } from '../../helper.ts'
import { rooms, users, type UserName } from '../../fixtures.ts'
import { postMessage } from '../../../server/models/message/posting.ts'

let counter = 0

function mentionOf(app: FastifyInstance, userId: number): string {
  const sgid = app.signing.signedGlobalId('User', userId)
  return `<action-text-attachment sgid="${sgid}" content-type="application/vnd.campfire.mention"></action-text-attachment>`
}

async function post(app: FastifyInstance, roomId: number, author: UserName, html: string): Promise<number> {
  const message = await app.store.write((m) =>
    postMessage(m, { roomId, creatorId: users[author].id, clientMessageId: `inbox-${++counter}`, body: `<div>${html}</div>`, plainText: 'text' }),
  )
  return message.id
}

function sql(app: FastifyInstance, statement: string, ...params: unknown[]): Promise<unknown> {
  return app.store.write((m) => m.db.prepare(statement).run(...params))
}

function inbox(app: FastifyInstance, cookie: string, url = '/users/me/mentions'): Promise<LightMyRequestResponse> {
  return inject(app, cookie, { method: 'GET', url })
}

function entryIds(html: string): number[] {
  return [...html.matchAll(/<div id="inbox_entry_(\d+)"/g)].map((match) => Number(match[1]))
}

function readIds(html: string): number[] {
  return [...html.matchAll(/<div id="inbox_entry_(\d+)" class="inbox__entry inbox__entry--read"/g)].map((match) => Number(match[1]))
}

test('the inbox lists the messages that mention the person, newest first, each as the room renders it', async (t) => {
  const { app } = await buildTestApp(t)
  const first = await post(app, rooms.hq.id, 'jason', `Hello ${mentionOf(app, users.kevin.id)}`)
  await post(app, rooms.hq.id, 'jason', 'Nobody is mentioned here')
  await post(app, rooms.hq.id, 'jason', `Hello ${mentionOf(app, users.jz.id)}`)
  const second = await post(app, rooms.watercooler.id, 'david', `Coffee, ${mentionOf(app, users.kevin.id)}?`)
  const response = await inbox(app, await signIn(app, 'kevin'))
  assert.equal(response.statusCode, 200)
  assert.ok(response.body.includes('<title>Mentions</title>'))
  assert.deepEqual(entryIds(response.body), [second, first])
  assert.match(response.body, new RegExp(`<span class="message__room">\\s*<a [^>]*href="/rooms/${rooms.watercooler.id}/@${second}">Water Cooler</a>`), 'the room, linking to the message in place')
  assert.ok(response.body.includes('<strong data-reply-target="author">David Heinemeier Hansson</strong>'), 'the author')
  assert.match(response.body, /<time class="message__timestamp" datetime="[^"]+"/, 'the time')
  assert.ok(response.body.includes('data-controller="search-results" data-search-results-newest-first-value="true"'))
  assert.match(response.body, /<turbo-cable-stream-source channel="Turbo::StreamsChannel" signed-stream-name="[^"]+">/, 'a live stream')
})

test('unread Pings are listed; read ones are not, and a read mention is dimmed', async (t) => {
  const { app } = await buildTestApp(t)
  const ping = await post(app, rooms.david_and_kevin.id, 'david', 'Got a minute?')
  const mention = await post(app, rooms.hq.id, 'david', `Thanks ${mentionOf(app, users.kevin.id)}`)
  const kevin = await signIn(app, 'kevin')
  let body = (await inbox(app, kevin)).body
  assert.deepEqual(entryIds(body), [mention, ping])
  assert.deepEqual(readIds(body), [], 'both are unread')
  await sql(app, 'UPDATE memberships SET unread_at = NULL WHERE user_id = ?', users.kevin.id)
  body = (await inbox(app, kevin)).body
  assert.deepEqual(entryIds(body), [mention], 'the read Ping leaves; the read mention stays')
  assert.deepEqual(readIds(body), [mention])
})

test('rooms whose bell is off or invisible, rooms the person left, and deactivated authors are left out', async (t) => {
  const { app } = await buildTestApp(t)
  const heard = await post(app, rooms.hq.id, 'jason', `One ${mentionOf(app, users.kevin.id)}`)
  await post(app, rooms.pets.id, 'jason', `Two ${mentionOf(app, users.kevin.id)}`)
  await post(app, rooms.watercooler.id, 'jason', `Three ${mentionOf(app, users.kevin.id)}`)
  const byJz = await post(app, rooms.hq.id, 'jz', `Four ${mentionOf(app, users.kevin.id)}`)
  const kevin = await signIn(app, 'kevin')
  assert.equal(entryIds((await inbox(app, kevin)).body).length, 4)
  await sql(app, "UPDATE memberships SET involvement = 'nothing' WHERE room_id = ? AND user_id = ?", rooms.pets.id, users.kevin.id)
  await sql(app, 'DELETE FROM memberships WHERE room_id = ? AND user_id = ?', rooms.watercooler.id, users.kevin.id)
  assert.deepEqual(entryIds((await inbox(app, kevin)).body), [byJz, heard])
  await sql(app, 'UPDATE users SET status = 1 WHERE id = ?', users.jz.id)
  assert.deepEqual(entryIds((await inbox(app, kevin)).body), [heard])
  await sql(app, "UPDATE memberships SET involvement = 'invisible' WHERE room_id = ? AND user_id = ?", rooms.hq.id, users.kevin.id)
  assert.deepEqual(entryIds((await inbox(app, kevin)).body), [])
})

test('a deleted message, or one edited to mention nobody, leaves the inbox, also when written by another program', async (t) => {
  const { app } = await buildTestApp(t)
  const deleted = await post(app, rooms.hq.id, 'jason', `One ${mentionOf(app, users.kevin.id)}`)
  const edited = await post(app, rooms.hq.id, 'jason', `Two ${mentionOf(app, users.kevin.id)}`)
  const kevin = await signIn(app, 'kevin')
  assert.deepEqual(entryIds((await inbox(app, kevin)).body), [edited, deleted])
  await sql(app, "UPDATE action_text_rich_texts SET body = '<div>Two</div>' WHERE record_type = 'Message' AND record_id = ?", edited)
  await sql(app, 'DELETE FROM messages WHERE id = ?', deleted)
  assert.deepEqual(entryIds((await inbox(app, kevin)).body), [])
  await sql(app, 'UPDATE action_text_rich_texts SET body = ? WHERE record_type = \'Message\' AND record_id = ?', `<div>Again ${mentionOf(app, users.kevin.id)}</div>`, edited)
  assert.deepEqual(entryIds((await inbox(app, kevin)).body), [edited], 'a mention another program writes appears')
})

test('the inbox pages like room history: 40 entries, then the older ones in a frame that loads them', async (t) => {
  const { app } = await buildTestApp(t)
  const ids: number[] = []
  for (let i = 0; i < 45; i++) ids.push(await post(app, rooms.hq.id, 'jason', `Number ${i} ${mentionOf(app, users.kevin.id)}`))
  const kevin = await signIn(app, 'kevin')
  const first = (await inbox(app, kevin)).body
  const newest = ids.slice().reverse()
  assert.deepEqual(entryIds(first), newest.slice(0, 40))
  const last = newest[39]!
  assert.ok(first.includes(`<turbo-frame id="inbox_older_${last}" src="/users/me/mentions?before=${last}" loading="lazy" target="_top"><a class="inbox__older btn" href="/users/me/mentions?before=${last}">Older mentions</a></turbo-frame>`))
  const older = (await inbox(app, kevin, `/users/me/mentions?before=${last}`)).body
  assert.ok(older.includes(`<turbo-frame id="inbox_older_${last}" target="_top">`), 'the older page answers inside the frame')
  assert.deepEqual(entryIds(older), newest.slice(40))
  assert.ok(!older.includes('src="/users/me/mentions?before='), 'nothing older is left')
})

test('a page before a message that does not exist, or a malformed one, is 404', async (t) => {
  const { app } = await buildTestApp(t)
  const kevin = await signIn(app, 'kevin')
  for (const before of ['999999', 'abc', '1e3', '-1']) {
    assert.equal((await inbox(app, kevin, `/users/me/mentions?before=${before}`)).statusCode, 404, before)
  }
  assert.equal((await inbox(app, kevin, '/users/me/mentions?before=1&before=2')).statusCode, 404)
})

test("another person's id in the address shows one's own inbox, never theirs", async (t) => {
  const { app } = await buildTestApp(t)
  const forKevin = await post(app, rooms.hq.id, 'jason', `Secret ${mentionOf(app, users.kevin.id)}`)
  const forJz = await post(app, rooms.hq.id, 'jason', `Other ${mentionOf(app, users.jz.id)}`)
  const body = (await inbox(app, await signIn(app, 'jz'), `/users/${users.kevin.id}/mentions`)).body
  assert.deepEqual(entryIds(body), [forJz])
  assert.ok(!entryIds(body).includes(forKevin))
})

test('signed out, the inbox redirects to sign in', async (t) => {
  const { app } = await buildTestApp(t)
  const response = await app.inject({ method: 'GET', url: '/users/me/mentions' })
  assert.equal(response.statusCode, 302)
  assert.match(String(response.headers.location), /\/session\/new$/)
})
