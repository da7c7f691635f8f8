import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { listFiles } from '../../server/lib/files.ts'
import { Store } from '../../server/models/store.ts'
import { tempStorage } from '../helper.ts'
import { ROOT } from '../support/server-process.ts'
import { assertHelpWritesNothing, runAdmin } from './support/admin-script.ts'

// A backup made by the backup script of a small storage folder: an empty schema with one
// account, one stored file and a secret_key_base; made once, shared by the tests below.
const cleanups: (() => void)[] = []
let backup = ''
before(async () => (backup = await backUpSmallStorage({ after: (fn) => cleanups.push(fn) })))
after(() => cleanups.forEach((fn) => fn()))

async function backUpSmallStorage(t: { after: (fn: () => void) => void }): Promise<string> {
  const storage = join(tempStorage(t), 'storage')
  const store = new Store({ path: join(storage, 'db', 'production.sqlite3'), migrationsDir: join(ROOT, 'migrations') })
  store.writeNow((m) => m.accounts.create('Backed up'))
  store.close()
  mkdirSync(join(storage, 'files', 'ab', 'cd'), { recursive: true })
  writeFileSync(join(storage, 'files', 'ab', 'cd', 'abcdefgh'), 'stored file')
  writeFileSync(join(storage, 'secret_key_base'), 'f'.repeat(128) + '\n')
  const backups = join(tempStorage(t), 'backups')
  const result = await runAdmin('backup', ['--to', backups], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(result.code, 0, result.stderr)
  return join(backups, readdirSync(backups)[0]!)
}

// Every file and folder below a folder, with the bytes of each file.
function snapshot(dir: string): string[] {
  const folders = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `${relative(dir, join(e.parentPath, e.name))}/`)
  return [...folders, ...listFiles(dir).map((path) => `${relative(dir, path)}: ${base64(path)}`)].sort()
}

const base64 = (path: string): string => readFileSync(path).toString('base64')

test('restore refuses a storage folder that is not empty, names what is in the way, and leaves it as it was', async (t) => {
  const targets: Record<string, (storage: string) => void> = {
    'a database': (storage) => {
      mkdirSync(join(storage, 'db'), { recursive: true })
      writeFileSync(join(storage, 'db', 'production.sqlite3'), 'an older database')
    },
    'a WAL file left by a database': (storage) => {
      mkdirSync(join(storage, 'db'), { recursive: true })
      writeFileSync(join(storage, 'db', 'production.sqlite3-wal'), 'frames')
    },
    'a stored file': (storage) => {
      mkdirSync(join(storage, 'files', 'zz', 'yy'), { recursive: true })
      writeFileSync(join(storage, 'files', 'zz', 'yy', 'zzyyxx'), 'someone’s upload')
    },
    'a different secret': (storage) => {
      mkdirSync(storage, { recursive: true })
      writeFileSync(join(storage, 'secret_key_base'), 'e'.repeat(128) + '\n')
    },
  }
  await Promise.all(
    Object.entries(targets).map(async ([what, fill]) => {
      const storage = join(tempStorage(t), 'storage')
      fill(storage)
      const before = snapshot(storage)
      const result = await runAdmin('restore', [backup], { CAMPFIRE_STORAGE_PATH: storage })
      assert.equal(result.code, 1, `${what}: ${result.stdout}`)
      assert.match(result.stderr, /^restore: refusing to overwrite .*Nothing was written/, what)
      assert.deepEqual(snapshot(storage), before, `${what}: the storage folder is unchanged`)
    }),
  )
})

test('restore fills an empty storage folder laid out as the container mounts it (empty db/ and files/, logs/ in use)', async (t) => {
  const storage = join(tempStorage(t), 'storage')
  for (const dir of ['db', 'files', 'logs']) mkdirSync(join(storage, dir), { recursive: true })
  writeFileSync(join(storage, 'logs', 'production.log'), 'a log line\n')
  const result = await runAdmin('restore', [backup], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(snapshot(storage), [
    'db/', 'files/', 'files/ab/', 'files/ab/cd/', 'logs/',
    `db/production.sqlite3: ${base64(join(backup, 'db', 'production.sqlite3'))}`,
    // Held while the restore wrote, so no server could start on a half-restored folder.
    'db/production.sqlite3.lock: ',
    `files/ab/cd/abcdefgh: ${Buffer.from('stored file').toString('base64')}`,
    `logs/production.log: ${Buffer.from('a log line\n').toString('base64')}`,
    `secret_key_base: ${Buffer.from('f'.repeat(128) + '\n').toString('base64')}`,
  ].sort())
  const db = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })
  t.after(() => db.close())
  assert.equal(db.prepare('SELECT name FROM accounts').pluck().get(), 'Backed up')
})

test('restore --to takes the storage folder, and RAILS_ENV names the database it writes', async (t) => {
  const storage = join(tempStorage(t), 'elsewhere')
  const result = await runAdmin('restore', [backup, '--to', storage], { CAMPFIRE_STORAGE_PATH: join(storage, 'not-this-one'), RAILS_ENV: 'staging' })
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /staging\.sqlite3 \(backed up as RAILS_ENV=production\)/)
  assert.deepEqual(readdirSync(join(storage, 'db')).sort(), ['staging.sqlite3', 'staging.sqlite3.lock'], 'the database, and the lock it held while restoring')
})

test('restore refuses a folder that is not a finished backup', async (t) => {
  const notABackup = tempStorage(t)
  const storage = join(tempStorage(t), 'storage')
  const result = await runAdmin('restore', [notABackup], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(result.code, 1)
  assert.match(result.stderr, /is not a finished backup: it has no manifest\.json/)
  assert.deepEqual(readdirSync(join(storage, '..')), [])

  // A manifest naming a database outside the backup folder is refused before anything is read.
  writeFileSync(join(notABackup, 'manifest.json'), JSON.stringify({ format: 1, database: '../../outside.sqlite3', environment: 'production', secretKeyBase: false }))
  const escaping = await runAdmin('restore', [notABackup], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(escaping.code, 1)
  assert.match(escaping.stderr, /names its database as "\.\.\/\.\.\/outside\.sqlite3", not db\/<env>\.sqlite3/)
  assert.deepEqual(readdirSync(join(storage, '..')), [])
})

test('restore --help and -h print the usage and write nothing', async (t) => {
  const storage = join(tempStorage(t), 'storage')
  await assertHelpWritesNothing('restore', storage, [tempStorage(t)])
})

test('restore says what it needs: a backup folder or a replica, and not both', async (t) => {
  const storage = join(tempStorage(t), 'storage')
  const neither = await runAdmin('restore', [], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(neither.code, 2)
  assert.match(neither.stderr, /^restore: needs BACKUP \(a backup folder\) or --from-replica URL\n/)
  const both = await runAdmin('restore', ['some-backup', '--from-replica', 'file:///nowhere'], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(both.code, 2)
  assert.match(both.stderr, /^restore: takes BACKUP or --from-replica URL, not both\n/)
  assert.ok(!existsSync(storage), 'nothing written')
})
