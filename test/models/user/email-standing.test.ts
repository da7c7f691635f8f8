import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helper.ts'
import { users } from '../../fixtures.ts'
import { normalizeEmail } from '../../../server/models/user.ts'
import { foldedEmail, originalEmail } from '../../../server/models/user/email-standing.ts'
import { deactivatedEmail } from '../../../server/models/user/deactivatable.ts'

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e'

test('an address is normalized by lowercasing its ASCII letters only: the Kelvin sign stays a Kelvin sign', () => {
  assert.equal(normalizeEmail('  Kevin@37Signals.COM '), 'kevin@37signals.com')
  assert.equal(normalizeEmail('\u212Aevin@37signals.com'), '\u212Aevin@37signals.com')
  assert.equal(normalizeEmail('\u00C9mile@Example.com'), '\u00C9mile@example.com')
  assert.equal(foldedEmail('\u212Aevin@37\u017Fignals.com'), 'kevin@37signals.com')
})

test('the address a deactivation set aside is read back, for every @, and any other is left as it is', () => {
  assert.equal(originalEmail(deactivatedEmail('kevin@37signals.com', UUID)!), 'kevin@37signals.com')
  assert.equal(originalEmail(deactivatedEmail('"odd@name"@example.com', UUID)!), '"odd@name"@example.com')
  assert.equal(originalEmail('kevin-deactivated-soon@37signals.com'), 'kevin-deactivated-soon@37signals.com')
})

test('an address may not make a new person when someone deactivated or banned had it, or when only Unicode folding makes it someone\'s', async (t) => {
  const { app } = await buildTestApp(t)
  const refusal = (email: string) => app.store.read((m) => m.emailStanding.refusal(normalizeEmail(email)))
  assert.equal(refusal('ruby@example.com'), null)
  assert.equal(refusal(users.kevin.email), null, 'an active person: the address is taken, not refused')
  assert.equal(refusal('\u212Aevin@37signals.com'), 'lookalike')
  assert.equal(refusal('ruby_1%@example.com'), null)

  await app.store.write((m) => m.deactivatable.deactivate(users.kevin.id))
  assert.equal(refusal('Kevin@37signals.com'), 'inactive')
  assert.equal(refusal('\u212Aevin@37signals.com'), 'lookalike')
  assert.equal(refusal('kevin@37signals.co'), null)
  assert.equal(refusal('evin@37signals.com'), null)

  app.store.writeNow((m) => m.bannable.setStatus(users.jz.id, 2))
  assert.equal(refusal(users.jz.email.toUpperCase()), 'inactive')
})
