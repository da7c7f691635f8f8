import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Connection } from '../../../server/models/database.ts'
import { roomDestruction } from '../../../server/models/room/destruction.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase } from './fixture-database.ts'

const T = '2026-03-02 10:00:00.000000'

// A message the way the app stores one: row, rich-text body, search row, a boost, and an
// attachment on the message plus one embedded in its body.
function insertMessage(db: Connection, roomId: number, text: string): { messageId: number; blobIds: number[] } {
  const messageId = Number(db.prepare('INSERT INTO messages (room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
    .run(roomId, users.david.id, `cid-${text}`, T, T).lastInsertRowid)
  const bodyId = Number(db.prepare("INSERT INTO action_text_rich_texts (name, body, record_type, record_id, created_at, updated_at) VALUES ('body', ?, 'Message', ?, ?, ?)")
    .run(`<p>${text}</p>`, messageId, T, T).lastInsertRowid)
  db.prepare('INSERT INTO message_search_index (rowid, body) VALUES (?, ?)').run(messageId, text)
  db.prepare("INSERT INTO boosts (message_id, booster_id, content, created_at, updated_at) VALUES (?, ?, '👍', ?, ?)").run(messageId, users.jason.id, T, T)
  const blob = db.prepare("INSERT INTO active_storage_blobs (key, filename, byte_size, service_name, created_at) VALUES (?, 'a.png', 1, 'local', ?)")
  const attach = db.prepare("INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES (?, ?, ?, ?, ?)")
  const blobIds = [`${text}-file`, `${text}-embed`].map((key) => Number(blob.run(key, T).lastInsertRowid))
  attach.run('attachment', 'Message', messageId, blobIds[0], T)
  attach.run('embeds', 'ActionText::RichText', bodyId, blobIds[1], T)
  return { messageId, blobIds }
}

function counts(db: Connection, roomId: number, messageIds: number[]) {
  const ids = JSON.stringify(messageIds)
  const count = (sql: string, ...params: unknown[]) => db.prepare(sql).pluck().get(...params) as number
  return {
    rooms: count('SELECT COUNT(*) FROM rooms WHERE id = ?', roomId),
    memberships: count('SELECT COUNT(*) FROM memberships WHERE room_id = ?', roomId),
    messages: count('SELECT COUNT(*) FROM messages WHERE id IN (SELECT value FROM json_each(?))', ids),
    bodies: count("SELECT COUNT(*) FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id IN (SELECT value FROM json_each(?))", ids),
    searchRows: count('SELECT COUNT(*) FROM message_search_index WHERE rowid IN (SELECT value FROM json_each(?))', ids),
    boosts: count('SELECT COUNT(*) FROM boosts WHERE message_id IN (SELECT value FROM json_each(?))', ids),
  }
}

test('destroying a room deletes it with its memberships, messages, bodies, search rows and boosts', (t) => {
  const db = fixtureDatabase(t)
  assert.equal(db.pragma('foreign_keys', { simple: true }), 1)
  const first = insertMessage(db, rooms.watercooler.id, 'coffee')
  const second = insertMessage(db, rooms.watercooler.id, 'espresso')
  const destroyed = roomDestruction(db).destroyRoom(rooms.watercooler.id)
  assert.deepEqual(destroyed, { id: rooms.watercooler.id, type: 'Rooms::Closed', orphanedBlobIds: [...first.blobIds, ...second.blobIds] })
  assert.deepEqual(counts(db, rooms.watercooler.id, [first.messageId, second.messageId]), { rooms: 0, memberships: 0, messages: 0, bodies: 0, searchRows: 0, boosts: 0 })
  assert.equal(db.prepare("SELECT COUNT(*) FROM message_search_index WHERE message_search_index MATCH 'coffee'").pluck().get(), 0)
  assert.equal(db.prepare('SELECT COUNT(*) FROM active_storage_attachments').pluck().get(), 0)
})

test('destroying a room leaves every other room and its messages alone', (t) => {
  const db = fixtureDatabase(t)
  insertMessage(db, rooms.watercooler.id, 'coffee')
  const kept = insertMessage(db, rooms.designers.id, 'fonts')
  roomDestruction(db).destroyRoom(rooms.watercooler.id)
  assert.deepEqual(counts(db, rooms.designers.id, [kept.messageId]), { rooms: 1, memberships: 3, messages: 1, bodies: 1, searchRows: 1, boosts: 1 })
  assert.equal(db.prepare('SELECT COUNT(*) FROM active_storage_attachments').pluck().get(), 2)
  assert.equal(db.prepare('SELECT COUNT(*) FROM rooms').pluck().get(), Object.keys(rooms).length - 1)
})

test('a blob another record still uses is not reported as orphaned', (t) => {
  const db = fixtureDatabase(t)
  const { blobIds } = insertMessage(db, rooms.watercooler.id, 'coffee')
  db.prepare("INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES ('avatar', 'User', ?, ?, ?)").run(users.jz.id, blobIds[0], T)
  assert.deepEqual(roomDestruction(db).destroyRoom(rooms.watercooler.id)?.orphanedBlobIds, [blobIds[1]])
})

test('destroying is all or nothing', (t) => {
  const db = fixtureDatabase(t)
  const { messageId } = insertMessage(db, rooms.watercooler.id, 'coffee')
  db.exec("CREATE TEMP TRIGGER refuse BEFORE DELETE ON rooms BEGIN SELECT RAISE(ABORT, 'refused'); END")
  assert.throws(() => roomDestruction(db).destroyRoom(rooms.watercooler.id), /refused/)
  assert.deepEqual(counts(db, rooms.watercooler.id, [messageId]), { rooms: 1, memberships: 3, messages: 1, bodies: 1, searchRows: 1, boosts: 1 })
})

test('destroying a room that does not exist answers null', (t) => {
  const db = fixtureDatabase(t)
  assert.equal(roomDestruction(db).destroyRoom(999), null)
})
