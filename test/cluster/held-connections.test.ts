import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setImmediate as turn } from 'node:timers/promises'
import type { PresenceTouch } from '../../server/cable/channels/presence-writes.ts'
import { HeldConnections, HeldConnectionsLedger, type HeldConnectionsMessage } from '../../server/cluster/held-connections.ts'

// A channel to the primary that holds each message until the test lets it go.
function channel() {
  const sent: HeldConnectionsMessage[] = []
  const waiting: (() => void)[] = []
  const held = new HeldConnections((message, done) => {
    sent.push(message)
    waiting.push(() => done(null))
  })
  return { held, sent, deliver: () => waiting.shift()?.() }
}

const touch = (verb: PresenceTouch['verb'], roomId: number, userId: number): PresenceTouch => ({ verb, roomId, userId })

test('a worker reports how many connections it holds per membership, once per turn, never fewer than none', async () => {
  const { held, sent } = channel()
  held.committed([touch('present', 1, 3), touch('present', 1, 3), touch('present', 2, 3), touch('refresh', 1, 4)], [true, true, true, true])
  held.committed([touch('disconnected', 2, 3), touch('disconnected', 2, 3), touch('present', 9, 9)], [true, true, false])
  assert.equal(sent.length, 0, 'nothing is sent before the turn ends')
  await turn()
  assert.deepEqual(sent, [{ campfire: 'held-connections', held: [1, 3, 2, 2, 3, 0] }])
})

test('what changes while a report is on its way goes in one message after it', async () => {
  const { held, sent, deliver } = channel()
  held.committed([touch('present', 1, 3)], [true])
  await turn()
  for (let i = 0; i < 100; i++) held.committed([touch('present', 1, 3), touch('present', 2, i)], [true, true])
  await turn()
  assert.equal(sent.length, 1, 'one message in flight at a time')
  const flushed = held.flushed()
  deliver()
  assert.equal(sent.length, 2)
  assert.equal(sent[1]!.held.length, 3 * 101, 'one entry per membership that changed')
  assert.deepEqual(sent[1]!.held.slice(0, 3), [1, 3, 101])
  deliver()
  await flushed
})

test('the primary releases what a dead worker last said it held, once', () => {
  const ledger = new HeldConnectionsLedger()
  ledger.record({ campfire: 'held-connections', held: [1, 3, 2, 2, 3, 1] })
  ledger.record({ campfire: 'held-connections', held: [2, 3, 0, 4, 4, 1] })
  assert.deepEqual(ledger.takeAll(), [
    { roomId: 1, userId: 3, count: 2 },
    { roomId: 4, userId: 4, count: 1 },
  ])
  assert.deepEqual(ledger.takeAll(), [])
})
