import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helper.ts'
import { users } from '../../fixtures.ts'
import { deactivatedEmail } from '../../../server/models/user/deactivatable.ts'

test('a deactivated email keeps its name and domain around the marker, for every @ (as gsub does), and none stays none', () => {
  assert.equal(deactivatedEmail('kevin@37signals.com', 'u-1'), 'kevin-deactivated-u-1@37signals.com')
  assert.equal(deactivatedEmail('"odd@name"@example.com', 'u'), '"odd-deactivated-u@name"-deactivated-u@example.com')
  assert.equal(deactivatedEmail(null, 'u'), null)
})

test('deactivating someone not active changes nothing and says so', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare('UPDATE users SET status = 2 WHERE id = ?').run(users.kevin.id))
  const memberships = () => app.store.read((m) => m.db.prepare('SELECT count(*) FROM memberships WHERE user_id = ?').pluck().get(users.kevin.id))
  const before = memberships()
  assert.equal(await app.store.write((m) => m.deactivatable.deactivate(users.kevin.id)), false)
  assert.equal(await app.store.write((m) => m.deactivatable.deactivate(999)), false)
  assert.equal(memberships(), before)
  assert.equal(app.store.read((m) => m.users.find(users.kevin.id))!.email_address, users.kevin.email)
})

test('a bot is deactivated like anyone, its missing email left missing', async (t) => {
  const { app } = await buildTestApp(t)
  assert.equal(await app.store.write((m) => m.deactivatable.deactivate(users.bender.id, 'fixed')), true)
  const bender = app.store.read((m) => m.users.find(users.bender.id))!
  assert.equal(bender.status, 1)
  assert.equal(bender.email_address, null)
})
