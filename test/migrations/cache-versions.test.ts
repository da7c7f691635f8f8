import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { fixtureDatabase } from '../models/room/fixture-database.ts'
import type { Connection } from '../../server/models/database.ts'

const T = '2026-03-02 09:00:00.000000'

// Two messages in All Pets (room 1): one by David boosted by Jason, one by Kevin with a file;
// one message by JZ in HQ (room 2); one in David and Jason's direct room (room 5).
function seeded(t: TestContext): Connection {
  const db = fixtureDatabase(t)
  const message = db.prepare('INSERT INTO messages (id, room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
  const body = db.prepare("INSERT INTO action_text_rich_texts (name, body, record_type, record_id, created_at, updated_at) VALUES ('body', ?, 'Message', ?, ?, ?)")
  for (const [id, room, creator] of [[1, 1, 1], [2, 1, 4], [3, 2, 3], [4, 5, 1]] as const) {
    message.run(id, room, creator, `client-${id}`, T, T)
    body.run(`<p>message ${id}</p>`, id, T, T)
  }
  db.prepare("INSERT INTO boosts (id, message_id, booster_id, content, created_at, updated_at) VALUES (1, 1, 2, '👍', ?, ?)").run(T, T)
  db.prepare("INSERT INTO active_storage_blobs (id, key, filename, content_type, byte_size, service_name, created_at) VALUES (1, 'k1', 'a.txt', 'text/plain', 3, 'local', ?)").run(T)
  db.prepare("INSERT INTO active_storage_attachments (id, name, record_type, record_id, blob_id, created_at) VALUES (1, 'attachment', 'Message', 2, 1, ?)").run(T)
  return db
}

interface Snapshot {
  messages: Record<number, number>
  rooms: Record<number, number>
  sidebars: Record<number, number>
  people: number
  account: number
  counter: number
}

function snapshot(db: Connection): Snapshot {
  const pairs = (sql: string) => Object.fromEntries((db.prepare(sql).raw().all() as [number, number][]).map(([id, v]) => [id, v]))
  const named = (name: string) => db.prepare('SELECT value FROM campfire_cache_versions WHERE name = ?').pluck().get(name) as number
  return {
    messages: pairs('SELECT id, presentation_version FROM messages ORDER BY id'),
    rooms: pairs('SELECT id, content_version FROM rooms ORDER BY id'),
    sidebars: pairs('SELECT id, sidebar_version FROM users ORDER BY id'),
    people: named('people'),
    account: named('account'),
    counter: named('counter'),
  }
}

interface Expected {
  messages?: number[]
  rooms?: number[]
  sidebars?: number[]
  people?: boolean
  account?: boolean
}

// Runs the SQL and checks that exactly the expected versions moved, each upwards.
function assertMoves(db: Connection, sql: string, expected: Expected): void {
  const before = snapshot(db)
  db.exec(sql)
  const after = snapshot(db)
  const moved = (a: Record<number, number>, b: Record<number, number>) =>
    Object.keys(b).map(Number).filter((id) => a[id] !== b[id])
  for (const kind of ['messages', 'rooms', 'sidebars'] as const) {
    const ids = moved(before[kind], after[kind])
    assert.deepEqual(ids, expected[kind] ?? [], `${kind} moved by: ${sql}`)
    for (const id of ids) if (before[kind][id] !== undefined) assert.ok(after[kind][id]! > before[kind][id]!, `${kind} ${id} only increases`)
  }
  assert.equal(after.people !== before.people, expected.people ?? false, `people moved by: ${sql}`)
  assert.equal(after.account !== before.account, expected.account ?? false, `account moved by: ${sql}`)
  assert.ok(after.counter >= before.counter, 'the counter never goes back')
}

test('a new message gets a version of its own, and moves its room', (t) => {
  const db = seeded(t)
  const before = snapshot(db)
  assertMoves(db, `INSERT INTO messages (id, room_id, creator_id, client_message_id, created_at, updated_at) VALUES (9, 2, 1, 'c9', '${T}', '${T}')`, { messages: [9], rooms: [2] })
  assert.ok(snapshot(db).messages[9]! > Math.max(...Object.values(before.messages)))
})

test('editing a message row or its rich text moves that message and its room only', (t) => {
  const db = seeded(t)
  assertMoves(db, "UPDATE messages SET updated_at = '2026-03-03 00:00:00' WHERE id = 1", { messages: [1], rooms: [1] })
  assertMoves(db, "UPDATE action_text_rich_texts SET body = '<p>edited</p>' WHERE record_type = 'Message' AND record_id = 3", { messages: [3], rooms: [2] })
})

test('deleting a message moves its room', (t) => {
  const db = seeded(t)
  assertMoves(db, "DELETE FROM action_text_rich_texts WHERE record_id = 3 AND record_type = 'Message'", { messages: [3], rooms: [2] })
  assertMoves(db, 'DELETE FROM messages WHERE id = 3', { rooms: [2] })
})

test('boosting, changing a boost and unboosting move the boosted message', (t) => {
  const db = seeded(t)
  assertMoves(db, `INSERT INTO boosts (message_id, booster_id, content, created_at, updated_at) VALUES (2, 1, '🎉', '${T}', '${T}')`, { messages: [2], rooms: [1] })
  assertMoves(db, "UPDATE boosts SET content = '🔥' WHERE id = 1", { messages: [1], rooms: [1] })
  assertMoves(db, 'DELETE FROM boosts WHERE id = 1', { messages: [1], rooms: [1] })
})

test("a message's attachment and its blob move the message", (t) => {
  const db = seeded(t)
  assertMoves(db, "UPDATE active_storage_blobs SET filename = 'b.txt' WHERE id = 1", { messages: [2], rooms: [1] })
  assertMoves(db, 'DELETE FROM active_storage_attachments WHERE id = 1', { messages: [2], rooms: [1] })
  assertMoves(db, `INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES ('attachment', 'Message', 3, 1, '${T}')`, { messages: [3], rooms: [2] })
})

test("a creator's or booster's name or avatar moves their messages, boosted messages and direct rooms", (t) => {
  const db = seeded(t)
  // David created 1 and 4 (4 is in his direct room with Jason, whose name it shows).
  assertMoves(db, "UPDATE users SET name = 'DHH' WHERE id = 1", { messages: [1, 4], rooms: [1, 5], people: true })
  // Jason boosted 1 and is in the direct room of 4.
  assertMoves(db, "UPDATE users SET updated_at = '2026-03-04 00:00:00' WHERE id = 2", { messages: [1, 4], rooms: [1, 5], people: true })
  assertMoves(db, `INSERT INTO active_storage_attachments (name, record_type, record_id, blob_id, created_at) VALUES ('avatar', 'User', 4, 1, '${T}')`, { messages: [2], rooms: [1], people: true })
  assertMoves(db, "UPDATE users SET role = 1 WHERE id = 3", { people: true })
})

test("a room's name moves its messages and its members' sidebars", (t) => {
  const db = seeded(t)
  assertMoves(db, "UPDATE rooms SET name = 'All Dogs' WHERE id = 1", { messages: [1, 2], rooms: [1], sidebars: [1, 2, 3, 4, 5] })
})

test("touching a shared room moves nothing; touching a direct room reorders its members' sidebars", (t) => {
  const db = seeded(t)
  assertMoves(db, "UPDATE rooms SET updated_at = '2026-03-05 00:00:00' WHERE id = 1", {})
  assertMoves(db, "UPDATE rooms SET updated_at = '2026-03-05 00:00:00' WHERE id = 5", { sidebars: [1, 2] })
})

test('presence and unread state move nothing (sidebars fill unread marks per request); involvement moves that person\'s sidebar', (t) => {
  const db = seeded(t)
  assertMoves(db, `UPDATE memberships SET connections = 1, connected_at = '${T}', updated_at = '${T}' WHERE room_id = 1 AND user_id = 3`, {})
  assertMoves(db, 'UPDATE memberships SET connections = 0, connected_at = NULL WHERE room_id = 1 AND user_id = 3', {})
  assertMoves(db, `UPDATE memberships SET unread_at = '${T}' WHERE room_id = 1 AND user_id = 3`, {})
  assertMoves(db, "UPDATE memberships SET unread_at = '2026-03-09 00:00:00' WHERE room_id = 1 AND user_id = 3", {})
  assertMoves(db, 'UPDATE memberships SET unread_at = NULL WHERE room_id = 1 AND user_id = 3', {})
  assertMoves(db, "UPDATE memberships SET involvement = 'invisible' WHERE room_id = 2 AND user_id = 4", { sidebars: [4] })
})

test('joining and leaving move sidebars; in a direct room also the room name its messages show', (t) => {
  const db = seeded(t)
  assertMoves(db, `INSERT INTO memberships (room_id, user_id, involvement, created_at, updated_at) VALUES (3, 3, 'mentions', '${T}', '${T}')`, { sidebars: [3] })
  assertMoves(db, 'DELETE FROM memberships WHERE room_id = 3 AND user_id = 3', { sidebars: [3] })
  assertMoves(db, `INSERT INTO memberships (room_id, user_id, involvement, created_at, updated_at) VALUES (5, 4, 'everything', '${T}', '${T}')`, { messages: [4], rooms: [5], sidebars: [1, 2, 4] })
})

test('people and the account have versions of their own', (t) => {
  const db = seeded(t)
  assertMoves(db, `INSERT INTO users (name, role, status, created_at, updated_at) VALUES ('Newcomer', 0, 0, '${T}', '${T}')`, { people: true, sidebars: [6] })
  assertMoves(db, "UPDATE accounts SET custom_styles = 'body { color: red }'", { account: true })
})

test('unrelated writes move nothing', (t) => {
  const db = seeded(t)
  assertMoves(db, `INSERT INTO searches (user_id, query, created_at, updated_at) VALUES (1, 'coffee', '${T}', '${T}')`, {})
  assertMoves(db, `INSERT INTO sessions (user_id, token, last_active_at, created_at, updated_at) VALUES (1, 'tok', '${T}', '${T}', '${T}')`, {})
  assertMoves(db, "UPDATE sessions SET last_active_at = '2026-03-06 00:00:00'", {})
  assertMoves(db, "INSERT INTO message_search_index (rowid, body) VALUES (1, 'message 1')", {})
})

test('INSERT OR REPLACE and INSERT OR IGNORE still move the versions', (t) => {
  const db = seeded(t)
  assertMoves(db, `INSERT OR REPLACE INTO boosts (id, message_id, booster_id, content, created_at, updated_at) VALUES (1, 1, 2, '❤️', '${T}', '${T}')`, { messages: [1], rooms: [1] })
  assertMoves(db, `INSERT OR IGNORE INTO boosts (message_id, booster_id, content, created_at, updated_at) VALUES (3, 1, '👏', '${T}', '${T}')`, { messages: [3], rooms: [2] })
  assertMoves(db, `INSERT OR REPLACE INTO action_text_rich_texts (id, name, body, record_type, record_id, created_at, updated_at)
    SELECT id, name, '<p>replaced</p>', record_type, record_id, created_at, updated_at FROM action_text_rich_texts WHERE record_type = 'Message' AND record_id = 2`, { messages: [2], rooms: [1] })
})

test('a foreign sqlite3 process moves the versions too', (t) => {
  const db = seeded(t)
  const path = db.name
  const before = snapshot(db)
  execFileSync('sqlite3', [path, "UPDATE action_text_rich_texts SET body = '<p>from the shell</p>' WHERE record_type = 'Message' AND record_id = 1"])
  const after = snapshot(db)
  assert.ok(after.messages[1]! > before.messages[1]!)
  assert.equal(after.messages[2], before.messages[2])
})
