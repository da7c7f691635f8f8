import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { postMessage } from '../../../server/models/message/posting.ts'
import type { FastifyInstance } from 'fastify'

let counter = 0
function post(app: FastifyInstance, roomId: number, creatorId: number) {
  return app.store.write((m) => postMessage(m, { roomId, creatorId, clientMessageId: `marked-${++counter}`, body: '<div>hi</div>', plainText: 'hi' }))
}

const membership = (app: FastifyInstance, roomId: number, userId: number) => app.store.read((m) => m.memberships.find(roomId, userId)!)

test('marking a message unread makes the room unread from its time, for that person only', async (t) => {
  const { app } = await buildTestApp(t)
  const message = await post(app, rooms.hq.id, users.jason.id)
  await app.store.write((m) => m.memberships.read(rooms.hq.id, users.david.id))
  assert.equal(await app.store.write((m) => m.unreadMarks.markUnread(message, users.david.id)), true)
  assert.equal(membership(app, rooms.hq.id, users.david.id).unread_at, message.created_at)
  assert.equal(app.store.read((m) => m.unreadMarks.markedMessage(rooms.hq.id, users.david.id))?.id, message.id)
  assert.equal(app.store.read((m) => m.unreadMarks.markedMessage(rooms.hq.id, users.jz.id)), undefined)
})

test('a mark holds only while the room is still unread from that message', async (t) => {
  const { app } = await buildTestApp(t)
  const message = await post(app, rooms.hq.id, users.jason.id)
  await app.store.write((m) => m.unreadMarks.markUnread(message, users.david.id))
  await app.store.write((m) => m.memberships.read(rooms.hq.id, users.david.id))
  assert.equal(app.store.read((m) => m.unreadMarks.markedMessage(rooms.hq.id, users.david.id)), undefined, 'read since')
  await post(app, rooms.hq.id, users.jason.id)
  assert.notEqual(membership(app, rooms.hq.id, users.david.id).unread_at, null, 'unread again, from a later message')
  assert.equal(app.store.read((m) => m.unreadMarks.markedMessage(rooms.hq.id, users.david.id)), undefined, 'the old mark does not come back')
})

test('marking a message in a room the person is not in changes nothing', async (t) => {
  const { app } = await buildTestApp(t)
  const message = await post(app, rooms.designers.id, users.jason.id)
  assert.equal(await app.store.write((m) => m.unreadMarks.markUnread(message, users.kevin.id)), false)
})
