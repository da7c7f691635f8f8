import { test } from 'node:test'
import assert from 'node:assert/strict'
import { sessions } from '../../server/models/session.ts'
import { STATUSES } from '../../server/models/user.ts'
import { users } from '../fixtures.ts'
import { fixtureDatabase } from './room/fixture-database.ts'

test('a signed-in session is found with its active person in one read, and not once the person is deactivated or the token is unknown', (t) => {
  const db = fixtureDatabase(t)
  const model = sessions(db)
  const token = model.start(users.david.id, '127.0.0.1', 'test')
  const found = model.findSignedIn(token)
  assert.ok(found)
  assert.equal(found.session.user_id, users.david.id)
  assert.equal(found.session.token, token)
  assert.equal(found.user.id, users.david.id)
  assert.equal(found.user.name, users.david.name)
  assert.deepEqual(Object.keys(found.user).sort(), ['bio', 'email_address', 'id', 'name', 'password_digest', 'role', 'status', 'updated_at'])
  assert.equal(model.findSignedIn('no-such-token'), undefined)
  db.prepare('UPDATE users SET status = ? WHERE id = ?').run(STATUSES.deactivated, users.david.id)
  assert.equal(model.findSignedIn(token), undefined)
})
