import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_PAYLOAD_BYTES, messagePusher, pushNotice, pushPayload } from '../../../server/models/room/message-pusher.ts'
import { rooms, users } from '../../fixtures.ts'
import { fixtureDatabase } from './fixture-database.ts'

const T = '2026-03-01 12:00:00.000000'
const room = (name: keyof typeof rooms) => ({ ...rooms[name], creator_id: rooms[name].creator.id, created_at: T, updated_at: T, content_version: 1 })

test('a shared room’s notice is titled with the room and says who wrote it; a direct room’s is titled with the sender', () => {
  assert.deepEqual(pushNotice(room('hq'), 'Kevin McConnell', 'Deploying'), { title: 'HQ', body: 'Kevin McConnell: Deploying', path: `/rooms/${rooms.hq.id}` })
  assert.deepEqual(pushNotice(room('david_and_kevin'), 'Kevin McConnell', 'Deploying'), { title: 'Kevin McConnell', body: 'Deploying', path: `/rooms/${rooms.david_and_kevin.id}` })
})

test('the payload is upstream’s JSON, and a long message is shortened to fit one push message', () => {
  assert.deepEqual(JSON.parse(pushPayload({ title: 'HQ', body: 'Hi', path: '/rooms/2' }, 3)), { title: 'HQ', options: { body: 'Hi', icon: '/account/logo?size=small', data: { path: '/rooms/2', badge: 3 } } })
  for (const long of ['é'.repeat(20_000), '"\u0001'.repeat(5_000), '🔥'.repeat(3_000)]) {
    const json = pushPayload({ title: 'x'.repeat(1000), body: long, path: '/rooms/2' }, 1)
    assert.ok(Buffer.byteLength(json) <= MAX_PAYLOAD_BYTES)
    const { title, options } = JSON.parse(json) as { title: string; options: { body: string } }
    assert.ok(options.body.endsWith('…') && long.startsWith(options.body.slice(0, -1)))
    assert.ok(title.length <= 200)
  }
})

test('recipients skip deactivated people, and each badge counts that person’s unread rooms', (t) => {
  const db = fixtureDatabase(t)
  const add = db.prepare("INSERT INTO push_subscriptions (user_id, endpoint, p256dh_key, auth_key, created_at, updated_at) VALUES (?, ?, 'k', 'a', ?, ?)")
  for (const name of ['jason', 'jz', 'kevin'] as const) add.run(users[name].id, `https://fcm.googleapis.com/${name}`, T, T)
  db.prepare("UPDATE memberships SET involvement = 'everything'").run()
  db.prepare('UPDATE memberships SET unread_at = ? WHERE user_id = ? AND room_id IN (?, ?)').run(T, users.jason.id, rooms.pets.id, rooms.designers.id)
  db.prepare('UPDATE users SET status = 1 WHERE id = ?').run(users.jz.id)

  const recipients = messagePusher(db).recipients(rooms.hq.id, users.david.id, [])
  assert.deepEqual(recipients.map((r) => [r.user_id, r.badge]), [[users.jason.id, 2], [users.kevin.id, 0]])
})
