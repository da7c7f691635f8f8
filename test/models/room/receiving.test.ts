import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Connection } from '../../../server/models/database.ts'
import { watchedStatements } from '../watched-statements.ts'
import { receiving } from '../../../server/models/room/receiving.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase } from './fixture-database.ts'

// The receiving model built on a connection whose prepare() is watched, so the test sees its SQL.
function watchedReceiving(db: Connection): { model: ReturnType<typeof receiving>; statements: string[] } {
  const watched = watchedStatements(db)
  return { model: receiving(watched.db), statements: watched.statements }
}

test('a post’s unread marking finds the room’s members by index even on an ANALYZEd database, with a plan that does not look into the bound room', (t) => {
  const db = fixtureDatabase(t)
  db.exec('ANALYZE')
  const { model, statements } = watchedReceiving(db)
  const markUnread = statements.find((sql) => sql.includes('SET unread_at'))!
  assert.ok(markUnread)
  // With sqlite_stat4 samples, `room_id = ?` makes SQLite plan the statement again on every call.
  assert.match(markUnread, /room_id = \+\?/)
  const plan = (db.prepare(`EXPLAIN QUERY PLAN ${markUnread}`).all('2026-01-01 00:00:00', '2026-01-01 00:00:00', rooms.hq.id, users.david.id, '2026-01-01 00:00:00') as { detail: string }[]).map((row) => row.detail).join(' ')
  assert.match(plan, /USING (COVERING )?INDEX index_memberships_on_room_id/)

  const at = '2026-05-01 12:00:00.000000'
  model.receive({ room_id: rooms.hq.id, creator_id: users.david.id, created_at: at })
  const unread = db.prepare('SELECT user_id FROM memberships WHERE room_id = ? AND unread_at = ? ORDER BY user_id').pluck().all(rooms.hq.id, at)
  assert.deepEqual(unread, [users.jason.id, users.jz.id, users.kevin.id, users.bender.id].sort((a, b) => a - b), 'everyone but the poster')
})
