import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createModels } from '../../../server/models/index.ts'
import { announcementOf, postMessageAsMember, postMessageIn, type PostedMessage } from '../../../server/models/message/posting.ts'
import type { NewMessage } from '../../../server/models/message.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase, memberIds } from '../room/fixture-database.ts'

const HQ = rooms.hq.id

function input(roomId: number, creatorId: number, text: string): NewMessage {
  return { roomId, creatorId, clientMessageId: `c${Math.random().toString(36).slice(2)}`, body: `<div>${text}</div>`, plainText: text }
}

const counts = (db: ReturnType<typeof fixtureDatabase>) =>
  db.prepare("SELECT (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM action_text_rich_texts WHERE record_type = 'Message') AS bodies, (SELECT count(*) FROM message_search_index) AS searchRows, (SELECT count(*) FROM memberships WHERE unread_at IS NOT NULL) AS unread").get()

test('posting as a member answers null and writes nothing when the room is not one of the creator’s', (t) => {
  const db = fixtureDatabase(t)
  const models = createModels(db)
  const before = counts(db)
  const roomBefore = db.prepare('SELECT updated_at, content_version FROM rooms WHERE id = ?').get(rooms.watercooler.id)
  assert.equal(db.transaction(() => postMessageAsMember(models, input(rooms.watercooler.id, users.jz.id, 'let me in'))).immediate(), null)
  assert.equal(db.transaction(() => postMessageAsMember(models, input(999, users.david.id, 'no such room'))).immediate(), null)
  assert.deepEqual(counts(db), before)
  assert.deepEqual(db.prepare('SELECT updated_at, content_version FROM rooms WHERE id = ?').get(rooms.watercooler.id), roomBefore)
})

test('a post that repeats a person’s client_message_id answers the stored message and writes nothing; in another room it is refused', (t) => {
  const db = fixtureDatabase(t)
  const models = createModels(db)
  const first = input(HQ, users.jz.id, 'once')
  const posted = db.transaction(() => postMessageAsMember(models, first)).immediate() as PostedMessage
  const before = counts(db)
  const again = db.transaction(() => postMessageAsMember(models, { ...first, body: '<div>twice</div>', plainText: 'twice' })).immediate() as PostedMessage
  assert.equal(again.repeated, true)
  assert.equal(again.message.id, posted.message.id)
  assert.deepEqual(counts(db), before)
  assert.equal(db.transaction(() => postMessageAsMember(models, { ...first, roomId: rooms.pets.id })).immediate(), 'elsewhere')
  // Another person may use the same id.
  const theirs = db.transaction(() => postMessageAsMember(models, { ...first, creatorId: users.david.id })).immediate() as PostedMessage
  assert.notEqual(theirs.message.id, posted.message.id)
  assert.throws(() => db.prepare('INSERT INTO messages (room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(HQ, users.jz.id, first.clientMessageId, 'x', 'x'), /UNIQUE/)
})

test('a member’s post comes back with its room, its stored presentation_version and the room’s members', (t) => {
  const db = fixtureDatabase(t)
  const models = createModels(db)
  const posted = db.transaction(() => postMessageAsMember(models, input(HQ, users.jz.id, 'hello'))).immediate() as PostedMessage
  assert.equal(posted.room.id, HQ)
  assert.equal(posted.room.name, 'HQ')
  const stored = db.prepare('SELECT presentation_version FROM messages WHERE id = ?').pluck().get(posted.message.id)
  assert.equal(posted.message.presentation_version, stored)
  assert.equal(posted.announcement.display.presentation_version, stored)
  assert.deepEqual([...posted.announcement.memberIds].sort((a, b) => a - b), memberIds(db, HQ))
})

// The announcement's fragment is cached under the message's version and shared with every page
// that shows it, so what the writing transaction reads must be exactly what load() reads.
for (const [name, roomId, creatorId] of [
  ['an open room', HQ, users.jz.id],
  ['a closed room', rooms.watercooler.id, users.kevin.id],
  ['a direct room (named by its members)', rooms.david_and_jason.id, users.jason.id],
  ['a bot’s post', rooms.bender_and_kevin.id, users.bender.id],
] as const) {
  test(`what a new post's transaction reads for its announcement is what a fresh load of it gives, in ${name}`, (t) => {
    const db = fixtureDatabase(t)
    const models = createModels(db)
    const posted = db.transaction(() => postMessageAsMember(models, input(roomId, creatorId, 'same <b>either</b> way'))).immediate() as PostedMessage
    const fresh = announcementOf(models, models.messages.find(posted.message.id)!, models.rooms.findForUser(roomId, creatorId)!)
    const { room: postedRoom, ...postedRest } = posted.announcement.display
    const { room: freshRoom, ...freshRest } = fresh.display
    assert.deepEqual(postedRest, freshRest)
    // The fragment's content key is this JSON (the room left out), so its key order matters too.
    assert.equal(JSON.stringify(postedRest), JSON.stringify(freshRest))
    assert.equal(postedRoom.id, freshRoom.id)
    assert.equal(postedRoom.name, freshRoom.name)
    assert.deepEqual([...posted.announcement.memberIds].sort(), [...fresh.memberIds].sort())
  })
}

test('a post into a room checked beforehand (a bot’s) shows the room as its own transaction sees it', (t) => {
  const db = fixtureDatabase(t)
  const models = createModels(db)
  const checked = models.rooms.findForUser(HQ, users.bender.id)!
  db.prepare('UPDATE rooms SET name = ? WHERE id = ?').run('Headquarters', HQ)
  const posted = db.transaction(() => postMessageIn(models, input(HQ, users.bender.id, 'beep'), checked)).immediate()
  assert.equal(posted.announcement.display.roomName, 'Headquarters')
  assert.equal(posted.room.name, 'Headquarters')
  const fresh = announcementOf(models, models.messages.find(posted.message.id)!, posted.room)
  assert.equal(JSON.stringify({ ...posted.announcement.display, room: null }), JSON.stringify({ ...fresh.display, room: null }))
})
