import { test } from 'node:test'
import assert from 'node:assert/strict'
import { users } from '../fixtures.ts'
import { connect, eventually, holdWrites, identifiers, membershipOf, messagesStreamName, sharedCableApp } from './cable-helper.ts'

const shared = sharedCableApp()

// Rails runs a connection's commands on a thread pool, so an unsubscribe followed by a
// subscribe of the same identifier could run backwards and the subscribe be refused as a
// duplicate. Here every command runs in arrival order; nothing depends on the client retrying.
test('1,000 navigations, each an unsubscribe then a subscribe in one burst, all end subscribed and confirmed', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  const messages = identifiers.roomMessages(cable.app, 'hq')
  client.subscribe(messages)
  await client.confirmed(messages)

  const burst: string[] = []
  for (let n = 0; n < 1000; n++) {
    burst.push(JSON.stringify({ command: 'unsubscribe', identifier: messages }))
    burst.push(JSON.stringify({ command: 'subscribe', identifier: messages }))
  }
  for (const frame of burst) client.socket.send(frame)

  await client.until(() => client.confirmations(messages).length === 1001, 20_000)
  assert.equal(client.rejections().length, 0, 'no subscribe was refused as a duplicate')
  assert.equal(cable.app.cable.server.subscribersOf(messagesStreamName('hq')), 1, 'subscribed exactly once at the end')

  cable.app.cable.messageCreated({ id: 2, type: 'Rooms::Open' }, '<turbo-stream action="append" target="messages_rooms_open_2"><template>bmk1z</template></turbo-stream>')
  await client.until(() => client.messages(messages).length === 1)
  await new Promise((resolve) => setTimeout(resolve, 50))
  assert.equal(client.messages(messages).length, 1, 'delivered once, not once per navigation')
})

test('navigations whose presence writes are still in flight keep their order', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('jason') })
  const presence = identifiers.presence('watercooler')
  const messages = identifiers.roomMessages(cable.app, 'watercooler')
  client.subscribe(presence)
  client.subscribe(messages)
  await client.confirmed(messages)

  // Every presence write waits until released, so each navigation's subscribe sits behind an
  // unsubscribe whose write has not even started.
  const release = holdWrites(t, cable.app)
  for (let n = 0; n < 200; n++) {
    client.unsubscribe(messages)
    client.unsubscribe(presence)
    client.subscribe(presence)
    client.subscribe(messages)
  }
  await new Promise((resolve) => setTimeout(resolve, 100))
  assert.equal(client.confirmations(presence).length, 1, 'nothing behind a held write has run')
  release()

  await client.until(() => client.confirmations(presence).length === 201 && client.confirmations(messages).length === 201, 20_000)
  assert.equal(client.rejections().length, 0)
  const membership = membershipOf(cable.app, 'watercooler', users.jason.id)!
  assert.equal(membership.connections, 1, 'every absent matched its present')
  assert.notEqual(membership.connected_at, null)

  client.close()
  await eventually(() => membershipOf(cable.app, 'watercooler', users.jason.id)!.connections === 0, 5000, 'the last absent')
  assert.equal(membershipOf(cable.app, 'watercooler', users.jason.id)!.connected_at, null)
})

test('commands after an unsubscribe never see the old subscription', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('kevin') })
  const typing = identifiers.typing('hq')
  client.subscribe(typing)
  client.perform(typing, { action: 'start' })
  client.unsubscribe(typing)
  client.perform(typing, { action: 'stop' })
  client.subscribe(identifiers.heartbeat)
  await client.confirmed(identifiers.heartbeat)
  assert.deepEqual(
    client.messages(typing).map((m) => (m as { action: string }).action),
    ['start'],
  )
})
