import { test } from 'node:test'
import assert from 'node:assert/strict'
import { cpSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { migrate, openConnection } from '../../server/models/database.ts'
import { Store } from '../../server/models/store.ts'
import { tempStorage } from '../helper.ts'

const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url))

// A database from before migration 013 may hold repeats (one person, one client_message_id, two
// rows). It still upgrades: the repeats stay as they are, and from then on no new one can be written.
test('a database holding repeated client_message_ids upgrades, keeps them, and refuses new repeats', (t) => {
  const storage = tempStorage(t)
  const before = join(storage, 'migrations-before-013')
  mkdirSync(before)
  for (const file of readdirSync(MIGRATIONS).filter((name) => name < '013')) cpSync(join(MIGRATIONS, file), join(before, file))
  const path = join(storage, 'db.sqlite3')
  const old = openConnection(path)
  migrate(old, before)
  old.exec(`INSERT INTO users (id, name, created_at, updated_at) VALUES (1, 'Ada', '2026-01-01', '2026-01-01'), (2, 'Bo', '2026-01-01', '2026-01-01');
    INSERT INTO rooms (id, name, type, creator_id, created_at, updated_at) VALUES (1, 'Lobby', 'Rooms::Open', 1, '2026-01-01', '2026-01-01');
    INSERT INTO messages (id, room_id, creator_id, client_message_id, created_at, updated_at) VALUES
      (1, 1, 1, 'same', '2026-01-01', '2026-01-01'), (2, 1, 1, 'same', '2026-01-02', '2026-01-02'), (3, 1, 1, 'same', '2026-01-03', '2026-01-03'),
      (4, 1, 2, 'same', '2026-01-04', '2026-01-04');`)
  old.close()

  const store = new Store({ path, migrationsDir: MIGRATIONS })
  t.after(() => store.close())
  const db = store.writeDb
  assert.deepEqual(db.prepare('SELECT id, client_message_id, campfire_repeat_of FROM messages ORDER BY id').all(), [
    { id: 1, client_message_id: 'same', campfire_repeat_of: 0 },
    { id: 2, client_message_id: 'same', campfire_repeat_of: 2 },
    { id: 3, client_message_id: 'same', campfire_repeat_of: 3 },
    { id: 4, client_message_id: 'same', campfire_repeat_of: 0 },
  ])
  assert.throws(() => db.prepare("INSERT INTO messages (room_id, creator_id, client_message_id, created_at, updated_at) VALUES (1, 2, 'same', 'x', 'x')").run(), /UNIQUE/)
  db.prepare("INSERT INTO messages (room_id, creator_id, client_message_id, created_at, updated_at) VALUES (1, 2, 'other', 'x', 'x')").run()
})
