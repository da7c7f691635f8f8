import { test } from 'node:test'
import assert from 'node:assert/strict'
import { rooms as roomsModel } from '../../../server/models/room.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase } from './fixture-database.ts'

test('a visit reads the room, the visitor’s unread state and mark, and whether it is the original room, and nothing for a room the person is not in', (t) => {
  const db = fixtureDatabase(t)
  const model = roomsModel(db)
  const original = db.prepare('SELECT id FROM rooms ORDER BY created_at, id LIMIT 1').pluck().get() as number
  const visit = model.visitFor(original, users.david.id)
  assert.ok(visit)
  assert.equal(visit.original, true)
  assert.deepEqual(Object.keys(visit.room).sort(), ['content_version', 'created_at', 'creator_id', 'id', 'name', 'type', 'updated_at'])
  const other = rooms.watercooler.id
  db.prepare("UPDATE memberships SET unread_at = '2026-01-01 00:00:00', campfire_unread_message_id = 7 WHERE room_id = ? AND user_id = ?").run(other, users.david.id)
  const unread = model.visitFor(other, users.david.id)!
  assert.equal(unread.original, false)
  assert.equal(unread.unread, true)
  assert.equal(unread.markedMessageId, 7)
  assert.equal(model.visitFor(other, users.jz.id), undefined, 'JZ is not in the Water Cooler')
  assert.equal(model.visitFor(999_999, users.david.id), undefined)
})
