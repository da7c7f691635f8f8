import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { request } from 'node:http'
import WebSocket from 'ws'
import { CableClient, connect, handshakeStatus, holdWrites, identifiers, sharedCableApp, startCableApp, withLimits } from './cable-helper.ts'

const shared = sharedCableApp()

test('a signed-in socket selects actioncable-v1-json and is welcomed', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  assert.equal(client.socket.protocol, 'actioncable-v1-json')
  assert.equal(client.texts[0], '{"type":"welcome"}')
})

test('pings carry the Unix time in seconds, from one timer shared by every socket', async (t) => {
  const cable = shared()
  const cookie = await cable.cookie('david')
  const [first, second] = [await connect(t, cable, { cookie }), await connect(t, cable, { cookie })]
  const ping = await first.frame((f) => f.type === 'ping')
  await second.frame((f) => f.type === 'ping')
  assert.ok(Number.isInteger(ping.message))
  assert.ok(Math.abs((ping.message as number) - Date.now() / 1000) < 5)
  assert.match(first.texts.find((text) => text.includes('ping'))!, /^\{"type":"ping","message":\d+\}$/)
})

test('without a session the handshake is refused with 401 before any socket exists', async () => {
  const cable = shared()
  const open = cable.app.cable.server.stats().connections
  assert.equal(await handshakeStatus(cable), 401)
  assert.equal(await handshakeStatus(cable, { cookie: 'session_token=forged--0000' }), 401)
  assert.ok(cable.app.cable.server.stats().connections <= open)
})

test('a foreign Origin is refused with 403; the page’s own Origin and no Origin at all are let in', async (t) => {
  const cable = shared()
  const cookie = await cable.cookie('david')
  assert.equal(await handshakeStatus(cable, { cookie, origin: 'http://evil.example' }), 403)
  assert.equal(await handshakeStatus(cable, { cookie, origin: cable.origin.replace('127.0.0.1', 'localhost') }), 403)
  assert.equal(await handshakeStatus(cable, { cookie }), 101)
  assert.equal(await handshakeStatus(cable, { cookie, origin: null }), 101)
})

test('a plain GET of /cable is not a page', async (t) => {
  const cable = shared()
  const cookie = await cable.cookie('david')
  const response = await cable.app.inject({ method: 'GET', url: '/cable', headers: { cookie } })
  assert.equal(response.statusCode, 404)
})

test('confirmations and messages echo the identifier byte for byte, spacing and key order included', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  const odd = '{ "room_id" : "3",\n "channel":"PresenceChannel", "note":"\\u00e9 <b>&amp;</b> \u2028 ☃" }'
  const plain = '{"channel":"PresenceChannel","room_id":3}'
  client.subscribe(odd)
  client.subscribe(plain)
  await client.confirmed(odd)
  await client.confirmed(plain)
  assert.equal(client.confirmations(odd).length, 1, 'the same params spelled differently are a separate subscription')
  client.perform(JSON.stringify({ channel: 'TypingNotificationsChannel', room_id: 3 }), { action: 'start' })
  const typing = JSON.stringify({ channel: 'TypingNotificationsChannel', room_id: 3 })
  client.subscribe(typing)
  await client.confirmed(typing)
  client.perform(typing, { action: 'start' })
  const notice = await client.frame((f) => f.identifier === typing && f.message !== undefined)
  assert.deepEqual(notice.message, { action: 'start', user: { id: 1, name: 'David Heinemeier Hansson' } })
  const raw = client.texts.find((text) => text.includes('"message"') && text.includes('TypingNotificationsChannel'))!
  assert.equal(raw, `{"identifier":${JSON.stringify(typing)},"message":{"action":"start","user":{"id":1,"name":"David Heinemeier Hansson"}}}`)
})

test('unknown channels, unparseable identifiers and oversized identifiers are rejected', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  const cases = [
    JSON.stringify({ channel: 'NoSuchChannel' }),
    JSON.stringify({ channel: 'ApplicationCable::Channel' }),
    JSON.stringify({ room_id: 1 }),
    'not json at all',
    '[1,2,3]',
    JSON.stringify({ channel: 'HeartbeatChannel', padding: 'x'.repeat(5000) }),
  ]
  for (const identifier of cases) client.subscribe(identifier)
  for (const identifier of cases) assert.equal(await client.answered(identifier), 'rejected', identifier.slice(0, 40))
})

test('each malformed frame is answered with invalid_command and the connection keeps working', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  client.send('this is not json')
  client.send('"a string"')
  client.send({ identifier: identifiers.heartbeat })
  client.send({ command: 'subscribe' })
  client.send({ command: 'subscribe', identifier: { channel: 'HeartbeatChannel' } })
  client.send({ command: 'fly', identifier: identifiers.heartbeat })
  client.send({ command: 'message', identifier: identifiers.heartbeat, data: '{not json' })
  client.send({ command: 'message', identifier: identifiers.heartbeat, data: { action: 'x' } })
  client.send({ command: 'message', identifier: 'nobody', data: '{"action":"start"}' })
  client.socket.send(Buffer.from([1, 2, 3]), { binary: true })
  client.subscribe(identifiers.heartbeat)
  await client.confirmed(identifiers.heartbeat)
  client.perform(identifiers.heartbeat, { action: 'no_such_action' })
  client.unsubscribe('{"channel":"NeverSubscribed"}')
  client.subscribe(identifiers.unreads)
  await client.confirmed(identifiers.unreads)
  assert.equal(client.closeCode, null)
  const answers = client.texts.filter((text) => text.startsWith('{"type":"invalid_command"'))
  assert.equal(answers.length, 10, answers.join('\n'))
  assert.ok(answers.includes('{"type":"invalid_command","reason":"not JSON"}'))
  assert.ok(answers.includes('{"type":"invalid_command","reason":"binary frame"}'))
  assert.ok(answers.includes('{"type":"invalid_command","reason":"no subscription with that identifier"}'))
})

test('a client that keeps sending malformed frames is disconnected', async (t) => {
  const cable = shared()
  withLimits(t, cable, { malformedFrames: 5 })
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  for (let n = 0; n < 10; n++) client.send('garbage')
  await client.closed()
  assert.ok(client.texts.includes('{"type":"disconnect","reason":"invalid_request","reconnect":false}'))
})

test('frames over 64 KiB close the socket', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  client.send({ command: 'subscribe', identifier: JSON.stringify({ channel: 'HeartbeatChannel', pad: 'x'.repeat(70 * 1024) }) })
  assert.equal(await client.closed(), 1009)
})

test('a socket holds at most 64 subscriptions', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  const all = Array.from({ length: 65 }, (_, n) => JSON.stringify({ channel: 'HeartbeatChannel', n }))
  for (const identifier of all) client.subscribe(identifier)
  for (const identifier of all.slice(0, 64)) assert.equal(await client.answered(identifier), 'confirmed')
  assert.equal(await client.answered(all[64]!), 'rejected')
  client.unsubscribe(all[0]!)
  client.subscribe(all[64]!)
  await client.until(() => client.confirmations(all[64]!).length === 1)
})

test('a second subscribe of a live identifier is ignored, as Rails does, without a rejection', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  client.subscribe(identifiers.heartbeat)
  client.subscribe(identifiers.heartbeat)
  client.subscribe(identifiers.unreads)
  await client.confirmed(identifiers.unreads)
  assert.equal(client.confirmations(identifiers.heartbeat).length, 1)
  assert.equal(client.rejections().length, 0)
})

test('a command flood beyond the queue bound disconnects the socket with a reason', async (t) => {
  const cable = shared()
  withLimits(t, cable, { queuedCommands: 10 })
  const client = await connect(t, cable, { cookie: await cable.cookie('david') })
  // The presence subscribe awaits its write, held here, so everything behind it has to queue.
  holdWrites(t, cable.app)
  client.subscribe(identifiers.presence('hq'))
  for (let n = 0; n < 50; n++) client.subscribe(JSON.stringify({ channel: 'HeartbeatChannel', n }))
  assert.equal(await client.closed(), 1008)
  assert.ok(client.texts.includes('{"type":"disconnect","reason":"invalid_request","reconnect":true}'))
})

test('on shutdown every socket is told to reconnect (server_restart)', async (t) => {
  const own = await startCableApp(t)
  const client = await connect(t, own, { cookie: await own.cookie('david') })
  await own.app.close()
  await client.closed()
  assert.ok(client.texts.includes('{"type":"disconnect","reason":"server_restart","reconnect":true}'))
})

// Rails accepts the upgrade whatever subprotocols it offers: websocket-driver answers with the
// first one in the client's list that Action Cable knows (actioncable-v1-json or the
// actioncable-unsupported sentinel) and with none when nothing matches, and the connection is
// welcomed either way. ws clients, like browsers, give up on a socket whose answer names no
// subprotocol they offered, so these handshakes are made by hand.
test('the subprotocol is negotiated as Rails does, and the upgrade is accepted whatever is offered', async (t) => {
  const cable = shared()
  const cookie = await cable.cookie('david')
  const cases: [offered: string | undefined, selected: string | undefined][] = [
    [undefined, undefined],
    ['chat', undefined],
    ['chat, superchat', undefined],
    ['actioncable-v1-json', 'actioncable-v1-json'],
    ['actioncable-v1-json, actioncable-unsupported', 'actioncable-v1-json'],
    ['chat, actioncable-v1-json', 'actioncable-v1-json'],
    ['actioncable-unsupported', 'actioncable-unsupported'],
    ['actioncable-unsupported, actioncable-v1-json', 'actioncable-unsupported'],
  ]
  for (const [offered, selected] of cases) {
    const answer = await rawHandshake(cable.url, { cookie, origin: cable.origin, protocols: offered })
    assert.equal(answer.status, 101, String(offered))
    assert.equal(answer.protocol, selected, String(offered))
    assert.equal(answer.firstFrame, '{"type":"welcome"}', String(offered))
  }
})

test('a socket that offered no subprotocol is served like any other', async (t) => {
  const cable = shared()
  const client = await connect(t, cable, { cookie: await cable.cookie('david'), protocols: [] })
  assert.equal(client.socket.protocol, '')
  client.subscribe(identifiers.heartbeat)
  await client.confirmed(identifiers.heartbeat)
})

test('without a session or from a foreign Origin the handshake is still refused, whatever the subprotocol', async (t) => {
  const cable = shared()
  const cookie = await cable.cookie('david')
  assert.equal((await rawHandshake(cable.url, { origin: cable.origin })).status, 401)
  assert.equal((await rawHandshake(cable.url, { cookie, origin: 'http://evil.example', protocols: 'chat' })).status, 403)
})

test('sockets are pinged once per beat each, spread over the beat rather than all in one burst', async (t) => {
  const own = await startCableApp(t, { beatIntervalMs: 500 })
  const cookie = await own.cookie('david')
  const clients = await Promise.all(Array.from({ length: 10 }, () => connect(t, own, { cookie })))
  const firstPing = new Map<CableClient, number>()
  const started = performance.now()
  while (firstPing.size < clients.length && performance.now() - started < 3000) {
    for (const client of clients) if (!firstPing.has(client) && client.frames.some((f) => f.type === 'ping')) firstPing.set(client, performance.now())
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
  assert.equal(firstPing.size, clients.length, 'every socket was pinged within a beat or so')
  const times = [...firstPing.values()]
  assert.ok(Math.max(...times) - Math.min(...times) >= 150, `first pings spread over ${Math.round(Math.max(...times) - Math.min(...times))} ms`)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  for (const client of clients) {
    const pings = client.frames.filter((f) => f.type === 'ping').length
    assert.ok(pings >= 2 && pings <= 5, `${pings} pings in about two and a half beats`)
  }
})

test('a peer that stops answering WebSocket pings is terminated; one that answers stays', async (t) => {
  const own = await startCableApp(t, { beatIntervalMs: 50, livenessBeats: 2 })
  const cookie = await own.cookie('david')
  const live = await connect(t, own, { cookie })
  const socket = new WebSocket(own.url, ['actioncable-v1-json'], { headers: { cookie, origin: own.origin }, autoPong: false })
  t.after(() => socket.terminate())
  const dead = new CableClient(socket)
  await dead.frame((f) => f.type === 'welcome')
  await dead.closed(3000)
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(live.closeCode, null)
  assert.ok(live.frames.filter((f) => f.type === 'ping').length >= 4)
})

interface HandshakeAnswer {
  status: number
  protocol: string | undefined
  firstFrame: string | null
}

// A WebSocket upgrade by hand: the answer's status and Sec-WebSocket-Protocol, and the text of
// the first (unmasked, unfragmented) frame the server sends on an accepted socket.
function rawHandshake(url: string, options: { cookie?: string; origin?: string; protocols?: string }): Promise<HandshakeAnswer> {
  const { hostname, port } = new URL(url)
  const headers: Record<string, string> = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64') }
  if (options.cookie) headers.Cookie = options.cookie
  if (options.origin) headers.Origin = options.origin
  if (options.protocols !== undefined) headers['Sec-WebSocket-Protocol'] = options.protocols
  return new Promise((resolve, reject) => {
    // No agent: the server closes a refused upgrade's socket, which must not be reused.
    const req = request({ host: hostname, port: Number(port), path: '/cable', headers, agent: false })
    req.once('error', reject)
    req.once('response', (response) => {
      response.resume()
      resolve({ status: response.statusCode ?? 0, protocol: undefined, firstFrame: null })
    })
    req.once('upgrade', (response, socket, head) => {
      let bytes = head
      const answer = (): void => {
        if (bytes.length < 2 || bytes.length < 2 + (bytes[1]! & 0x7f)) return
        socket.destroy()
        const header = response.headers['sec-websocket-protocol']
        resolve({ status: response.statusCode ?? 0, protocol: Array.isArray(header) ? header.join(', ') : header, firstFrame: bytes.subarray(2, 2 + (bytes[1]! & 0x7f)).toString('utf8') })
      }
      socket.on('data', (chunk: Buffer) => {
        bytes = Buffer.concat([bytes, chunk])
        answer()
      })
      answer()
    })
    req.end()
  })
}
