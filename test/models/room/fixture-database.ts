import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestContext } from 'node:test'
import { migrate, openConnection, type Connection } from '../../../server/models/database.ts'
import { loadFixtures } from '../../fixtures.ts'

const MIGRATIONS = fileURLToPath(new URL('../../../migrations', import.meta.url))

// A migrated database holding the fixture cast, for model tests that need no HTTP.
export function fixtureDatabase(t: TestContext): Connection {
  const dir = mkdtempSync(join(tmpdir(), 'campfire-models-'))
  const db = openConnection(join(dir, 'models.sqlite3'))
  t.after(() => {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  })
  migrate(db, MIGRATIONS)
  loadFixtures(db)
  return db
}

export function memberIds(db: Connection, roomId: number): number[] {
  return db.prepare('SELECT user_id FROM memberships WHERE room_id = ? ORDER BY user_id').pluck().all(roomId) as number[]
}

export function involvementOf(db: Connection, roomId: number, userId: number): string | undefined {
  return db.prepare('SELECT involvement FROM memberships WHERE room_id = ? AND user_id = ?').pluck().get(roomId, userId) as string | undefined
}
