import { test } from 'node:test'
import assert from 'node:assert/strict'
import { users } from '../fixtures.ts'
import { connect, identifiers, sharedCableApp, withLimits, type CableClient } from './cable-helper.ts'

const shared = sharedCableApp()

type Notice = { action: string; user: { id: number; name: string } }

function noticesFrom(client: CableClient, identifier: string, userId: number): string[] {
  return (client.messages(identifier) as Notice[]).filter((notice) => notice.user.id === userId).map((notice) => notice.action)
}

// The observer's own start comes back to it behind everything broadcast before it, so once it
// is in, whatever the typist got heard has arrived.
async function settle(observer: CableClient, identifier: string, observerId: number): Promise<void> {
  const before = noticesFrom(observer, identifier, observerId).length
  observer.perform(identifier, { action: 'start' })
  await observer.until(() => noticesFrom(observer, identifier, observerId).length > before)
}

test('a socket flooding typing starts is heard a bounded number of times, then disconnected', async (t) => {
  const cable = shared()
  const typing = identifiers.typing('hq')
  const [kevin, david] = await Promise.all([connect(t, cable, { cookie: await cable.cookie('kevin') }), connect(t, cable, { cookie: await cable.cookie('david') })])
  for (const client of [kevin, david]) client.subscribe(typing)
  for (const client of [kevin, david]) await client.confirmed(typing)
  for (let n = 0; n < 6000; n++) kevin.perform(typing, { action: 'start' })
  await kevin.closed(10_000).catch(() => {})
  await settle(david, typing, users.david.id)
  const heard = noticesFrom(david, typing, users.kevin.id)
  // The burst, plus a token or two refilled while the flood was read.
  assert.ok(heard.length >= 1 && heard.length <= 5, `heard ${heard.length} starts`)
  assert.equal(kevin.closeCode, 1008)
  assert.ok(kevin.texts.includes('{"type":"disconnect","reason":"invalid_request","reconnect":false}'))
  assert.equal(david.closeCode, null)
})

test('alternating starts and stops cannot outrun the pace either', async (t) => {
  const cable = shared()
  const typing = identifiers.typing('pets')
  const [kevin, david] = await Promise.all([connect(t, cable, { cookie: await cable.cookie('kevin') }), connect(t, cable, { cookie: await cable.cookie('david') })])
  for (const client of [kevin, david]) client.subscribe(typing)
  for (const client of [kevin, david]) await client.confirmed(typing)
  for (let n = 0; n < 3000; n++) {
    kevin.perform(typing, { action: 'start' })
    kevin.perform(typing, { action: 'stop' })
  }
  await kevin.closed(10_000).catch(() => {})
  await settle(david, typing, users.david.id)
  const heard = noticesFrom(david, typing, users.kevin.id)
  // Each start heard may be followed by the stop that ends it, and nothing else gets through.
  assert.ok(heard.length <= 10, `heard ${heard.length} notices`)
  assert.equal(kevin.closeCode, 1008)
})

test('start, stop and start again are all heard, and a stop after a burst of starts is never dropped', async (t) => {
  const cable = shared()
  const typing = identifiers.typing('watercooler')
  const [kevin, david] = await Promise.all([connect(t, cable, { cookie: await cable.cookie('kevin') }), connect(t, cable, { cookie: await cable.cookie('david') })])
  for (const client of [kevin, david]) client.subscribe(typing)
  for (const client of [kevin, david]) await client.confirmed(typing)
  for (const action of ['start', 'stop', 'start', 'stop']) kevin.perform(typing, { action })
  await david.until(() => noticesFrom(david, typing, users.kevin.id).length === 4)
  assert.deepEqual(noticesFrom(david, typing, users.kevin.id), ['start', 'stop', 'start', 'stop'])

  for (let n = 0; n < 20; n++) kevin.perform(typing, { action: 'start' })
  kevin.perform(typing, { action: 'stop' })
  await david.until(() => noticesFrom(david, typing, users.kevin.id).at(-1) === 'stop' && noticesFrom(david, typing, users.kevin.id).length > 4)
  const burst = noticesFrom(david, typing, users.kevin.id).slice(4)
  assert.equal(burst.at(-1), 'stop')
  assert.ok(burst.length >= 2 && burst.length <= 4, burst.join())
  assert.equal(kevin.closeCode, null)
})

test('once the pace allows it again, a start is heard', async (t) => {
  const cable = shared()
  withLimits(t, cable, { typingPerSecond: 20 })
  const typing = identifiers.typing('designers')
  const [jason, david] = await Promise.all([connect(t, cable, { cookie: await cable.cookie('jason') }), connect(t, cable, { cookie: await cable.cookie('david') })])
  for (const client of [jason, david]) client.subscribe(typing)
  for (const client of [jason, david]) await client.confirmed(typing)
  for (let n = 0; n < 10; n++) jason.perform(typing, { action: 'start' })
  await settle(david, typing, users.david.id)
  const first = noticesFrom(david, typing, users.jason.id).length
  assert.ok(first < 10, `heard ${first} of 10`)
  await new Promise((resolve) => setTimeout(resolve, 300))
  jason.perform(typing, { action: 'start' })
  await david.until(() => noticesFrom(david, typing, users.jason.id).length === first + 1)
  assert.equal(jason.closeCode, null)
})
