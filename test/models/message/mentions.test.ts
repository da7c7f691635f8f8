import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { copyFileSync, readdirSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Store } from '../../../server/models/store.ts'
import { migrate, openConnection } from '../../../server/models/database.ts'
import { RailsSigning } from '../../../server/lib/rails/signing.ts'
import { SECRET_KEY_BASE, tempStorage } from '../../helper.ts'

const MIGRATIONS = fileURLToPath(new URL('../../../migrations', import.meta.url))
const signing = new RailsSigning(SECRET_KEY_BASE)
const verify = (sgid: string) => signing.verifySignedGlobalId(sgid)

function mention(userId: number): string {
  return `<action-text-attachment sgid="${signing.signedGlobalId('User', userId)}" content-type="application/vnd.campfire.mention"></action-text-attachment>`
}

// Ada (1) writes in the Lobby (1); Bea (2) and Cy (3) are people she can mention.
function seed(store: Store): void {
  store.writeDb.exec(`INSERT INTO users (id, name, created_at, updated_at) VALUES (1, 'Ada', '2026-01-01', '2026-01-01'), (2, 'Bea', '2026-01-01', '2026-01-01'), (3, 'Cy', '2026-01-01', '2026-01-01');
    INSERT INTO rooms (id, name, type, creator_id, created_at, updated_at) VALUES (1, 'Lobby', 'Rooms::Open', 1, '2026-01-01', '2026-01-01');`)
}

function write(store: Store, id: number, body: string): void {
  store.writeDb.prepare("INSERT INTO messages (id, room_id, creator_id, client_message_id, created_at, updated_at) VALUES (?, 1, 1, ?, '2026-01-02', '2026-01-02')").run(id, `m${id}`)
  store.writeDb.prepare("INSERT INTO action_text_rich_texts (name, body, record_type, record_id, created_at, updated_at) VALUES ('body', ?, 'Message', ?, '2026-01-02', '2026-01-02')").run(body, id)
}

function mentions(store: Store): string[] {
  return (store.writeDb.prepare('SELECT message_id, user_id FROM campfire_mentions ORDER BY message_id, user_id').all() as { message_id: number; user_id: number }[]).map((row) => `${row.message_id}:${row.user_id}`)
}

function checks(store: Store): number[] {
  return store.writeDb.prepare('SELECT message_id FROM campfire_mention_checks ORDER BY id').pluck().all() as number[]
}

function openStore(t: { after: (fn: () => void) => void }, path = join(tempStorage(t), 'db.sqlite3'), migrationsDir = MIGRATIONS): Store {
  const store = new Store({ path, migrationsDir })
  t.after(() => store.close())
  return store
}

test('a body holding an sgid is put on the checks; a body without one is not', (t) => {
  const store = openStore(t)
  seed(store)
  write(store, 1, `<div>Hi ${mention(2)}</div>`)
  write(store, 2, '<div>Nobody</div>')
  assert.deepEqual(checks(store), [1])
  assert.deepEqual(mentions(store), [], 'nothing is read until the server checks')
})

test('checking reads each body, keeps who it mentions, answers the new mentions and empties the checks', (t) => {
  const store = openStore(t)
  seed(store)
  write(store, 1, `<div>Hi ${mention(2)} and ${mention(3)} and ${mention(2)}</div>`)
  const added = store.writeNow((m) => m.mentionIndex.check(verify))
  assert.deepEqual(added, [{ userId: 2, messageId: 1, roomId: 1 }, { userId: 3, messageId: 1, roomId: 1 }])
  assert.deepEqual(mentions(store), ['1:2', '1:3'])
  assert.deepEqual(checks(store), [])
  assert.equal(store.writeNow((m) => m.mentionIndex.pending()), false)
})

test('an sgid that does not verify as a person mentions nobody', (t) => {
  const store = openStore(t)
  seed(store)
  const room = signing.signedGlobalId('Room', 1)
  write(store, 1, `<div><action-text-attachment sgid="${room}"></action-text-attachment><action-text-attachment sgid="forged--00"></action-text-attachment></div>`)
  store.writeNow((m) => m.mentionIndex.check(verify))
  assert.deepEqual(mentions(store), [])
})

test('an edit, a deleted body and a deleted message bring the mentions in line, whoever writes them', (t) => {
  const store = openStore(t)
  seed(store)
  write(store, 1, `<div>${mention(2)}</div>`)
  write(store, 2, `<div>${mention(2)}</div>`)
  write(store, 3, `<div>${mention(3)}</div>`)
  store.writeNow((m) => m.mentionIndex.check(verify))
  store.writeDb.prepare("UPDATE action_text_rich_texts SET body = ? WHERE record_id = 1").run(`<div>${mention(3)}</div>`)
  store.writeDb.exec("DELETE FROM action_text_rich_texts WHERE record_id = 2; DELETE FROM messages WHERE id = 3")
  assert.deepEqual(mentions(store), ['1:2'], 'deletions take the mentions at once')
  const added = store.writeNow((m) => m.mentionIndex.check(verify))
  assert.deepEqual(added, [{ userId: 3, messageId: 1, roomId: 1 }])
  assert.deepEqual(mentions(store), ['1:3'])
  store.writeDb.exec("UPDATE messages SET created_at = '2026-02-01' WHERE id = 1")
  store.writeNow((m) => m.mentionIndex.check(verify))
  assert.equal(store.writeDb.prepare('SELECT created_at FROM campfire_mentions WHERE message_id = 1').pluck().get(), '2026-02-01', 'a moved message moves its mentions')
})

test('the upgrade puts every older message holding an sgid on the checks, once', (t) => {
  const storage = tempStorage(t)
  const before = join(storage, 'migrations-013')
  mkdirSync(before)
  for (const file of readdirSync(MIGRATIONS).filter((name) => name < '014')) copyFileSync(join(MIGRATIONS, file), join(before, file))
  const path = join(storage, 'db.sqlite3')
  const old = openConnection(path)
  migrate(old, before)
  const writer = { writeDb: old } as Store
  seed(writer)
  write(writer, 1, `<div>${mention(2)}</div>`)
  write(writer, 2, '<div>plain</div>')
  write(writer, 3, `<div>${mention(3)}</div>`)
  old.close()
  const store = new Store({ path, migrationsDir: MIGRATIONS })
  assert.ok(store.appliedMigrations.includes('014-mentions.sql'))
  assert.deepEqual(checks(store), [1, 3])
  store.writeNow((m) => m.mentionIndex.check(verify))
  assert.deepEqual(mentions(store), ['1:2', '3:3'])
  store.close()
  const again = openStore(t, path)
  assert.deepEqual(again.appliedMigrations, [])
  assert.deepEqual(checks(again), [], 'a later boot checks nothing again')
})

test('a mentions trigger lost to a table rebuild is restored and every body is checked again', (t) => {
  const path = join(tempStorage(t), 'db.sqlite3')
  const first = new Store({ path, migrationsDir: MIGRATIONS })
  seed(first)
  write(first, 1, `<div>${mention(2)}</div>`)
  first.writeNow((m) => m.mentionIndex.check(verify))
  first.close()
  execFileSync('sqlite3', [path, `DROP TRIGGER campfire_mentions_body_updated; UPDATE action_text_rich_texts SET body = '<div>${mention(3).replaceAll("'", "''")}</div>' WHERE record_id = 1;`])
  const store = openStore(t, path)
  assert.deepEqual(store.appliedMigrations, ['trigger campfire_mentions_body_updated (restored)'])
  store.writeNow((m) => m.mentionIndex.check(verify))
  assert.deepEqual(mentions(store), ['1:3'])
})
