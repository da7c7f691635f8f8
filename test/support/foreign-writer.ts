import type { TestContext } from 'node:test'
import BetterSqlite3 from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'

// A second connection to the app's database file, writing SQL directly, as Rails or a sqlite3
// shell would: the caches must see what it changes.
export function foreignWriter(t: TestContext, app: FastifyInstance): BetterSqlite3.Database {
  const db = new BetterSqlite3(app.store.writeDb.name)
  db.pragma('busy_timeout = 5000')
  t.after(() => db.close())
  return db
}
