import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildTestApp } from '../../helper.ts'
import { users } from '../../fixtures.ts'

test('the roster lists administrators first, then members, each by name ignoring case, and never bots', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare("INSERT INTO users (name, role, status, created_at, updated_at) VALUES ('aaron', 0, 0, '2026-03-02', '2026-03-02'), ('Zed', 1, 0, '2026-03-02', '2026-03-02')").run())
  const page = app.store.read((m) => m.roster.page(1, { withBanned: false }))
  assert.deepEqual(page.people.map((p) => p.name), [users.david.name, users.jason.name, 'Zed', 'aaron', users.jz.name, users.kevin.name])
  assert.equal(page.administrators, 3)
  assert.equal(page.last, true)
})

test('pages are cut at the page size, carry on where the last stopped, and hold banned people only when asked', async (t) => {
  const { app } = await buildTestApp(t)
  app.store.writeNow((m) => m.db.prepare('UPDATE users SET status = 2 WHERE id = ?').run(users.jz.id))
  const first = app.store.read((m) => m.roster.page(1, { withBanned: true }, 3))
  const second = app.store.read((m) => m.roster.page(2, { withBanned: true }, 3))
  assert.deepEqual([...first.people, ...second.people].map((p) => p.id), [users.david.id, users.jason.id, users.jz.id, users.kevin.id])
  assert.equal(first.last, false)
  assert.equal(second.last, true)
  assert.equal(second.offset, 3)
  assert.ok(!app.store.read((m) => m.roster.page(1, { withBanned: false })).people.some((p) => p.id === users.jz.id))
})
