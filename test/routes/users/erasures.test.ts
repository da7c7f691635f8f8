import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { listFiles } from '../../../server/lib/files.ts'
import { mentionAttachmentHtml } from '../../../server/models/rich-text/attachments.ts'
import { FORMER_MEMBER } from '../../../server/models/user/erasable.ts'
import { FORMER_MEMBER_REFUSED, SELF_ERASURE_REFUSED } from '../../../server/routes/users/erasures.ts'
import { buildTestApp, form, inject, signIn } from '../../helper.ts'
import { rooms, users } from '../../fixtures.ts'
import { post } from '../messages/support.ts'
import { multipart } from '../../support/multipart.ts'
import { grayPng } from '../../support/images.ts'
import { png, uploadAvatar } from './support.ts'

const jz = users.jz
// The porter stem of "Zimdars", as the full-text index stores the word.
const STEM = 'zimdar'

function sql<T = unknown>(app: FastifyInstance, query: string, ...params: unknown[]): T[] {
  return app.store.read((m) => m.db.prepare(query).all(...params)) as T[]
}

// JZ with everything a person leaves behind: messages (one with a file), a boost, a search, an
// avatar, a room he made, a push subscription, a webhook, email rows, an identity, an import
// record, a ban, and Kevin's message mentioning him. When his messages are to be kept, what he wrote
// in them is kept too, so there he does not write his own name.
async function jzLeavesTraces(app: FastifyInstance, firstWords = '<div>JZ here, jz@37signals.com, Jason Zimdars</div>') {
  const cookie = await signIn(app, 'jz')
  const kevin = await signIn(app, 'kevin')
  await post(app, cookie, rooms.hq.id, firstWords)
  await post(app, cookie, rooms.pets.id, '<div>My cat</div>')
  const { payload, headers } = multipart([{ name: 'message[attachment]', filename: 'zimdars-cat.png', type: 'image/png', data: grayPng(5, 5) }], { accept: 'text/html' })
  assert.ok((await inject(app, cookie, { method: 'POST', url: `/rooms/${rooms.hq.id}/messages`, payload, headers })).statusCode < 400)
  assert.ok((await uploadAvatar(app, cookie, { bytes: await png(300, 300) })).statusCode < 400)
  await post(app, kevin, rooms.hq.id, `<div>Thanks ${mentionAttachmentHtml(app.signing.signedGlobalId('User', jz.id))} for the cat</div>`)
  const kevins = sql<{ id: number }>(app, 'SELECT id FROM messages WHERE creator_id = ?', users.kevin.id)[0]!.id
  assert.ok((await inject(app, cookie, { method: 'POST', url: `/messages/${kevins}/boosts`, ...form({ 'boost[content]': '👍' }) })).statusCode < 400)
  await inject(app, cookie, { method: 'GET', url: '/searches?q=cat' })
  const made = await inject(app, cookie, { method: 'POST', url: '/rooms/opens', ...form({ 'room[name]': 'JZ’s room' }) })
  assert.equal(made.statusCode, 302, made.body)
  await app.store.write((m) => {
    const now = '2026-03-02 10:00:00.000000'
    m.db.prepare("INSERT INTO push_subscriptions (user_id, endpoint, p256dh_key, auth_key, user_agent, created_at, updated_at) VALUES (?, 'https://push.example/jz', 'k', 'a', 'JZ phone', ?, ?)").run(jz.id, now, now)
    m.db.prepare("INSERT INTO webhooks (user_id, url, created_at, updated_at) VALUES (?, 'https://hooks.example/jz', ?, ?)").run(jz.id, now, now)
    m.db.prepare('INSERT INTO campfire_email_preferences (user_id, missed_messages, updated_at) VALUES (?, 1, ?)').run(jz.id, now)
    m.db.prepare("INSERT INTO campfire_email_notifications (user_id, message_id, room_id, origin, created_at, due_at) VALUES (?, ?, ?, 'http://localhost', 0, 0)").run(jz.id, kevins, rooms.hq.id)
    m.db.prepare("INSERT INTO oidc_identities (user_id, issuer, subject, email_address, created_at, updated_at) VALUES (?, 'https://id.example', 'jz-subject', 'jz@37signals.com', ?, ?)").run(jz.id, now, now)
    m.db.prepare("INSERT INTO slack_import_records (kind, slack_key, record_id, created_at) VALUES ('user', 'UJZ', ?, ?)").run(jz.id, now)
    m.db.prepare("INSERT INTO bans (user_id, ip_address, created_at, updated_at) VALUES (?, '8.8.4.4', ?, ?)").run(jz.id, now, now)
  })
  assert.ok(sql(app, "SELECT 1 FROM active_storage_attachments WHERE record_type = 'User' AND record_id = ?", jz.id).length > 0, 'JZ has an avatar')
  return { kevinsMessage: kevins }
}

// Every value in every table, the full-text index's shadow tables included.
function everyCell(app: FastifyInstance): { table: string; column: string; value: unknown }[] {
  const tables = sql<{ name: string }>(app, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'")
  return tables.flatMap(({ name }) =>
    sql<Record<string, unknown>>(app, `SELECT * FROM "${name}"`).flatMap((row) => Object.entries(row).map(([column, value]) => ({ table: name, column, value }))),
  )
}

const USER_COLUMNS = new Set(['user_id', 'creator_id', 'booster_id'])

function assertNothingOfJzLeft(app: FastifyInstance, storage: string) {
  const words = [jz.email, jz.name, STEM, `gid://campfire/User/${jz.id}`, app.signing.signedGlobalId('User', jz.id)].map((w) => w.toLowerCase())
  for (const { table, column, value } of everyCell(app)) {
    const text = Buffer.isBuffer(value) ? value.toString('latin1').toLowerCase() : typeof value === 'string' ? value.toLowerCase() : null
    for (const word of words) assert.ok(text === null || !text.includes(word), `${table}.${column} still holds “${word}”: ${String(text).slice(0, 200)}`)
    if (USER_COLUMNS.has(column)) assert.notEqual(value, jz.id, `${table}.${column} still points at JZ`)
  }
  assert.deepEqual(sql(app, 'SELECT id FROM users WHERE id = ?', jz.id), [])
  assert.deepEqual(sql(app, "SELECT id FROM active_storage_attachments WHERE record_type = 'User' AND record_id = ?", jz.id), [])
  for (const path of listFiles(storage)) {
    const bytes = readFileSync(path).toString('latin1').toLowerCase()
    for (const word of words.slice(0, 3)) assert.ok(!bytes.includes(word), `${path} still holds “${word}”`)
  }
}

function erase(app: FastifyInstance, cookie: string, userId: number, messages?: string) {
  return inject(app, cookie, { method: 'POST', url: `/users/${userId}/erasure`, ...form(messages === undefined ? {} : { messages }) })
}

test('erasing a person and deleting their messages leaves nothing of them in any table or in the storage folder', async (t) => {
  const { app, storage } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  await jzLeavesTraces(app)
  const files = listFiles(storage).length

  const response = await erase(app, david, jz.id, 'delete')
  assert.equal(response.statusCode, 302, response.body)
  assert.equal(response.headers.location, '/account/edit')
  assertNothingOfJzLeft(app, storage)
  assert.ok(listFiles(storage).length <= files - 3, 'the attached file, the avatar and its square are gone')
  const kevins = sql<{ body: string }>(app, "SELECT body FROM action_text_rich_texts WHERE record_type = 'Message'")
  assert.equal(kevins.length, 1, 'only Kevin’s message is left')
  assert.match(kevins[0]!.body, new RegExp(`Thanks @${FORMER_MEMBER} for the cat`))
  const search = await inject(app, await signIn(app, 'kevin'), { method: 'GET', url: '/searches?q=former' })
  assert.match(search.body, /for the cat/, 'the search index follows the rewritten mention')
  assert.deepEqual(sql(app, 'SELECT name FROM rooms WHERE creator_id = (SELECT id FROM users WHERE name = ?)', FORMER_MEMBER), [{ name: 'JZ’s room' }])
})

test('erasing a person and keeping their messages signs them “A former member”, without their files', async (t) => {
  const { app, storage } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  await jzLeavesTraces(app, '<div>Hello from the design team</div>')
  const before = sql<{ id: number }>(app, 'SELECT id FROM messages WHERE creator_id = ? ORDER BY id', jz.id)

  assert.equal((await erase(app, david, jz.id, 'keep')).statusCode, 302)
  assertNothingOfJzLeft(app, storage)
  const kept = sql<{ id: number; name: string }>(app, 'SELECT m.id, u.name FROM messages m JOIN users u ON u.id = m.creator_id WHERE m.id IN (SELECT value FROM json_each(?)) ORDER BY m.id', JSON.stringify(before.map((m) => m.id)))
  assert.deepEqual(kept.map((m) => m.name), before.map(() => FORMER_MEMBER))
  assert.deepEqual(sql(app, "SELECT COUNT(*) AS n FROM active_storage_attachments WHERE record_type = 'Message'"), [{ n: 0 }], 'the files they uploaded are gone')
  const page = await inject(app, david, { method: 'GET', url: `/rooms/${rooms.pets.id}` })
  assert.match(page.body, new RegExp(FORMER_MEMBER))
  assert.doesNotMatch(page.body, /Jason Zimdars/)

  const formerMember = sql<{ id: number }>(app, 'SELECT id FROM users WHERE name = ?', FORMER_MEMBER)[0]!.id
  const refused = await erase(app, david, formerMember, 'delete')
  assert.equal(refused.statusCode, 403, 'the former member, who holds the kept messages, cannot be erased')
  assert.match(refused.body, new RegExp(FORMER_MEMBER_REFUSED.slice(1, 20)))
  assert.equal(sql(app, 'SELECT id FROM messages WHERE creator_id = ?', formerMember).length, before.length)
})

test('erasure is for administrators, on someone else, with a choice for the messages; anything else is refused and nothing changes', async (t) => {
  const { app } = await buildTestApp(t)
  const david = await signIn(app, 'david')
  const kevin = await signIn(app, 'kevin')
  assert.equal((await erase(app, kevin, jz.id, 'delete')).statusCode, 403)
  assert.equal((await erase(app, david, jz.id)).statusCode, 400)
  assert.equal((await erase(app, david, jz.id, 'archive')).statusCode, 400)
  assert.equal((await erase(app, david, 999, 'delete')).statusCode, 404)
  assert.equal((await erase(app, david, Number.NaN, 'delete')).statusCode, 404)
  const self = await erase(app, david, users.david.id, 'delete')
  assert.equal(self.statusCode, 403)
  assert.match(self.body, new RegExp(SELF_ERASURE_REFUSED))
  assert.equal(sql(app, 'SELECT id FROM users').length, Object.keys(users).length)

  const profile = await inject(app, david, { method: 'GET', url: `/users/${jz.id}` })
  assert.match(profile.body, new RegExp(`action="/users/${jz.id}/erasure"`))
  assert.doesNotMatch((await inject(app, kevin, { method: 'GET', url: `/users/${jz.id}` })).body, /erasure/)
})
