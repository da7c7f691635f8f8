import { test } from 'node:test'
import assert from 'node:assert/strict'
import BetterSqlite3 from 'better-sqlite3'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { tempStorage } from '../helper.ts'
import { DEFAULT_PASSWORD } from '../load/seed.ts'
import { CookieJar, formPost, request, ROOT, startServer, stopServer } from '../support/server-process.ts'
import { assertHelpWritesNothing, runAdmin } from './support/admin-script.ts'
import { seededStorage } from './support/seeded-storage.ts'

test('a reset password signs in through the running server and the old one no longer does; so does one piped in; --sign-out ends every session', { timeout: 120_000 }, async (t) => {
  const { storage, labels } = seededStorage(t)
  const email = labels.emails.jz!
  const env = { CAMPFIRE_STORAGE_PATH: storage }
  const server = await startServer({ ...env, DISABLE_SSL: 'true' })
  t.after(() => stopServer(server, 'SIGKILL'))
  const signIn = async (password: string, jar = new CookieJar()) => (await request(server.baseUrl, jar, '/session', formPost({ email_address: email, password }))).status
  const phone = new CookieJar()
  assert.equal(await signIn(DEFAULT_PASSWORD, phone), 302)

  const made = await runAdmin('reset-password', [email.toUpperCase()], env)
  assert.equal(made.code, 0, made.stderr)
  const password = made.stdout.trim()
  assert.match(made.stdout, /^[A-Za-z0-9]{4}(-[A-Za-z0-9]{4}){3}\n$/, 'the new password, alone on its line')
  assert.match(made.stderr, /New password for Jason Zimdars <jz@37signals\.com>/)
  assert.equal(await signIn(password), 302)
  assert.equal(await signIn(DEFAULT_PASSWORD), 401)
  assert.match((await request(server.baseUrl, phone, '/')).headers.get('location') ?? '', /^\/rooms\/\d+$/, 'the other session stays signed in')

  const chosen = 'a sentence I will remember'
  const piped = await runAdmin('reset-password', [email], env, `${chosen}\n`)
  assert.equal(piped.code, 0, piped.stderr)
  assert.equal(piped.stdout, '', 'nothing is printed when the password was given')
  const laptop = new CookieJar()
  assert.equal(await signIn(chosen, laptop), 302)
  assert.equal(await signIn(password), 401)

  // --sign-out, for a password that leaked: every session the person has ends.
  const leaked = await runAdmin('reset-password', [email, '--stdin', '--sign-out'], env, 'after the leak')
  assert.equal(leaked.code, 0, leaked.stderr)
  assert.match(leaked.stderr, /ended 3 sessions/)
  for (const jar of [phone, laptop]) assert.equal((await request(server.baseUrl, jar, '/')).headers.get('location'), '/session/new')
  assert.equal(await signIn('after the leak'), 302)
})

test('reset-password stops with a message and changes nothing for an unknown, deactivated or banned address, or an empty password', async (t) => {
  const { storage, labels } = seededStorage(t)
  const env = { CAMPFIRE_STORAGE_PATH: storage }
  const digests = () => {
    const db = new BetterSqlite3(join(storage, 'db', 'production.sqlite3'), { readonly: true })
    try {
      return db.prepare('SELECT id, password_digest FROM users ORDER BY id').all()
    } finally {
      db.close()
    }
  }
  const before = digests()
  const results = await Promise.all([
    runAdmin('reset-password', ['nobody@example.com'], env),
    runAdmin('reset-password', [labels.emails.rita!], env),
    runAdmin('reset-password', ['mallory@example.com'], env),
    runAdmin('reset-password', [labels.emails.david!, '--stdin'], env, '\n'),
    runAdmin('reset-password', [], env),
  ])
  const [unknown, deactivated, banned, empty, missing] = results
  for (const result of [unknown, deactivated, banned]) {
    assert.equal(result!.code, 1)
    assert.match(result!.stderr, /^reset-password: no active person signs in with \S+@example\.com .*nothing was changed\n$/)
  }
  assert.equal(empty!.code, 1)
  assert.match(empty!.stderr, /the password read from standard input is empty/)
  assert.equal(missing!.code, 2)
  assert.match(missing!.stderr, /needs EMAIL/)
  assert.ok(results.every((result) => result.stdout === ''))
  assert.deepEqual(digests(), before)
})

test('reset-password --help and -h print the usage and write nothing', async (t) => {
  await assertHelpWritesNothing('reset-password', join(tempStorage(t), 'storage'), ['david@example.com'])
})

test("the image's script/admin/reset-password answers --help and -h with its usage and exit 0, and a wrong call with exit 1", () => {
  for (const help of ['--help', '-h']) {
    const result = spawnSync('sh', [join(ROOT, 'script', 'admin', 'reset-password'), help], { encoding: 'utf8', env: { PATH: process.env.PATH, CAMPFIRE_APP_ROOT: '/nonexistent' } })
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stdout, /^Usage: .*reset-password <email-address> <password>\n/)
  }
  const wrong = spawnSync('sh', [join(ROOT, 'script', 'admin', 'reset-password'), 'only-an-email'], { encoding: 'utf8', env: { PATH: process.env.PATH, CAMPFIRE_APP_ROOT: '/nonexistent' } })
  assert.equal(wrong.status, 1)
  assert.match(wrong.stderr, /^Usage: /)
})
