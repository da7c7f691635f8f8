import { test } from 'node:test'
import assert from 'node:assert/strict'
import { users } from '../fixtures.ts'
import { connect, eventually, identifiers, membershipOf, sharedCableApp } from './cable-helper.ts'

const shared = sharedCableApp()

test('subscribing to presence counts a connection through the writer, and each tab adds one', async (t) => {
  const cable = shared()
  const writesBefore = cable.app.store.writer.stats.writes
  const presence = identifiers.presence('hq')
  const first = await connect(t, cable, { cookie: await cable.cookie('jz') })
  first.subscribe(presence)
  await first.confirmed(presence)
  const membership = membershipOf(cable.app, 'hq', users.jz.id)!
  assert.equal(membership.connections, 1)
  assert.ok(membership.connected_at !== null && Date.now() - Date.parse(`${membership.connected_at.replace(' ', 'T')}Z`) < 5000)
  assert.ok(cable.app.store.writer.stats.writes > writesBefore, 'the write went through app.store.write')

  const second = await connect(t, cable, { cookie: await cable.cookie('jz') })
  second.subscribe(presence)
  await second.confirmed(presence)
  assert.equal(membershipOf(cable.app, 'hq', users.jz.id)!.connections, 2)

  second.unsubscribe(presence)
  await eventually(() => membershipOf(cable.app, 'hq', users.jz.id)!.connections === 1, 5000, 'one connection left')
  first.close()
  await eventually(() => membershipOf(cable.app, 'hq', users.jz.id)!.connections === 0, 5000, 'closing counts as absent')
  assert.equal(membershipOf(cable.app, 'hq', users.jz.id)!.connected_at, null)
})

test('present clears the unread mark; absent and present follow the tab’s visibility', async (t) => {
  const cable = shared()
  await cable.app.store.write((m) => m.db.prepare("UPDATE memberships SET unread_at = '2026-01-01 00:00:00.000000' WHERE room_id = 1 AND user_id = ?").run(users.kevin.id))
  const presence = identifiers.presence('pets')
  const client = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  client.subscribe(presence)
  await client.confirmed(presence)
  assert.equal(membershipOf(cable.app, 'pets', users.kevin.id)!.unread_at, null)

  client.perform(presence, { action: 'absent' })
  await eventually(() => membershipOf(cable.app, 'pets', users.kevin.id)!.connected_at === null, 5000, 'absent')
  client.perform(presence, { action: 'present' })
  await eventually(() => membershipOf(cable.app, 'pets', users.kevin.id)!.connections === 1, 5000, 'present again')
  client.perform(presence, { action: 'refresh' })
  client.perform(presence, { action: 'refresh' })
  client.subscribe(identifiers.heartbeat)
  await client.confirmed(identifiers.heartbeat)
  assert.equal(membershipOf(cable.app, 'pets', users.kevin.id)!.connections, 1, 'refresh does not count a connected tab twice')
})

test('a refresh after the membership lapsed counts the tab again', async (t) => {
  const cable = shared()
  const presence = identifiers.presence('hq')
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  client.subscribe(presence)
  await client.confirmed(presence)
  await cable.app.store.write((m) => m.db.prepare("UPDATE memberships SET connected_at = '2020-01-01 00:00:00.000000', connections = 0 WHERE room_id = 2 AND user_id = ?").run(users.david.id))
  client.perform(presence, { action: 'refresh' })
  await eventually(() => membershipOf(cable.app, 'hq', users.david.id)!.connections === 1, 5000, 'counted again')
  assert.notEqual(membershipOf(cable.app, 'hq', users.david.id)!.connected_at, '2020-01-01 00:00:00.000000')
})

test('a rejected presence subscription writes nothing', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('jz') })
  const presence = identifiers.presence('watercooler')
  client.subscribe(presence)
  assert.equal(await client.answered(presence), 'rejected')
  client.unsubscribe(presence)
  client.perform(presence, { action: 'present' })
  client.subscribe(identifiers.heartbeat)
  await client.confirmed(identifiers.heartbeat)
  assert.equal(membershipOf(cable.app, 'watercooler', users.jz.id), undefined)
})
