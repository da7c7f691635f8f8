import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import WebSocket from 'ws'
import { rooms, users } from '../fixtures.ts'
import { eventually, identifiers, messagesStreamName, startCableApp, type CableApp } from './cable-helper.ts'

// The real browser client, @rails/actioncable, driven in Node. It only needs a WebSocket
// (ws, taught to send the page's cookie and Origin) and the window's addEventListener, which
// its ConnectionMonitor uses for visibility changes.
interface Callbacks {
  connected?(details: { reconnected: boolean }): void
  disconnected?(details: { willAttemptReconnect: boolean }): void
  rejected?(): void
  received?(data: unknown): void
}
interface Subscription {
  identifier: string
  perform(action: string, data?: Record<string, unknown>): boolean
  unsubscribe(): void
}
interface Consumer {
  subscriptions: { create(params: Record<string, unknown>, callbacks: Callbacks): Subscription }
  disconnect(): void
}
interface ActionCableModule {
  adapters: { WebSocket: unknown }
  logger: { enabled: boolean }
  ConnectionMonitor: { staleThreshold: number }
  createConsumer(url: string): Consumer
}

const ActionCable = createRequire(import.meta.url)('@rails/actioncable') as ActionCableModule

interface Tracked {
  subscription: Subscription
  events: string[]
  received: unknown[]
}

class Page {
  readonly consumer: Consumer
  readonly tracked: Tracked[] = []

  constructor(t: { after: (fn: () => void) => void }, cable: CableApp, cookie: string) {
    const origin = cable.origin
    ActionCable.adapters.WebSocket = class extends WebSocket {
      constructor(url: string, protocols: string[]) {
        super(url, protocols, { headers: { cookie, origin } })
      }
    }
    this.consumer = ActionCable.createConsumer(cable.url)
    t.after(() => this.consumer.disconnect())
  }

  subscribe(params: Record<string, unknown>): Tracked {
    const tracked: Tracked = { events: [], received: [] } as unknown as Tracked
    tracked.subscription = this.consumer.subscriptions.create(params, {
      connected: ({ reconnected }) => tracked.events.push(reconnected ? 'reconnected' : 'connected'),
      disconnected: ({ willAttemptReconnect }) => tracked.events.push(willAttemptReconnect ? 'disconnected' : 'disconnected for good'),
      rejected: () => tracked.events.push('rejected'),
      received: (data) => tracked.received.push(data),
    })
    this.tracked.push(tracked)
    return tracked
  }
}

const window = globalThis as { addEventListener?: unknown; removeEventListener?: unknown }
const installed = window.addEventListener === undefined
before(() => {
  ActionCable.logger.enabled = false
  if (!installed) return
  window.addEventListener = () => {}
  window.removeEventListener = () => {}
})
after(() => {
  if (!installed) return
  delete window.addEventListener
  delete window.removeEventListener
})

test('the @rails/actioncable client connects, subscribes, receives, performs and navigates', async (t) => {
  const cable = await startCableApp(t)
  const page = new Page(t, cable, await cable.cookie('david'))
  const signed = (name: string) => cable.app.signing.signStreamName(name)

  const heartbeat = page.subscribe({ channel: 'HeartbeatChannel' })
  const presence = page.subscribe({ channel: 'PresenceChannel', room_id: rooms.hq.id })
  const unreads = page.subscribe({ channel: 'UnreadRoomsChannel' })
  const typing = page.subscribe({ channel: 'TypingNotificationsChannel', room_id: rooms.hq.id })
  let messages = page.subscribe({ channel: 'RoomMessagesChannel', signed_stream_name: signed(messagesStreamName('hq')) })
  const sneaky = page.subscribe({ channel: 'Turbo::StreamsChannel', signed_stream_name: signed(messagesStreamName('hq')) })
  const outsider = page.subscribe({ channel: 'PresenceChannel', room_id: 999 })

  await eventually(() => page.tracked.every((s) => s.events.length > 0), 5000, 'every subscription to be answered')
  for (const s of [heartbeat, presence, unreads, typing, messages]) assert.deepEqual(s.events, ['connected'], s.subscription.identifier)
  assert.deepEqual(sneaky.events, ['rejected'])
  assert.deepEqual(outsider.events, ['rejected'])
  assert.equal(cable.app.store.read((m) => m.memberships.find(rooms.hq.id, users.david.id))!.connections, 1)

  cable.app.cable.messageCreated(rooms.hq, '<turbo-stream action="append" target="messages_rooms_open_2"><template>bmk7z</template></turbo-stream>')
  cable.app.cable.unreadRoom(rooms.hq, [users.david.id, users.jason.id], 1767225600.5)
  typing.subscription.perform('start')
  presence.subscription.perform('refresh')
  await eventually(() => messages.received.length === 1 && unreads.received.length === 1 && typing.received.length === 1, 5000, 'deliveries')
  assert.match(String(messages.received[0]), /bmk7z/)
  assert.deepEqual(unreads.received[0], { roomId: rooms.hq.id, at: 1767225600.5 })
  assert.deepEqual(typing.received[0], { action: 'start', user: { id: users.david.id, name: users.david.name } })

  // Turbo navigations: the stream source element is removed and added back at once.
  const params = { channel: 'RoomMessagesChannel', signed_stream_name: signed(messagesStreamName('hq')) }
  for (let n = 0; n < 50; n++) {
    messages.subscription.unsubscribe()
    messages = page.subscribe(params)
  }
  await eventually(() => messages.events.includes('connected'), 5000, 'the last navigation to connect')
  assert.ok(page.tracked.every((s) => !s.events.includes('rejected') || s === sneaky || s === outsider))
  assert.equal(cable.app.cable.server.subscribersOf(messagesStreamName('hq')), 1)
  cable.app.cable.messageCreated(rooms.hq, '<turbo-stream action="append" target="messages_rooms_open_2"><template>bmk8z</template></turbo-stream>')
  await eventually(() => messages.received.length === 1, 5000, 'delivery after navigating')
})

test('a remote disconnect with reconnect brings the client back, re-subscribed; without, it stays away', async (t) => {
  const staleThreshold = ActionCable.ConnectionMonitor.staleThreshold
  ActionCable.ConnectionMonitor.staleThreshold = 0.5
  t.after(() => (ActionCable.ConnectionMonitor.staleThreshold = staleThreshold))
  const cable = await startCableApp(t, { beatIntervalMs: 100 })
  const page = new Page(t, cable, await cable.cookie('kevin'))
  const heartbeat = page.subscribe({ channel: 'HeartbeatChannel' })
  const presence = page.subscribe({ channel: 'PresenceChannel', room_id: rooms.watercooler.id })
  await eventually(() => heartbeat.events.length === 1 && presence.events.length === 1, 5000, 'connected')

  cable.app.cable.disconnectUser(users.kevin.id, { reconnect: true })
  await eventually(() => heartbeat.events.includes('reconnected'), 10_000, 'the client to come back')
  assert.deepEqual(heartbeat.events, ['connected', 'disconnected', 'reconnected'])
  await eventually(() => presence.events.length === 3, 5000, 'presence re-subscribed')
  await eventually(() => cable.app.store.read((m) => m.memberships.find(rooms.watercooler.id, users.kevin.id))!.connections === 1, 5000, 'one connection again')

  cable.app.cable.disconnectUser(users.kevin.id, { reconnect: false })
  await eventually(() => heartbeat.events.length === 4, 5000, 'the disconnect')
  assert.equal(heartbeat.events.at(-1), 'disconnected for good')
  await new Promise((resolve) => setTimeout(resolve, 1500))
  assert.equal(cable.app.cable.server.stats().connections, 0)
  assert.equal(heartbeat.events.length, 4)
})
