import { test } from 'node:test'
import { join } from 'node:path'
import { FileSystemConfigLoader, HtmlValidate } from 'html-validate'
import { ROOT } from '../../support/server-process.ts'
import assert from 'node:assert/strict'
import { buildTestApp, inject, signIn } from '../../helper.ts'
import { importedPerson } from './support.ts'


test('an administrator finds a claim link beside a person an import brought in, and its page holds a link of their own', async (t) => {
  const { app } = await buildTestApp(t)
  const ada = importedPerson(app)
  const david = await signIn(app, 'david')
  const account = await inject(app, david, { method: 'GET', url: '/account/edit' })
  assert.equal(account.statusCode, 200)
  assert.match(account.body, new RegExp(`<a href="/account/users/${ada}/claim_link"[^>]*>.*Claim link for Ada Imported`))
  assert.doesNotMatch(account.body, /\/account\/users\/1\/claim_link/, 'nobody who has a password gets one')
  const page = await inject(app, david, { method: 'GET', url: `/account/users/${ada}/claim_link` })
  assert.equal(page.statusCode, 200)
  assert.equal(page.headers['cache-control'], 'no-store')
  assert.match(page.body, new RegExp(`value="http://localhost(:\\d+)?/claim/${ada}-[^"]+" id="claim_url"`))
  const report = await new HtmlValidate(new FileSystemConfigLoader()).validateString(page.body, join(ROOT, 'views', 'checked.html'))
  assert.deepEqual(report.results.flatMap((result) => result.messages.map((message) => `${message.ruleId}: ${message.message}`)), [], 'the page is valid HTML')
})

test('only an administrator can make a claim link', async (t) => {
  const { app } = await buildTestApp(t)
  const ada = importedPerson(app)
  const kevin = await signIn(app, 'kevin')
  assert.equal((await inject(app, kevin, { method: 'GET', url: `/account/users/${ada}/claim_link` })).statusCode, 403)
  assert.doesNotMatch((await inject(app, kevin, { method: 'GET', url: '/account/edit' })).body, /claim_link/)
  const anonymous = await app.inject({ method: 'GET', url: `/account/users/${ada}/claim_link` })
  assert.equal(anonymous.statusCode, 302)
  assert.match(String(anonymous.headers.location), /\/session\/new/)
})

test('a person with a password, a deactivated person, a banned person and a bot never get a claim link', async (t) => {
  const { app } = await buildTestApp(t)
  const gone = importedPerson(app, 'Gone Imported', { deactivated: true })
  const bot = importedPerson(app, 'Imported Bot', { bot: true })
  const banned = importedPerson(app, 'Banned Imported')
  app.store.writeNow((m) => m.db.prepare('UPDATE users SET status = 2 WHERE id = ?').run(banned))
  const david = await signIn(app, 'david')
  for (const id of [1, 4, gone, bot, banned, 9999]) assert.equal((await inject(app, david, { method: 'GET', url: `/account/users/${id}/claim_link` })).statusCode, 404, `person ${id}`)
  assert.doesNotMatch((await inject(app, david, { method: 'GET', url: '/account/edit' })).body, /claim_link/)
})
