import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { sessions } from '../../server/models/session.ts'
import { rooms as roomsModel } from '../../server/models/room.ts'
import { pagination } from '../../server/models/message/pagination.ts'
import { rooms, users } from '../fixtures.ts'
import { fixtureDatabase } from './room/fixture-database.ts'
import { watchedStatements } from './watched-statements.ts'
import type { Connection } from '../../server/models/database.ts'

// The note on stable plans in server/models/database.ts: on an ANALYZEd database, a hot statement
// binds an indexed column's value as `+?`, so SQLite plans it once and not on every call.
function planOf(db: Connection, sql: string, ...params: unknown[]): string {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join(' | ')
}

// An ANALYZEd fixture database, and the SQL these models prepare on it.
function analyzedStatementsOf(t: TestContext, ...models: ((db: Connection) => unknown)[]): { db: Connection; statements: string[] } {
  const db = fixtureDatabase(t)
  db.exec('ANALYZE')
  const watched = watchedStatements(db)
  for (const model of models) model(watched.db)
  return { db, statements: watched.statements }
}

test('the session lookup and the room page’s read keep one plan on an ANALYZEd database: their bound values are behind a unary plus, and the indexes are used', (t) => {
  const { db, statements } = analyzedStatementsOf(t, sessions, roomsModel)
  // With sqlite_stat4 samples, `token = ?` in a join made SQLite plan the statement again on
  // every call: four times the cost of the lookup itself with 10,000 sessions.
  const signedIn = statements.find((sql) => sql.includes('FROM sessions JOIN users'))!
  assert.match(signedIn, /sessions\.token = \+\?/)
  assert.match(planOf(db, signedIn, 'x'), /SEARCH sessions USING INDEX index_sessions_on_token \(token=\?\) \| SEARCH users USING INTEGER PRIMARY KEY/)
  const visit = statements.find((sql) => sql.includes('AS original'))!
  assert.match(visit, /rooms\.id = \+\? AND memberships\.user_id = \+\?/)
  assert.match(planOf(db, visit, rooms.hq.id, users.david.id), /SEARCH rooms USING INTEGER PRIMARY KEY/)
})

test('a room’s pages and its bounded message count bind the room behind a unary plus and still read the room’s index', (t) => {
  const { db, statements } = analyzedStatementsOf(t, pagination, roomsModel)
  const byRoom = statements.filter((sql) => /FROM messages WHERE room_id/.test(sql))
  assert.ok(byRoom.length >= 6, byRoom.join('\n'))
  for (const sql of byRoom) assert.match(sql, /room_id = \+\?/, sql)
  const newest = byRoom.find((sql) => sql.includes('ORDER BY created_at DESC, id DESC LIMIT ?') && !sql.includes('created_at <='))!
  assert.match(planOf(db, newest, rooms.hq.id, 40), /USING (COVERING )?INDEX index_messages_on_room_id_and_created_at \(room_id=\?\)/)
})
