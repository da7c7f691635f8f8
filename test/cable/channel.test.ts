import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Channel, type ChannelConnection, type ChannelHub } from '../../server/cable/channel.ts'

// A hub that records every subscriber added and removed, and a connection that only names it.
function fakeConnection() {
  const calls: string[] = []
  const hub = {
    intern: (text: string) => text,
    addSubscriber: (stream: string) => void calls.push(`+${stream}`),
    removeSubscriber: (stream: string) => void calls.push(`-${stream}`),
  } as unknown as ChannelHub
  const connection = { server: hub, user: { id: 1, name: 'David' } } as unknown as ChannelConnection
  return { connection, calls }
}

class Streaming extends Channel {
  constructor(connection: ChannelConnection, private readonly names: string[]) {
    super(connection, '{"channel":"Streaming"}', {})
  }

  override subscribed(): void {
    for (const name of this.names) this.streamFrom(name)
  }
}

test('a channel that streams from one stream is subscribed to it once, and stopping removes it once', () => {
  const { connection, calls } = fakeConnection()
  const channel = new Streaming(connection, ['rooms', 'rooms'])
  channel.subscribed()
  assert.deepEqual(channel.streams, ['rooms'])
  channel.stopAllStreams()
  assert.deepEqual(channel.streams, [])
  assert.deepEqual(calls, ['+rooms', '-rooms'])
})

test('a channel that streams from several streams is subscribed to each once, and stopping removes each', () => {
  const { connection, calls } = fakeConnection()
  const channel = new Streaming(connection, ['a', 'b', 'a', 'c', 'b'])
  channel.subscribed()
  assert.deepEqual(channel.streams, ['a', 'b', 'c'])
  channel.stopAllStreams()
  channel.stopAllStreams()
  assert.deepEqual(channel.streams, [])
  assert.deepEqual(calls, ['+a', '+b', '+c', '-a', '-b', '-c'])
})

test('a channel that streams nothing removes nothing when stopped', () => {
  const { connection, calls } = fakeConnection()
  const channel = new Streaming(connection, [])
  channel.subscribed()
  channel.stopAllStreams()
  assert.deepEqual(channel.streams, [])
  assert.deepEqual(calls, [])
})
