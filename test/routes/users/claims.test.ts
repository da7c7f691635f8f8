import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { join } from 'node:path'
import { FileSystemConfigLoader, HtmlValidate } from 'html-validate'
import { ROOT } from '../../support/server-process.ts'
import { buildTestApp, form, inject, sameOrigin, signIn } from '../../helper.ts'
import { claimToken, CLAIM_LINK_EXPIRY_MS } from '../../../server/models/user/claimable.ts'
import { importedPerson } from '../account/support.ts'

const linkFor = (app: FastifyInstance, id: number, now = Date.now()) => `/claim/${claimToken(app.signing, app.store.read((m) => m.users.find(id))!, now)}`
const claim = (app: FastifyInstance, link: string, email: string, password = 'a new secret') =>
  app.inject({ method: 'POST', url: link, ...form({ 'user[email_address]': email, 'user[password]': password }) })

test('a claim link lets its person pick an email and a password, signs them in, and they sign in with them later', async (t) => {
  const { app } = await buildTestApp(t)
  const ada = importedPerson(app)
  const link = linkFor(app, ada)
  const page = await app.inject({ method: 'GET', url: link })
  assert.equal(page.statusCode, 200)
  assert.equal(page.headers['cache-control'], 'no-store')
  assert.match(page.body, /Welcome, Ada Imported/)
  assert.match(page.body, new RegExp(`<form action="${link}" method="post"`))
  const report = await new HtmlValidate(new FileSystemConfigLoader()).validateString(page.body, join(ROOT, 'views', 'checked.html'))
  assert.deepEqual(report.results.flatMap((result) => result.messages.map((message) => `${message.ruleId}: ${message.message}`)), [], 'the page is valid HTML')
  const claimed = await claim(app, link, 'Ada@Example.org')
  assert.equal(claimed.statusCode, 302)
  const session = claimed.cookies.find((cookie) => cookie.name === 'session_token')!
  assert.ok(session, 'signed in')
  assert.equal(app.store.read((m) => m.db.prepare('SELECT user_id FROM sessions WHERE user_id = ?').pluck().get(ada)), ada)
  assert.equal(app.store.read((m) => m.users.find(ada)!.email_address), 'ada@example.org')
  const again = await app.inject({ method: 'POST', url: '/session', ...form({ email_address: 'ada@example.org', password: 'a new secret' }) })
  assert.equal(again.statusCode, 302)
  assert.ok(again.cookies.some((cookie) => cookie.name === 'session_token'))
})

test('a claim link works once: used, it is refused, and so is any other link made for that person before', async (t) => {
  const { app } = await buildTestApp(t)
  const ada = importedPerson(app)
  const first = linkFor(app, ada)
  const second = linkFor(app, ada, Date.now() - 1000)
  assert.equal((await claim(app, first, 'ada@example.org')).statusCode, 302)
  for (const link of [first, second]) {
    assert.equal((await app.inject({ method: 'GET', url: link })).statusCode, 404)
    const reused = await claim(app, link, 'someone@evil.example', 'taken over')
    assert.equal(reused.statusCode, 404)
    assert.match(reused.body, /used or has expired/)
  }
  assert.equal(app.store.read((m) => m.users.find(ada)!.email_address), 'ada@example.org', 'the email stays as claimed')
})

test('an expired, forged or someone else\'s claim link is refused', async (t) => {
  const { app } = await buildTestApp(t)
  const ada = importedPerson(app)
  const ben = importedPerson(app, 'Ben Imported')
  const expired = linkFor(app, ada, Date.now() - CLAIM_LINK_EXPIRY_MS - 60_000)
  const forged = linkFor(app, ada).replace(`/claim/${ada}-`, `/claim/${ben}-`)
  for (const link of [expired, forged, `/claim/${ada}-nonsense`, '/claim/1-x']) {
    assert.equal((await app.inject({ method: 'GET', url: link })).statusCode, 404, link)
    assert.equal((await claim(app, link, 'x@example.org')).statusCode, 404, link)
  }
  assert.equal(app.store.read((m) => m.db.prepare('SELECT count(*) FROM users WHERE id IN (?, ?) AND password_digest IS NOT NULL').pluck().get(ada, ben)), 0)
})

test('a person deactivated or banned after their link was made cannot use it', async (t) => {
  const { app } = await buildTestApp(t)
  const ada = importedPerson(app)
  const ben = importedPerson(app, 'Ben Imported')
  const [adaLink, benLink] = [linkFor(app, ada), linkFor(app, ben)]
  app.store.writeNow((m) => m.deactivatable.deactivate(ada))
  app.store.writeNow((m) => m.db.prepare('UPDATE users SET status = 2 WHERE id = ?').run(ben))
  assert.equal((await claim(app, adaLink, 'ada@example.org')).statusCode, 404)
  assert.equal((await claim(app, benLink, 'ben@example.org')).statusCode, 404)
})

test('a claim cannot take an email someone signs in with, or one a deactivated or banned person had', async (t) => {
  const { app } = await buildTestApp(t)
  const ada = importedPerson(app)
  const link = linkFor(app, ada)
  const kevin = await signIn(app, 'kevin')
  assert.ok(kevin)
  app.store.writeNow((m) => m.deactivatable.deactivate(4))
  app.store.writeNow((m) => m.db.prepare("UPDATE users SET status = 2 WHERE email_address = 'jz@37signals.com'").run())
  for (const email of ['DAVID@37signals.com', 'kevin@37signals.com', 'jz@37signals.com']) {
    const refused = await claim(app, link, email)
    assert.equal(refused.statusCode, 422, email)
    assert.match(refused.body, /That email address can’t be used/)
  }
  const invalid = await claim(app, link, 'not an email')
  assert.equal(invalid.statusCode, 422)
  assert.equal(app.store.read((m) => m.users.find(ada)!.password_digest), null, 'nothing was claimed')
  assert.equal((await claim(app, link, 'ada@example.org')).statusCode, 302, 'the link still works after refusals')
  const signedIn = await inject(app, kevin, { method: 'GET', url: '/', headers: sameOrigin })
  assert.equal(signedIn.statusCode, 302)
})
