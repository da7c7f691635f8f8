import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { buildTestApp } from '../helper.ts'
import { rooms, users } from '../fixtures.ts'
import { postMessage, removeMessage } from '../../server/models/message/posting.ts'
import type { FastifyInstance } from 'fastify'
import type { MessageRow } from '../../server/models/message.ts'

let counter = 0
function post(app: FastifyInstance, roomId: number, creatorId: number, text = 'worth keeping') {
  return app.store.write((m) => postMessage(m, { roomId, creatorId, clientMessageId: `saved-${++counter}`, body: `<div>${text}</div>`, plainText: text }))
}

const savedIds = (app: FastifyInstance, userId: number) => app.store.read((m) => m.savedMessages.page(userId).map((row) => row.id))
const rowCount = (app: FastifyInstance) => app.store.read((m) => m.db.prepare('SELECT count(*) FROM campfire_saved_messages').pluck().get())

test('saved messages are listed newest saved first, each once, and unsaving takes one away', async (t) => {
  const { app } = await buildTestApp(t)
  const first = await post(app, rooms.hq.id, users.jason.id)
  const second = await post(app, rooms.pets.id, users.kevin.id)
  await app.store.write((m) => {
    m.savedMessages.save(users.david.id, second.id)
    m.savedMessages.save(users.david.id, first.id)
    m.savedMessages.save(users.david.id, second.id)
  })
  assert.deepEqual(savedIds(app, users.david.id), [first.id, second.id])
  assert.deepEqual(savedIds(app, users.jason.id), [], 'a save is its person’s alone')
  await app.store.write((m) => m.savedMessages.unsave(users.david.id, first.id))
  assert.deepEqual(savedIds(app, users.david.id), [second.id])
})

test('a page ends at its size, and the next one starts below its last save', async (t) => {
  const { app } = await buildTestApp(t)
  const messages: MessageRow[] = []
  for (let i = 0; i < 5; i++) messages.push(await post(app, rooms.hq.id, users.jason.id, `note ${i}`))
  await app.store.write((m) => messages.forEach((message) => m.savedMessages.save(users.david.id, message.id)))
  const page = app.store.read((m) => m.savedMessages.page(users.david.id, null, 2))
  assert.deepEqual(page.map((row) => row.id), [messages[4]!.id, messages[3]!.id])
  const next = app.store.read((m) => m.savedMessages.page(users.david.id, page.at(-1)!.saved_id, 2))
  assert.deepEqual(next.map((row) => row.id), [messages[2]!.id, messages[1]!.id])
})

test('a deleted message leaves the list, and its row goes with it', async (t) => {
  const { app } = await buildTestApp(t)
  const message = await post(app, rooms.hq.id, users.jason.id)
  await app.store.write((m) => m.savedMessages.save(users.david.id, message.id))
  await app.store.write((m) => removeMessage(m, message))
  assert.deepEqual(savedIds(app, users.david.id), [])
  assert.equal(rowCount(app), 0)
})

test('leaving a room takes the person’s saves of its messages, and only theirs', async (t) => {
  const { app } = await buildTestApp(t)
  const inWatercooler = await post(app, rooms.watercooler.id, users.jason.id)
  const inHq = await post(app, rooms.hq.id, users.jason.id)
  await app.store.write((m) => {
    for (const id of [inWatercooler.id, inHq.id]) m.savedMessages.save(users.kevin.id, id)
    m.savedMessages.save(users.david.id, inWatercooler.id)
  })
  await app.store.write((m) => m.roomMemberships.revokeFrom(rooms.watercooler.id, [users.kevin.id]))
  assert.deepEqual(savedIds(app, users.kevin.id), [inHq.id])
  assert.deepEqual(savedIds(app, users.david.id), [inWatercooler.id])
  assert.equal(rowCount(app), 2)
})

test('an outside writer deleting a message or a membership takes the saved rows too', async (t) => {
  const { app, storage } = await buildTestApp(t)
  const message = await post(app, rooms.hq.id, users.jason.id)
  const other = await post(app, rooms.watercooler.id, users.jason.id)
  await app.store.write((m) => {
    m.savedMessages.save(users.david.id, message.id)
    m.savedMessages.save(users.kevin.id, other.id)
  })
  const file = app.store.writeDb.name
  assert.ok(file.startsWith(storage))
  execFileSync('sqlite3', ['-cmd', '.timeout 5000', file, `DELETE FROM messages WHERE id = ${message.id}; DELETE FROM memberships WHERE room_id = ${rooms.watercooler.id} AND user_id = ${users.kevin.id};`])
  assert.equal(rowCount(app), 0)
})

test('a save in a room the person is not in never shows, however the row got there', async (t) => {
  const { app } = await buildTestApp(t)
  const designers = await post(app, rooms.designers.id, users.jason.id)
  await app.store.write((m) => m.savedMessages.save(users.kevin.id, designers.id))
  assert.deepEqual(savedIds(app, users.kevin.id), [])
})
