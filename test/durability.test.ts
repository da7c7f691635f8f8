import { test } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { join } from 'node:path'
import { CookieJar, formPost, request, startServer, stopServer } from './support/server-process.ts'
import { SECRET_KEY_BASE, tempStorage } from './helper.ts'

test('every acknowledged write survives kill -9 of the server', { timeout: 120_000 }, async (t) => {
  const storage = tempStorage(t)
  const env = { CAMPFIRE_STORAGE_PATH: storage, SECRET_KEY_BASE, DISABLE_SSL: 'true' }
  const server = await startServer(env)
  t.after(() => stopServer(server, 'SIGKILL'))

  const admin = new CookieJar()
  const setup = await request(server.baseUrl, admin, '/first_run', formPost({ 'user[name]': 'Ada', 'user[email_address]': 'ada@example.com', 'user[password]': 'secret123456' }))
  assert.equal(setup.status, 302)
  const db = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })
  const joinCode = db.prepare('SELECT join_code FROM accounts').pluck().get() as string
  db.close()

  // Forty people join at once; the server is killed as soon as twenty have been answered,
  // while the rest are still in flight.
  const acknowledged: string[] = []
  let killed = false
  const attempts = Array.from({ length: 40 }, (_, i) => {
    const email = `person${i}@example.com`
    return request(server.baseUrl, new CookieJar(), `/join/${joinCode}`, formPost({ 'user[name]': `Person ${i}`, 'user[email_address]': email, 'user[password]': 'secret123456' }))
      .then((response) => {
        if (killed) return
        if (response.status === 302 && response.headers.get('location') === '/') acknowledged.push(email)
        if (acknowledged.length === 20) {
          killed = true
          server.child.kill('SIGKILL')
        }
      })
      .catch(() => undefined)
  })
  await Promise.all(attempts)
  await new Promise((resolve) => (server.child.exitCode !== null || server.child.signalCode !== null ? resolve(null) : server.child.once('exit', resolve)))
  assert.equal(server.child.signalCode, 'SIGKILL')
  assert.equal(acknowledged.length, 20)

  const after = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'))
  t.after(() => after.close())
  const stored = new Set(after.prepare('SELECT email_address FROM users').pluck().all() as string[])
  for (const email of acknowledged) assert.ok(stored.has(email), `${email} was acknowledged but lost`)
  assert.equal(after.pragma('integrity_check', { simple: true }), 'ok')
})
