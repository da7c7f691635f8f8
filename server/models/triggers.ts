import type { Connection, Migration } from './connection.ts'

// Our migrations put triggers on Rails' tables (003-cache-versions.sql and after) so that every
// writer moves the cache versions. SQLite drops a table's triggers with the table, and a Rails
// migration that changes a column on SQLite rebuilds the table (copy, drop, copy back): the
// columns, rows and indexes come back, the triggers do not. So each boot compares the triggers
// our migrations define with the ones in the file and creates any that is missing.

const STATEMENT = /CREATE TRIGGER (\w+)[\s\S]*?\nEND;|DROP TRIGGER (?:IF EXISTS )?(\w+);/g

// The triggers the migrations leave, name → CREATE statement: later definitions replace earlier ones.
export function definedTriggers(migrations: readonly Migration[]): Map<string, string> {
  const triggers = new Map<string, string>()
  for (const migration of migrations) {
    for (const match of migration.sql.matchAll(STATEMENT)) {
      if (match[1]) triggers.set(match[1], match[0])
      else triggers.delete(match[2]!)
    }
  }
  return triggers
}

// Writes made while a trigger was missing moved no version, so every cached fragment, page and
// sidebar is invalidated by moving every version past the shared counter.
const INVALIDATE_ALL = `
  UPDATE campfire_cache_versions SET value = value + 1 WHERE name = 'counter';
  UPDATE campfire_cache_versions SET value = (SELECT value FROM campfire_cache_versions WHERE name = 'counter') WHERE name <> 'counter';
  UPDATE messages SET presentation_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter');
  UPDATE rooms SET content_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter');
  UPDATE users SET sidebar_version = (SELECT value FROM campfire_cache_versions WHERE name = 'counter');
`

// Nor were bodies checked for mentions (014-mentions.sql): every body that can hold one is
// checked again, and the mentions of messages deleted meanwhile go.
const RECHECK_MENTIONS = `
  DELETE FROM campfire_mentions WHERE message_id NOT IN (SELECT id FROM messages);
  INSERT INTO campfire_mention_checks (message_id)
    SELECT record_id FROM action_text_rich_texts WHERE record_type = 'Message' AND body LIKE '%sgid%' ORDER BY record_id;
`

// Names of the triggers created again, in one transaction under the write lock.
export function restoreMissingTriggers(db: Connection, migrations: readonly Migration[]): string[] {
  const defined = definedTriggers(migrations)
  if (defined.size === 0) return []
  return db.transaction(() => {
    const present = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all() as string[])
    const missing = [...defined.keys()].filter((name) => !present.has(name))
    for (const name of missing) db.exec(defined.get(name)!)
    if (missing.length > 0) db.exec(INVALIDATE_ALL)
    if (missing.some((name) => name.startsWith('campfire_mentions_'))) db.exec(RECHECK_MENTIONS)
    return missing
  }).immediate()
}
