import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Connection } from '../../../server/models/database.ts'
import { watchedStatements } from '../watched-statements.ts'
import { fixtureDatabase as database } from '../room/fixture-database.ts'
import { pagination } from '../../../server/models/message/pagination.ts'
import { PAGE_SIZE, type MessageRow } from '../../../server/models/message.ts'
import { rooms, users } from '../../fixtures.ts'

const HQ = rooms.hq.id
const PETS = rooms.pets.id

// The pagination model built on a connection whose prepare() is watched, so the test sees the
// exact SQL the model runs.
function watchedPagination(db: Connection): { pages: ReturnType<typeof pagination>; statements: string[] } {
  const watched = watchedStatements(db)
  return { pages: pagination(watched.db), statements: watched.statements }
}

const time = (second: number, micros = 0) =>
  `2026-04-01 ${String(Math.floor(second / 3600) % 24).padStart(2, '0')}:${String(Math.floor(second / 60) % 60).padStart(2, '0')}:${String(second % 60).padStart(2, '0')}.${String(micros).padStart(6, '0')}`

// Inserts messages with the given creation times (in the given order, so ids follow it).
function insert(db: Connection, roomId: number, createdAts: string[]): MessageRow[] {
  const statement = db.prepare(
    'INSERT INTO messages (room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?) RETURNING id, room_id, creator_id, client_message_id, created_at, updated_at',
  )
  return db.transaction(() => createdAts.map((at, index) => statement.get(roomId, users.jason.id, `c${roomId}x${index}x${Math.random().toString(36).slice(2)}`, at, at) as MessageRow))()
}

const byCreation = (a: MessageRow, b: MessageRow) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id)
const ids = (rows: MessageRow[]) => rows.map((row) => row.id)

function planOf(db: Connection, sql: string): string[] {
  const parameters = (sql.match(/\?/g) ?? []).map(() => 1)
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[]).map((row) => row.detail)
}

test('no page query counts the room’s messages', (t) => {
  const db = database(t)
  const { statements } = watchedPagination(db)
  assert.ok(statements.length >= 5, `the model prepared ${statements.length} statements`)
  for (const sql of statements) {
    assert.doesNotMatch(sql, /\bcount\s*\(/i, sql)
    assert.match(sql, /\blimit\b/i, `every page query is bounded: ${sql}`)
  }
})

test('in a room of 1,000 messages every page query searches the (room_id, created_at|updated_at) index without sorting', (t) => {
  const db = database(t)
  insert(db, HQ, Array.from({ length: 1000 }, (_, i) => time(i)))
  insert(db, PETS, Array.from({ length: 300 }, (_, i) => time(i, 5)))
  const { statements } = watchedPagination(db)
  for (const analyzed of [false, true]) {
    if (analyzed) db.exec('ANALYZE')
    for (const sql of statements) {
      const plan = planOf(db, sql)
      const label = `${analyzed ? 'after ANALYZE: ' : ''}${sql.replace(/\s+/g, ' ')}\n${plan.join('\n')}`
      const index = /updated_at\s*>/.test(sql) ? 'index_messages_on_room_id_and_updated_at' : 'index_messages_on_room_id_and_created_at'
      assert.ok(
        plan.some((step) => new RegExp(`^SEARCH messages USING (COVERING )?INDEX ${index} \\(room_id=\\?`).test(step)),
        label,
      )
      assert.ok(!plan.some((step) => /^SCAN messages/.test(step)), `no full scan: ${label}`)
      assert.ok(!plan.some((step) => /TEMP B-TREE/.test(step)), `no sort of the room: ${label}`)
    }
  }
})

test('in a room of 1,000 messages lastPage, pageBefore, pageAfter and pageAround return the right 40', (t) => {
  const db = database(t)
  const all = insert(db, HQ, Array.from({ length: 1000 }, (_, i) => time(i)))
  insert(db, PETS, Array.from({ length: 50 }, (_, i) => time(i, 1)))
  const { pages } = watchedPagination(db)
  assert.equal(PAGE_SIZE, 40)
  assert.deepEqual(ids(pages.lastPage(HQ)), ids(all.slice(960)))
  assert.deepEqual(ids(pages.pageBefore(all[500]!)), ids(all.slice(460, 500)))
  assert.deepEqual(ids(pages.pageAfter(all[500]!)), ids(all.slice(501, 541)))
  assert.deepEqual(ids(pages.pageAround(all[500]!)), ids(all.slice(460, 541)))
  assert.deepEqual(ids(pages.pageBefore(all[10]!)), ids(all.slice(0, 10)))
  assert.deepEqual(ids(pages.pageAfter(all[995]!)), ids(all.slice(996)))
  assert.deepEqual(pages.pageBefore(all[0]!), [])
  assert.deepEqual(pages.pageAfter(all[999]!), [])
})

test('ties in created_at are broken by id: every message appears once, in one order, paging either way', (t) => {
  const db = database(t)
  // Groups of identical creation times, inserted out of order so ids and times disagree.
  const createdAts: string[] = []
  for (let i = 0; i < 250; i++) createdAts.push(time([7, 3, 3, 9, 1][i % 5]! * 10 + Math.floor(i / 50)))
  const expected = insert(db, HQ, createdAts).sort(byCreation)
  const { pages } = watchedPagination(db)

  const newest = pages.lastPage(HQ)
  assert.deepEqual(ids(newest), ids(expected.slice(-40)))

  // Walking back from the newest page.
  const backwards: MessageRow[] = [...newest]
  for (let page = pages.pageBefore(backwards[0]!); page.length > 0; page = pages.pageBefore(backwards[0]!)) {
    assert.ok(page.length <= PAGE_SIZE)
    backwards.unshift(...page)
  }
  assert.deepEqual(ids(backwards), ids(expected))

  // Walking forward from the oldest message.
  const forwards: MessageRow[] = [expected[0]!]
  for (let page = pages.pageAfter(forwards.at(-1)!); page.length > 0; page = pages.pageAfter(forwards.at(-1)!)) forwards.push(...page)
  assert.deepEqual(ids(forwards), ids(expected))

  // Around any message: the 40 before it and the 40 after it in the same order.
  for (const position of [0, 1, 39, 40, 41, 100, 125, 209, 210, 249]) {
    const around = pages.pageAround(expected[position]!)
    assert.deepEqual(ids(around), ids(expected.slice(Math.max(0, position - 40), position + 41)), `around #${position}`)
  }
})

test('a room where every message has the same created_at still pages by id', (t) => {
  const db = database(t)
  const all = insert(db, HQ, Array.from({ length: 100 }, () => time(42, 123456)))
  const { pages } = watchedPagination(db)
  assert.deepEqual(ids(pages.lastPage(HQ)), ids(all.slice(60)))
  assert.deepEqual(ids(pages.pageBefore(all[60]!)), ids(all.slice(20, 60)))
  assert.deepEqual(ids(pages.pageBefore(all[20]!)), ids(all.slice(0, 20)))
  assert.deepEqual(ids(pages.pageAfter(all[20]!)), ids(all.slice(21, 61)))
  assert.deepEqual(ids(pages.pageAround(all[50]!)), ids(all.slice(10, 91)))
})

test('createdSince and updatedSince read only after the given time, oldest first, at most a page', (t) => {
  const db = database(t)
  const all = insert(db, HQ, Array.from({ length: 100 }, (_, i) => time(i)))
  insert(db, PETS, Array.from({ length: 100 }, (_, i) => time(i)))
  db.prepare('UPDATE messages SET updated_at = ? WHERE id IN (?, ?, ?)').run(time(500), all[3]!.id, all[7]!.id, all[90]!.id)
  const { pages } = watchedPagination(db)
  assert.deepEqual(ids(pages.createdSince(HQ, time(49))), ids(all.slice(50, 90)))
  assert.deepEqual(ids(pages.createdSince(HQ, time(99))), [])
  assert.deepEqual(ids(pages.updatedSince(HQ, time(200))), [all[3]!.id, all[7]!.id, all[90]!.id])
})
