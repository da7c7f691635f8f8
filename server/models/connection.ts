import type BetterSqlite3 from 'better-sqlite3'

// A SQLite connection, as every model takes it.
export type Connection = BetterSqlite3.Database

// One file of migrations/: its number, name and SQL.
export interface Migration {
  version: number
  name: string
  sql: string
}
