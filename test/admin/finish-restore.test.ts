import { test } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { holdDatabaseAlone } from '../../server/lib/database-lock.ts'
import { SECRET_KEY_BASE, tempStorage } from '../helper.ts'
import { DEFAULT_PASSWORD } from '../load/seed.ts'
import { CookieJar, formPost, request, startServer, stopServer, type ServerProcess } from '../support/server-process.ts'
import { runAdmin } from './support/admin-script.ts'
import { seededStorage, type SeededStorage } from './support/seeded-storage.ts'

const REFUSED = /^finish-restore: a Campfire server has .*production\.sqlite3 open; stop it first \(nothing was changed\)\n$/

async function signedIn(server: ServerProcess, seeded: SeededStorage): Promise<(id: string) => Promise<void>> {
  const jar = new CookieJar()
  const signIn = await request(server.baseUrl, jar, '/session', formPost({ email_address: seeded.labels.emails.david!, password: DEFAULT_PASSWORD }))
  assert.equal(signIn.status, 302)
  return async (id) => {
    const response = await request(server.baseUrl, jar, `/rooms/${seeded.labels.rooms.watercooler}/messages`, formPost({ 'message[body]': `post ${id}`, 'message[client_message_id]': id }))
    assert.ok([200, 303].includes(response.status), `${id} answered ${response.status}`)
  }
}

function postsIn(storage: string): string[] {
  const db = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })
  try {
    return db.prepare("SELECT client_message_id FROM messages WHERE client_message_id LIKE 'beside-%' ORDER BY id").pluck().all() as string[]
  } finally {
    db.close()
  }
}

test('finish-restore and restore refuse while a server has the database open, change nothing, and every acknowledged post survives a restart', { timeout: 180_000 }, async (t) => {
  const seeded = seededStorage(t)
  const { storage } = seeded
  const env = { CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true' }
  let server = await startServer(env)
  t.after(() => stopServer(server, 'SIGKILL'))
  const post = await signedIn(server, seeded)
  const acknowledged: string[] = []
  const postSome = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const id = `beside-${acknowledged.length}`
      await post(id)
      acknowledged.push(id)
    }
  }

  await postSome(3)
  // The pre-backup hook is made to run beside the server.
  const snapshot = await runAdmin('prepare-backup', [], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(snapshot.code, 0, snapshot.stderr)
  const backups = join(tempStorage(t), 'backups')
  const backup = await runAdmin('backup', ['--to', backups], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(backup.code, 0, backup.stderr)
  await postSome(3)

  // The server checkpoints into the file as it runs; replacing it would make a new one.
  const before = statSync(join(storage, 'db', 'production.sqlite3')).ino
  const finish = await runAdmin('finish-restore', [], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(finish.code, 1)
  assert.match(finish.stderr, REFUSED)
  assert.equal(finish.stdout, '')
  const restore = await runAdmin('restore', [join(backups, readdirSync(backups)[0]!)], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(restore.code, 1)
  assert.match(restore.stderr, /^restore: a Campfire server has .*production\.sqlite3 open; stop it first \(nothing was changed\)\n$/)
  const replica = await runAdmin('restore', ['--from-replica', `file://${join(tempStorage(t), 'replica')}`], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(replica.code, 1)
  assert.match(replica.stderr, /^restore: a Campfire server has .*open; stop it first/)
  assert.equal(statSync(join(storage, 'db', 'production.sqlite3')).ino, before, 'the database file is the one the server has open')
  assert.deepEqual(postsIn(storage), acknowledged, 'nothing went back to the snapshot')

  await postSome(2)
  await stopServer(server)
  server = await startServer(env)
  assert.deepEqual(postsIn(storage), acknowledged, 'every acknowledged post is there after a restart')

  // Stopped, the post-restore hook does its work.
  await stopServer(server)
  const stopped = await runAdmin('finish-restore', [], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(stopped.code, 0, stopped.stderr)
  assert.match(stopped.stdout, /restored from/)
  assert.deepEqual(postsIn(storage), acknowledged.slice(0, 3), 'the snapshot the pre-backup hook made is the database again')
})

test('a server killed with kill -9 holds nothing: finish-restore then goes ahead', { timeout: 120_000 }, async (t) => {
  const seeded = seededStorage(t)
  const { storage } = seeded
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true' })
  t.after(() => stopServer(server, 'SIGKILL'))
  const post = await signedIn(server, seeded)
  await post('beside-0')
  assert.equal((await runAdmin('prepare-backup', [], { CAMPFIRE_STORAGE_PATH: storage })).code, 0)
  assert.equal((await runAdmin('finish-restore', [], { CAMPFIRE_STORAGE_PATH: storage })).code, 1, 'refused while it runs')
  await stopServer(server, 'SIGKILL')
  const finish = await runAdmin('finish-restore', [], { CAMPFIRE_STORAGE_PATH: storage })
  assert.equal(finish.code, 0, finish.stderr)
  assert.match(finish.stdout, /restored from/)
  assert.deepEqual(postsIn(storage), ['beside-0'])
})

test('a server does not start on a database a restore holds, and says so in one line', { timeout: 60_000 }, async (t) => {
  const { storage } = seededStorage(t)
  const lock = holdDatabaseAlone(join(storage, 'db', 'production.sqlite3'))
  t.after(() => lock.release())
  const started = startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true' })
  started.then((server) => stopServer(server, 'SIGKILL'), () => undefined)
  await assert.rejects(started, (error: Error) =>
    /server exited with 78:\nCampfire cannot start: .*production\.sqlite3 is being restored by another process \(restore or finish-restore\); start the server once it has finished\n$/.test(error.message))
  lock.release()
  const server = await startServer({ CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true' })
  await stopServer(server)
})
